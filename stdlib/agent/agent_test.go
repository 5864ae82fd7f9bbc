package agent_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/llm"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/stdlib/agent"
)

const launcher = "com.android.launcher3"

// requestText is the user message text of a recorded request (chat or
// responses).
func requestText(r llmtest.Request) string {
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if s, ok := x["text"].(string); ok {
				b.WriteString(s)
				b.WriteByte('\n')
			}
			if s, ok := x["content"].(string); ok {
				b.WriteString(s)
				b.WriteByte('\n')
			}
			for k, y := range x {
				if k != "text" {
					walk(y)
				}
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	if r.IsChat() {
		walk(r.Body["messages"])
	} else {
		walk(r.Body["input"])
	}
	return b.String()
}

// checkRequest asserts the shape every step request must have.
func checkRequest(t *testing.T, r llmtest.Request) {
	t.Helper()
	tools, _ := r.Body["tools"].([]any)
	assert.Len(t, tools, noChatTools(), "every action tool is offered but the chat's (no chat here)")
	// The smaller of PNG and JPEG by default: PNG on the virtual phone's
	// flat screens.
	assert.Equal(t, 1, strings.Count(string(r.Raw), "data:image/png;base64,")+strings.Count(string(r.Raw), "data:image/jpeg;base64,"), "exactly one image")
	assert.Contains(t, requestText(r), "Elements (marks on the screenshot", "the element list is in the text")
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

func TestWifiToggleChat(t *testing.T) { testWifiToggle(t, false) }

func TestWifiToggleResponsesFallback(t *testing.T) { testWifiToggle(t, true) }

func testWifiToggle(t *testing.T, responses bool) {
	r := newRig(t)
	mark := r.settingsWifiMark()
	require.True(t, r.sim.Phone().WifiOn())
	if responses {
		r.srv.DisableChat()
	}
	r.srv.ReplyTool("launch_app", map[string]any{"packageName": "com.android.settings", "thought": "open settings"})
	r.srv.ReplyTool("tap_element", map[string]any{"elementId": mark, "thought": "the Wi-Fi switch"})
	r.srv.ReplyTool("finish", map[string]any{"message": "Wi-Fi is off"})

	task := "Turn Wi-Fi off"
	res, err := r.run(context.Background(), r.client(2), task, agent.Options{MaxSteps: 10, ReturnHome: true})
	require.NoError(t, err)
	assert.True(t, res.Success, res.Message)
	assert.Equal(t, "Wi-Fi is off", res.Message)
	assert.Equal(t, 3, res.Steps)
	assert.Equal(t, int64(3*120), res.Usage.TotalTokens)
	assert.False(t, r.sim.Phone().WifiOn(), "the model's tap really toggled Wi-Fi")
	assert.Equal(t, launcher, r.sim.Phone().CurrentPackage(), "returnHomeOnTaskEnd")

	// Requests: tools, one image, element list; the mark tapped was listed.
	var steps []llmtest.Request
	for _, q := range r.srv.Requests() {
		if q.Path == "/v1/chat/completions" && responses {
			continue // 404, fallback
		}
		steps = append(steps, q)
	}
	require.Len(t, steps, 3)
	for _, q := range steps {
		checkRequest(t, q)
	}
	assert.Contains(t, requestText(steps[1]), fmt.Sprintf("mark %s: ", mark))
	assert.Contains(t, requestText(steps[1]), "current app com.android.settings")
	assert.Contains(t, requestText(steps[2]), "step 2: app=com.android.settings action=tap_element("+mark+") result=Tapped element "+mark)
	assert.Contains(t, requestText(steps[2]), "state_delta changed=true")
	assert.Contains(t, requestText(steps[0]), "Installed apps: ", "installed apps on the first step")
	if responses {
		paths := r.srv.Paths()
		assert.Equal(t, "/v1/chat/completions", paths[0])
		assert.Equal(t, []string{"/v1/responses", "/v1/responses", "/v1/responses"}, paths[1:], "the fallback is remembered")
		modes, err := r.home.ModeStore()
		require.NoError(t, err)
		assert.Equal(t, llm.ModeResponses, modes.Get("test"))
	} else {
		for _, q := range steps {
			assert.True(t, q.IsChat())
		}
	}

	// Session markdown: the session format of docs/formats.md: step blocks, final block, screenshots.
	md := readFile(t, res.SessionPath)
	assert.Contains(t, md, "## Task\n\n"+task)
	for i := 1; i <= 3; i++ {
		assert.Contains(t, md, fmt.Sprintf("### Step %d\n\n- at: ", i))
	}
	assert.Contains(t, md, "- thought:\n```text\nthe Wi-Fi switch\n```")
	assert.Contains(t, md, "- action:\n```json\n{\n  \"type\": \"tap_element\",\n  \"elementId\": \""+mark+"\"\n}\n```")
	assert.Contains(t, md, "- execution_result:\n```text\nTapped element "+mark)
	assert.Contains(t, md, "local_screenshot="+r.home.ScreenshotsDir())
	assert.Contains(t, md, "## Final\n\n- status: SUCCESS")
	assert.Contains(t, md, "### Message\n\nWi-Fi is off")
	shots, _ := filepath.Glob(filepath.Join(r.home.ScreenshotsDir(), "*-step-002-com.android.settings.png"))
	assert.Len(t, shots, 1)

	mem := readFile(t, r.home.DailyMemoryPath(time.Now()))
	assert.Contains(t, mem, "[OK] [test] task: Turn Wi-Fi off | result: Wi-Fi is off")

	// Trace: what replay needs.
	tr, err := agent.ReadTrace(agent.TracePath(res.SessionPath))
	require.NoError(t, err)
	require.Len(t, tr, 3)
	tap := tr[1]
	assert.Equal(t, "tap_element", tap.Action.Type)
	assert.Equal(t, "tap", tap.DeviceAction.Type)
	require.NotNil(t, tap.Target)
	assert.Equal(t, "com.android.settings:id/wifi_switch", tap.Target.ResourceID)
	assert.True(t, tap.Target.Bounds.Contains(screenPoint(tap.DeviceAction)), "device tap inside the target")
	assert.Equal(t, 0, tap.Target.Index)
	assert.Equal(t, "com.android.settings", tap.AppBefore)
	assert.Equal(t, "com.android.settings", tap.AppAfter)
	// Changed compares exact content; the visual hashes are recorded but a
	// toggled switch need not move a coarse 9x8 dHash.
	assert.True(t, tap.Changed)
	assert.Len(t, tap.HashBefore, 16)
	assert.Len(t, tap.HashAfter, 16)
	assert.Equal(t, int64(120), tap.Usage.TotalTokens)
	assert.NotEmpty(t, tap.Screenshot)
	assert.Equal(t, launcher, tr[0].AppBefore)
	assert.Equal(t, "com.android.settings", tr[0].AppAfter)

	// Progress events.
	evs := r.agentSteps()
	require.Len(t, evs, 3)
	assert.EqualValues(t, 2, evs[1].Fields["step"])
	assert.EqualValues(t, 10, evs[1].Fields["max_steps"])
	assert.Equal(t, "tap_element("+mark+")", evs[1].Fields["action"])
	assert.Contains(t, evs[1].Fields, "model_ms")
}

func screenPoint(a action.Action) screen.Point {
	return screen.Point{X: a.Int("x"), Y: a.Int("y")}
}

func TestJSONActionInTextAndMalformedArguments(t *testing.T) {
	r := newRig(t)
	r.srv.ReplyText("I will wait.\n```json\n{\"type\":\"wait\",\"durationMs\":100}\n```")
	r.srv.ReplyTool("wait", `{"durationMs": 100,}`)
	r.srv.ReplyTool("finish", map[string]any{"message": "done"})
	res, err := r.run(context.Background(), r.client(0), "wait twice", agent.Options{MaxSteps: 5})
	require.NoError(t, err)
	assert.True(t, res.Success)
	assert.Equal(t, 3, res.Steps)
	reqs := r.srv.Requests()
	require.Len(t, reqs, 3)
	assert.NotContains(t, requestText(reqs[0]), "previous reply had problems")
	assert.Contains(t, requestText(reqs[1]), "Your previous reply had problems: reply had no tool call", "text action: told next step")
	assert.Contains(t, requestText(reqs[2]), "Your previous reply had problems: arguments were not valid JSON", "malformed arguments: told next step")
	assert.Contains(t, requestText(reqs[2]), "step 1: app="+launcher+" action=wait(100ms) result=Waited 100 ms")
}

func TestReplyWithoutActionRetriesThenFails(t *testing.T) {
	r := newRig(t)
	for range 4 {
		r.srv.ReplyText("I am not sure what to do.")
	}
	res, err := r.run(context.Background(), r.client(0), "confuse the model", agent.Options{MaxSteps: 10})
	require.Error(t, err)
	assert.ErrorIs(t, err, llm.ErrNoAction)
	assert.False(t, res.Success)
	assert.True(t, strings.HasPrefix(res.Message, "model error: model returned no tool call"), res.Message)
	reqs := r.srv.Requests()
	require.Len(t, reqs, 4, "three rejected replies are told to the model, the fourth ends the run")
	assert.Contains(t, requestText(reqs[1]), "Your previous reply had problems: model returned no tool call")
}

func TestServerErrorThenSuccess(t *testing.T) {
	r := newRig(t)
	r.srv.ReplyStatus(500, "")
	r.srv.ReplyTool("finish", map[string]any{"message": "ok after retry"})
	res, err := r.run(context.Background(), r.client(2), "retry", agent.Options{MaxSteps: 3})
	require.NoError(t, err)
	assert.True(t, res.Success)
	assert.Equal(t, "ok after retry", res.Message)
	assert.Len(t, r.srv.Requests(), 2)
}

func TestCancelMidRun(t *testing.T) {
	r := newRig(t)
	r.srv.ReplyTool("launch_app", map[string]any{"packageName": "com.android.settings"})
	r.srv.Push(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "finish", Arguments: `{"message":"late"}`}}, Delay: 20 * time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for len(r.srv.Requests()) < 2 {
			time.Sleep(10 * time.Millisecond)
		}
		cancel() // Ctrl-C while the model thinks
	}()
	start := time.Now()
	res, err := r.run(ctx, r.client(2), "be interrupted", agent.Options{MaxSteps: 10, ReturnHome: true})
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), 15*time.Second, "the model call was interrupted")
	assert.False(t, res.Success)
	assert.Equal(t, "cancelled", res.Message)
	assert.Equal(t, 1, res.Steps)
	md := readFile(t, res.SessionPath)
	assert.Contains(t, md, "### Step 1\n")
	assert.Contains(t, md, "## Final\n\n- status: FAILED")
	assert.Contains(t, md, "### Message\n\ncancelled")
	assert.Contains(t, readFile(t, r.home.DailyMemoryPath(time.Now())), "[FAIL] [test] task: be interrupted | result: cancelled")
	assert.Equal(t, "com.android.settings", r.sim.Phone().CurrentPackage(), "no HOME after a cancellation")
}

func TestMaxStepsReached(t *testing.T) {
	r := newRig(t)
	r.srv.ReplyTool("wait", map[string]any{"durationMs": 100})
	r.srv.ReplyTool("wait", map[string]any{"durationMs": 100})
	res, err := r.run(context.Background(), r.client(0), "never finish", agent.Options{MaxSteps: 2})
	require.NoError(t, err, "max steps is a verdict, not an error")
	assert.False(t, res.Success)
	assert.Equal(t, "max steps (2) reached", res.Message)
	assert.Equal(t, 2, res.Steps)
	md := readFile(t, res.SessionPath)
	assert.Contains(t, md, "- status: FAILED")
	assert.Contains(t, md, "max steps (2) reached")
	tr, err := agent.ReadTrace(agent.TracePath(res.SessionPath))
	require.NoError(t, err)
	assert.Len(t, tr, 2)
}

func TestModelDown(t *testing.T) {
	r := newRig(t)
	c := r.client(-1)
	r.srv.Close()
	res, err := r.run(context.Background(), c, "talk to nobody", agent.Options{MaxSteps: 5})
	require.Error(t, err)
	assert.False(t, res.Success)
	assert.True(t, strings.HasPrefix(res.Message, `model error: model "test" (gpt-test): chat completions:`), res.Message)
	assert.Contains(t, res.Message, "connect")
	assert.Equal(t, 0, res.Steps)
	md := readFile(t, res.SessionPath)
	assert.Contains(t, md, "- status: FAILED")
	assert.Contains(t, md, "model error: ")
}

func TestDeviceLost(t *testing.T) {
	r := newRig(t)
	m := &fakeModel{next: func(engine.ModelRequest) (engine.ModelReply, error) {
		a, _ := action.New("wait", map[string]any{"durationMs": 100})
		return engine.ModelReply{Action: a}, nil
	}}
	e := r.engine(m)
	e.OpenDevice = func(context.Context) (engine.Device, error) {
		return nil, errors.New("device lost: emulator-5554 is offline")
	}
	res, err := agent.Run(context.Background(), r.session(context.Background(), e, "no phone"), agent.Options{MaxSteps: 5})
	require.Error(t, err)
	assert.False(t, res.Success)
	assert.Equal(t, "device error: capture: device lost: emulator-5554 is offline", res.Message)
	assert.Contains(t, readFile(t, res.SessionPath), "- status: FAILED")
}

func TestLuaErrorAndCustomLoop(t *testing.T) {
	r := newRig(t)
	m := &fakeModel{next: func(engine.ModelRequest) (engine.ModelReply, error) {
		a, _ := action.New("finish", map[string]any{"message": "x"})
		return engine.ModelReply{Action: a}, nil
	}}
	res, err := r.run(context.Background(), m, "broken loop", agent.Options{Source: "error('boom')"})
	require.Error(t, err)
	assert.False(t, res.Success)
	assert.Contains(t, res.Message, "agent loop error: ")
	assert.Contains(t, res.Message, "boom")
	assert.Contains(t, readFile(t, res.SessionPath), "- status: FAILED")

	custom := `local host = require("agent_host")
return { run = function()
  local snap = assert(host.capture())
  local d = assert(host.decide(snap, {}, {}, 1))
  local out = assert(host.act({ type = "wait", durationMs = 100 }, snap))
  assert(host.record({ step = 1, snapshot = snap, decision = d, outcome = out }))
  return { ok = true, message = "custom " .. snap.app .. " " .. out.result }
end }`
	res, err = r.run(context.Background(), m, "custom loop", agent.Options{Source: custom})
	require.NoError(t, err)
	assert.True(t, res.Success)
	assert.Equal(t, "custom "+launcher+" Waited 100 ms", res.Message)
	assert.Equal(t, 1, res.Steps)
}

func TestHumanAuth(t *testing.T) {
	r := newRig(t)
	newModel := func() *fakeModel {
		n := 0
		return &fakeModel{next: func(engine.ModelRequest) (engine.ModelReply, error) {
			n++
			if n == 1 {
				a, _ := action.New("request_human_auth", map[string]any{"capability": "2fa", "instruction": "Enter the code sent to your phone"})
				return engine.ModelReply{Action: a}, nil
			}
			a, _ := action.New("finish", map[string]any{"message": "done"})
			return engine.ModelReply{Action: a}, nil
		}}
	}

	// No terminal: a clear result, the run goes on.
	m := newModel()
	res, err := r.run(context.Background(), m, "needs a code", agent.Options{MaxSteps: 3, Stdin: strings.NewReader("y\n")})
	require.NoError(t, err)
	assert.True(t, res.Success)
	assert.Contains(t, m.calls[1].Text, "result=Human auth unavailable request_id=")
	assert.Contains(t, m.calls[1].Text, "stdin is not a TTY")

	// A terminal that approves and types a code.
	var out bytes.Buffer
	m = newModel()
	res, err = r.run(context.Background(), m, "needs a code", agent.Options{MaxSteps: 3,
		HumanAuth: agent.TerminalAuth(strings.NewReader("y\n123456\n"), &out)})
	require.NoError(t, err)
	assert.True(t, res.Success)
	assert.Contains(t, out.String(), "Enter the code sent to your phone")
	assert.Contains(t, out.String(), "Approve? [y/N]")
	md := readFile(t, res.SessionPath)
	assert.Contains(t, md, "Human auth approved request_id=")
	assert.Contains(t, md, "delegation_result=typed 6 characters into the focused field")
	assert.NotContains(t, md, "123456", "the secret stays out of the session")

	// Rejected: the run ends FAILED there; the model is not asked again.
	m = newModel()
	res, err = r.run(context.Background(), m, "needs a code", agent.Options{MaxSteps: 3,
		HumanAuth: agent.TerminalAuth(strings.NewReader("n\n"), &out)})
	require.NoError(t, err)
	assert.False(t, res.Success)
	assert.Len(t, m.calls, 1)
	assert.Contains(t, res.Message, "human auth rejected (request ")
	assert.Contains(t, readFile(t, res.SessionPath), "Human auth rejected request_id=")

	// A replaced loop that ignores the verdict cannot act afterwards, and
	// the run still fails.
	m = newModel()
	custom := `local host = require("agent_host")
return { run = function()
  local snap = assert(host.capture())
  local d = assert(host.decide(snap, {}, {}, 1))
  local out = assert(host.act(d, snap))
  local again, err = host.act({ type = "launch_app", packageName = "com.android.settings" }, snap)
  assert(again == nil and tostring(err):find("refused"), tostring(err))
  return { ok = true, message = "went on regardless" }
end }`
	res, err = r.run(context.Background(), m, "needs a code", agent.Options{Source: custom,
		HumanAuth: func(context.Context, agent.HumanAuthRequest) (agent.HumanAuthDecision, error) {
			return agent.HumanAuthDecision{Status: "timeout", Message: "no answer before the timeout"}, nil
		}})
	require.NoError(t, err)
	assert.False(t, res.Success)
	assert.Contains(t, res.Message, "human auth timeout")
	assert.NotEqual(t, "com.android.settings", r.sim.Phone().CurrentPackage())
}

func TestNoModel(t *testing.T) {
	r := newRig(t)
	e := r.engine(nil)
	res, err := agent.Run(context.Background(), r.session(context.Background(), e, "no model"), agent.Options{})
	require.ErrorIs(t, err, engine.ErrNoModel)
	assert.False(t, res.Success)
	assert.Contains(t, readFile(t, res.SessionPath), "- status: FAILED")
}

func TestSystemPromptOnceWithContextFiles(t *testing.T) {
	r := newRig(t)
	require.NoError(t, os.WriteFile(filepath.Join(r.home.Workspace(), "USER.md"), []byte("The user is called Ada."), 0o644))
	n := 0
	m := &fakeModel{next: func(engine.ModelRequest) (engine.ModelReply, error) {
		n++
		if n < 3 {
			a, _ := action.New("wait", map[string]any{"durationMs": 100})
			return engine.ModelReply{Action: a, Problems: []string{fmt.Sprintf("problem %d", n)}}, nil
		}
		a, _ := action.Normalize(map[string]any{"type": "finish"}, nil)
		return engine.ModelReply{Action: a}, nil
	}}
	res, err := r.run(context.Background(), m, "prompt", agent.Options{MaxSteps: 5})
	require.NoError(t, err)
	assert.Equal(t, "Task finished.", res.Message)
	require.Len(t, m.calls, 3)
	assert.Contains(t, m.calls[0].System, "The user is called Ada.")
	assert.Equal(t, m.calls[0].System, m.calls[2].System)
	assert.Contains(t, m.calls[1].Text, "problem 1")
	assert.Contains(t, m.calls[2].Text, "problem 2")
	assert.NotContains(t, m.calls[2].Text, "problem 1")
	assert.Len(t, m.calls[0].Tools, noChatTools())
	assert.NotEmpty(t, m.calls[0].ImagePNG)
}

// TestEmptyReplyIsRetriedLikeAnUnusableOne: a reply with no text and no
// tool call is the model answering badly, not the endpoint failing.
func TestEmptyReplyIsRetriedLikeAnUnusableOne(t *testing.T) {
	r := newRig(t)
	r.srv.ReplyText("")
	r.srv.ReplyTool("finish", map[string]any{"message": "done after an empty reply"})
	res, err := r.run(context.Background(), r.client(0), "answer eventually", agent.Options{MaxSteps: 5})
	require.NoError(t, err)
	assert.True(t, res.Success, res.Message)
	reqs := r.srv.Requests()
	require.Len(t, reqs, 2)
	assert.Contains(t, requestText(reqs[1]), "Your previous reply had problems: model returned no tool call")
}

// noChatTools counts the tools offered to these runs, which have no chat
// and no executors: the device, control and human-auth actions.
func noChatTools() int {
	n := 0
	for _, tool := range action.Tools(nil) {
		switch s, _ := action.Lookup(tool.Name); s.Category {
		case action.CategoryDevice, action.CategoryControl, action.CategoryHumanAuth:
			n++
		}
	}
	return n
}

func TestChatActionsGoToTheRunsCallbacks(t *testing.T) {
	r := newRig(t)
	var results []string
	n := 0
	m := &fakeModel{next: func(req engine.ModelRequest) (engine.ModelReply, error) {
		n++
		if n == 1 {
			chat := 0
			for _, tool := range action.Tools(nil) {
				if s, _ := action.Lookup(tool.Name); s.Category == action.CategoryChat || s.Category == action.CategorySchedule {
					chat++
				}
			}
			assert.Len(t, req.Tools, noChatTools()+chat, "a run from a chat is offered request_user_input and cron_*")
		}
		steps := []map[string]any{
			{"type": "request_user_input", "question": "Your booking code?", "placeholder": "AB-1234", "timeoutSec": 30},
			{"type": "cron_add", "task": "check the weather", "expr": "0 8 * * *"},
			{"type": "finish", "message": "done"},
		}
		a, _ := action.Normalize(steps[min(n-1, 2)], nil)
		return engine.ModelReply{Action: a}, nil
	}}
	var asked string
	var timeout time.Duration
	res, err := r.run(context.Background(), m, "order", agent.Options{MaxSteps: 5,
		UserInput: func(_ context.Context, q string, d time.Duration) (string, error) {
			asked, timeout = q, d
			return "CA-7XZ019", nil
		},
		Schedule: func(_ context.Context, a action.Action) (string, error) {
			return "Scheduled " + a.Str("task") + " at " + a.Str("expr"), nil
		}})
	require.NoError(t, err)
	assert.True(t, res.Success)
	assert.Equal(t, "Your booking code?\n(for example: AB-1234)", asked)
	assert.Equal(t, 30*time.Second, timeout)
	tr, err := agent.ReadTrace(agent.TracePath(res.SessionPath))
	require.NoError(t, err)
	for _, s := range tr {
		results = append(results, s.Result)
	}
	require.Len(t, results, 3)
	// The model reads the answer; the record keeps only its length.
	assert.True(t, strings.HasPrefix(results[0], "User replied (9 characters; the answer is not recorded)"), results[0])
	require.GreaterOrEqual(t, len(m.calls), 2)
	assert.Contains(t, m.calls[1].Text, "User replied: CA-7XZ019")
	assertNoSecret(t, r.home.Dir(), "CA-7XZ019")
	for _, ev := range r.events {
		assert.NotContains(t, fmt.Sprint(ev.Fields), "CA-7XZ019", ev.Kind)
	}
	assert.True(t, strings.HasPrefix(results[1], "Scheduled check the weather at 0 8 * * *\n"), results[1])
}

// assertNoSecret fails when any file under dir holds secret.
func assertNoSecret(t *testing.T, dir, secret string) {
	t.Helper()
	n := 0
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		assert.NotContains(t, string(b), secret, path)
		return nil
	}))
	assert.NotZero(t, n, "the run wrote files")
}

func TestUserInputTakesInstructionAndRecordsAnswersNotSecret(t *testing.T) {
	r := newRig(t)
	n := 0
	m := &fakeModel{next: func(req engine.ModelRequest) (engine.ModelReply, error) {
		n++
		steps := []map[string]any{
			{"type": "request_user_input", "instruction": "Small or large?", "secret": false},
			{"type": "finish", "message": "done"},
		}
		a, _ := action.Normalize(steps[min(n-1, 1)], nil)
		return engine.ModelReply{Action: a}, nil
	}}
	var asked string
	res, err := r.run(context.Background(), m, "order", agent.Options{MaxSteps: 3,
		UserInput: func(_ context.Context, q string, d time.Duration) (string, error) {
			asked = q
			return "large", nil
		}})
	require.NoError(t, err)
	assert.Equal(t, "Small or large?", asked, "instruction is the question when question is absent")
	tr, err := agent.ReadTrace(agent.TracePath(res.SessionPath))
	require.NoError(t, err)
	require.NotEmpty(t, tr)
	assert.True(t, strings.HasPrefix(tr[0].Result, "User replied: large"), tr[0].Result)
}
