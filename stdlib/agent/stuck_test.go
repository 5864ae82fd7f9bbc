package agent_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/stdlib/agent"
)

// deadControlMark is the mark of Settings' toolbar title: a label the
// model may take for a button, whose tap changes nothing.
func (r *rig) deadControlMark() string {
	r.t.Helper()
	ctx := context.Background()
	tr, err := r.openDevice(ctx)
	require.NoError(r.t, err)
	p := device.NewPhone(tr, device.Options{})
	_, err = p.LaunchApp(ctx, "com.android.settings")
	require.NoError(r.t, err)
	snap, err := p.Capture(ctx, device.CaptureOptions{Scaled: true, NoCache: true})
	require.NoError(r.t, err)
	id := ""
	for _, e := range snap.UIElements {
		if e.Text == "Settings" && !e.Clickable {
			id = e.ID
		}
	}
	require.NotEmpty(r.t, id, "Settings' title among the elements")
	_, err = p.Shell(ctx, "input keyevent KEYCODE_HOME")
	require.NoError(r.t, err)
	return id
}

// stuckModel opens Settings, then taps the dead title for ever, or
// finishes once the person's answer is in its history.
func stuckModel(r *rig, mark string) {
	r.srv.ReplyTool("launch_app", map[string]any{"packageName": "com.android.settings"})
	r.srv.Respond(func(req llmtest.Request) llmtest.Reply {
		if strings.Contains(string(req.Raw), "The person says: turn the Wi-Fi switch off") {
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "finish", Arguments: `{"message":"did what the person said"}`}}}
		}
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "tap_element", Arguments: `{"elementId":"` + mark + `"}`}}}
	})
}

// TestLoopBreakerStopsADeadControlAndNobodyToAsk: a model tapping a label
// that does nothing is stopped after stuckAfter=3 dead taps: the app is
// relaunched once, the next dead tap makes the loop ask the person, and
// with stdin closed (not a terminal) and no chat, the run fails "stuck"
// long before max-steps, without writing a prompt anywhere.
func TestLoopBreakerStopsADeadControlAndNobodyToAsk(t *testing.T) {
	r := newRig(t)
	stuckModel(r, r.deadControlMark())
	stdin, w, err := os.Pipe()
	require.NoError(t, err)
	w.Close() // stdin closed
	defer stdin.Close()
	var prompts strings.Builder
	res, err := r.run(context.Background(), r.client(0), "turn off Wi-Fi", agent.Options{MaxSteps: 30, StuckAfter: 3,
		Stdin: stdin, Stdout: &prompts})
	require.NoError(t, err, "stuck is a verdict")
	assert.False(t, res.Success)
	assert.True(t, strings.HasPrefix(res.Message, "stuck: after relaunching the app, tap_element("), res.Message)
	assert.Contains(t, res.Message, "nobody to ask: stdin is not a terminal")
	// 1 launch + 3 dead taps, the relaunch, 1 more dead tap: the model was
	// asked N+2 = 5 times, not 30.
	assert.Len(t, r.srv.Requests(), 5)
	assert.Empty(t, prompts.String(), "no terminal prompt without a terminal")

	tr, err := agent.ReadTrace(agent.TracePath(res.SessionPath))
	require.NoError(t, err)
	require.Len(t, tr, 7, "5 model steps, the relaunch and the question")
	assert.Equal(t, "launch_app", tr[4].Action.Type)
	assert.True(t, strings.HasPrefix(tr[4].Result, "Loop breaker: relaunched com.android.settings (force-stopped, launched again)."), tr[4].Result)
	assert.Contains(t, tr[4].Thought, "the last 3 actions changed nothing on screen")
	assert.Equal(t, "request_user_input", tr[6].Action.Type)
	md := readFile(t, res.SessionPath)
	assert.Contains(t, md, "### Step 5\n")
	assert.Contains(t, md, "Loop breaker: relaunched com.android.settings")
	assert.Contains(t, md, "Loop breaker asked the person: no answer (nobody to ask")
	assert.Contains(t, md, "- status: FAILED")
	assert.Contains(t, md, "stuck: after relaunching the app")
}

// TestLoopBreakerAsksThePersonWhoAnswers: the person (the chat the task
// came from) is asked after the relaunch did not help; the model reads
// their answer and finishes; the session keeps only the answer's length.
func TestLoopBreakerAsksThePersonWhoAnswers(t *testing.T) {
	r := newRig(t)
	stuckModel(r, r.deadControlMark())
	var asked []string
	res, err := r.run(context.Background(), r.client(0), "turn off Wi-Fi", agent.Options{MaxSteps: 30, StuckAfter: 3,
		UserInput: func(_ context.Context, q string, _ time.Duration) (string, error) {
			asked = append(asked, q)
			return "turn the Wi-Fi switch off", nil
		}})
	require.NoError(t, err)
	assert.True(t, res.Success, res.Message)
	assert.Equal(t, "did what the person said", res.Message)
	require.Len(t, asked, 1)
	assert.Contains(t, asked[0], `The agent is stuck on the task "turn off Wi-Fi": after relaunching the app, tap_element(`)
	assert.Len(t, r.srv.Requests(), 6, "launch, 3 dead taps, 1 after the relaunch, finish")
	md := readFile(t, res.SessionPath)
	assert.Contains(t, md, "Loop breaker asked the person: they replied (25 characters; the answer is not recorded)")
	assertNoSecret(t, r.home.Dir(), "turn the Wi-Fi switch off")
}

// TestLoopBreakerOffBurnsSteps is today's behaviour with stuckAfter 0:
// the dead control takes every step.
func TestLoopBreakerOffBurnsSteps(t *testing.T) {
	r := newRig(t)
	stuckModel(r, r.deadControlMark())
	res, err := r.run(context.Background(), r.client(0), "turn off Wi-Fi", agent.Options{MaxSteps: 8})
	require.NoError(t, err)
	assert.Equal(t, "max steps (8) reached", res.Message)
	assert.Len(t, r.srv.Requests(), 8)
}

// TestTokenBudgetEndsTheRun: with agent.maxTokens 1000 and calls of 300
// tokens, the fourth call would exceed it: the run ends FAILED after 3
// calls, the tokens used in its session.
func TestTokenBudgetEndsTheRun(t *testing.T) {
	r := newRig(t)
	for range 10 {
		r.srv.Push(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "wait", Arguments: `{"durationMs":100}`}}, Usage: &llmtest.Usage{Input: 250, Output: 50}})
	}
	res, err := r.run(context.Background(), r.client(0), "wait a lot", agent.Options{MaxSteps: 10, MaxTokens: 1000})
	require.NoError(t, err)
	assert.False(t, res.Success)
	want := "token budget: the next model call would exceed the limit of 1000 tokens (900 used in 3 call(s), the largest took 300)"
	assert.Equal(t, want, res.Message)
	assert.Len(t, r.srv.Requests(), 3)
	assert.Equal(t, int64(900), res.Usage.TotalTokens)
	md := readFile(t, res.SessionPath)
	assert.Contains(t, md, "- status: FAILED")
	assert.Contains(t, md, want)

	// One call larger than the whole budget: not acted on.
	r = newRig(t)
	r.srv.Push(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "launch_app", Arguments: `{"packageName":"com.android.settings"}`}}, Usage: &llmtest.Usage{Input: 5000, Output: 10}})
	res, err = r.run(context.Background(), r.client(0), "open settings", agent.Options{MaxSteps: 10, MaxTokens: 1000})
	require.NoError(t, err)
	assert.Equal(t, "token budget exceeded: 5010 tokens used in 1 call(s), more than the limit of 1000; the last reply was not acted on", res.Message)
	assert.Equal(t, int64(5010), res.Usage.TotalTokens)
	assert.NotEqual(t, "com.android.settings", r.sim.Phone().CurrentPackage(), "the reply over budget was not acted on")
}
