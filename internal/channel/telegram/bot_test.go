package telegram_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/prompt"
	"github.com/openpocket/openpocket/internal/channel"
	"github.com/openpocket/openpocket/internal/channel/telegram"
	"github.com/openpocket/openpocket/internal/channel/telegram/telegramtest"
	"github.com/openpocket/openpocket/stdlib/agent"
)

const token = "123456:TEST-token-value"

var (
	owner    = telegramtest.User{ID: 42, FirstName: "Ada"}
	stranger = telegramtest.User{ID: 666, FirstName: "Eve"}
)

// fakeRunner plays a scripted task: it emits steps, optionally asks for
// human auth, and waits for a stop when told to.
type fakeRunner struct {
	steps    []map[string]any
	auth     *agent.HumanAuthRequest
	block    bool   // wait for cancellation after the steps
	question string // ask this with request_user_input
	mu       sync.Mutex
	tasks    []string
	replyTo  string
	decision agent.HumanAuthDecision
	answer   string
	schedule []action.Action
	// converse scripts the assistant's replies {text, tool, args}.
	converse [][3]string
	asked    []engine.ModelRequest
	// notOnboarded: the workspace's onboarding is not complete yet.
	notOnboarded bool
	name         string
}

func (f *fakeRunner) Converse(_ context.Context, req engine.ModelRequest) (string, string, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, req)
	if len(f.converse) == 0 {
		return "", "", "", errors.New("no scripted reply")
	}
	r := f.converse[0]
	f.converse = f.converse[1:]
	return r[0], r[1], r[2], nil
}

func (f *fakeRunner) RunTask(ctx context.Context, task, replyTo string, onEvent func(engine.Event), auth agent.HumanAuthFunc, ask agent.UserInputFunc) (engine.RunResult, error) {
	f.mu.Lock()
	f.tasks = append(f.tasks, task)
	f.replyTo = replyTo
	f.mu.Unlock()
	if f.question != "" {
		a, err := ask(ctx, f.question, 10*time.Second)
		if err != nil {
			return engine.RunResult{Message: err.Error()}, err
		}
		f.mu.Lock()
		f.answer = a
		f.mu.Unlock()
		return engine.RunResult{Success: true, Steps: 1, Message: "ordered " + a}, nil
	}
	for _, s := range f.steps {
		onEvent(engine.Event{Kind: "agent_step", Fields: s})
	}
	if f.auth != nil {
		d, err := auth(ctx, *f.auth)
		if err != nil {
			return engine.RunResult{Message: err.Error()}, err
		}
		f.mu.Lock()
		f.decision = d
		f.mu.Unlock()
		return engine.RunResult{Success: d.Status == "approved", Steps: len(f.steps) + 1, Message: "auth " + d.Status}, nil
	}
	if f.block {
		<-ctx.Done()
		msg := "cancelled"
		if channel.IsStopped(context.Cause(ctx)) {
			msg = context.Cause(ctx).Error()
		}
		return engine.RunResult{Steps: len(f.steps), Message: msg}, context.Cause(ctx)
	}
	return engine.RunResult{Success: true, Steps: len(f.steps), Message: "Wi-Fi is off"}, nil
}

func (f *fakeRunner) Schedule(_ context.Context, a action.Action, replyTo string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.schedule = append(f.schedule, a)
	f.replyTo = replyTo
	return "Scheduled job j1 → " + a.Str("task"), nil
}

func (f *fakeRunner) Skills(context.Context) ([]prompt.Skill, error) {
	return []prompt.Skill{{Name: "toggle-wifi", Description: "Turn Wi-Fi on or off."}}, nil
}

func (f *fakeRunner) ReplaySkill(_ context.Context, name string, params []string, onEvent func(engine.Event)) (engine.RunResult, error) {
	f.mu.Lock()
	f.tasks = append(f.tasks, "skill "+name+" "+strings.Join(params, " "))
	f.mu.Unlock()
	for i, label := range []string{"launch com.android.settings", "tap id=wifi_switch"} {
		onEvent(engine.Event{Kind: channel.ReplayStep, Fields: map[string]any{"step": i + 1, "action": label}})
	}
	return engine.RunResult{Success: true, Steps: 2, Message: "skill replayed"}, nil
}

func (f *fakeRunner) Onboarded(context.Context) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.notOnboarded, nil
}

func (f *fakeRunner) CompleteOnboarding(_ context.Context, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.notOnboarded, f.name = false, name
	return nil
}

func (f *fakeRunner) Target() string { return "emulator-5554" }

func (f *fakeRunner) Screenshot(context.Context) ([]byte, error) {
	return []byte("\x89PNG fake"), nil
}

// startBot runs a bot against srv until the test ends.
func startBot(t *testing.T, srv *telegramtest.Server, r channel.Runner, mod func(*telegram.Options)) (*telegram.Bot, *bytes.Buffer) {
	t.Helper()
	var logs syncBuffer
	o := telegram.Options{Token: token, APIBaseURL: srv.URL(), AllowedUserIDs: []int64{owner.ID}, Runner: r,
		Logger: slog.New(slog.NewTextHandler(&logs, nil)), ProgressEvery: 2, PollTimeout: 2 * time.Second,
		Retry: telegram.Retry{Attempts: 5, Base: 10 * time.Millisecond, Max: 50 * time.Millisecond}}
	if mod != nil {
		mod(&o)
	}
	b, err := telegram.New(o)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = b.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("bot did not stop")
		}
	})
	return b, &logs.b
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func methods(calls []telegramtest.Call) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.Method
	}
	return out
}

func TestRunNarratesAndEndsWithScreenshot(t *testing.T) {
	srv := telegramtest.NewServer(t, token)
	r := &fakeRunner{steps: []map[string]any{
		{"step": 1.0, "max_steps": 100.0, "action": "launch_app(com.android.settings)", "app": "com.android.launcher3"},
		{"step": 2.0, "max_steps": 100.0, "action": "tap_element(3)", "app": "com.android.settings"},
		{"step": 3.0, "max_steps": 100.0, "action": "tap_element(5)", "app": "com.android.settings"},
		{"step": 4.0, "max_steps": 100.0, "action": "tap_element(6)", "app": "com.android.settings"},
	}}
	startBot(t, srv, r, nil)
	srv.SendText(owner, "/run turn wifi off")
	calls, ok := srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool { return photoOf(c) != nil })
	require.True(t, ok, "calls: %v", methods(calls))
	require.Equal(t, "sendMessage", calls[0].Method)
	assert.Equal(t, "42", calls[0].Params["chat_id"])
	assert.Contains(t, calls[0].Params["text"], "Starting: turn wifi off")
	status := calls[0].MessageID
	var edits []string
	for _, c := range calls[1:] {
		if c.Method == "editMessageText" {
			assert.Equal(t, status, c.MessageID, "every edit is to the one status message")
			edits = append(edits, c.Params["text"])
		}
	}
	// Step 2 (app changed and 2 steps), step 4 (2 steps), the verdict —
	// not one message per step.
	require.Len(t, edits, 3, "edits: %q", edits)
	assert.Contains(t, edits[0], "step 2/100 · com.android.settings")
	assert.Contains(t, edits[1], "step 4/100")
	assert.Contains(t, edits[2], "✓ Done after 4 steps")
	assert.Contains(t, edits[2], "Wi-Fi is off")
	photo := *photoOf(calls)
	assert.Equal(t, []byte("\x89PNG fake"), photo.Photo)
	assert.Equal(t, "✓ Wi-Fi is off", photo.Params["caption"])
	assert.Equal(t, []string{"turn wifi off"}, r.tasks)
	assert.Equal(t, "telegram:42", r.replyTo, "jobs the model schedules deliver to this chat")
	assert.Len(t, srv.Calls("deleteWebhook"), 1, "polling starts by removing a leftover webhook")
	assert.Len(t, srv.Calls("sendMessage"), 1, "one status message, edited")
}

func TestStrangerGetsNothing(t *testing.T) {
	srv := telegramtest.NewServer(t, token)
	r := &fakeRunner{}
	_, logs := startBot(t, srv, r, nil)
	srv.SendText(stranger, "/run factory reset")
	srv.SendText(stranger, "hello?")
	srv.SendText(owner, "/status") // processed after the stranger's, in order
	_, ok := srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool { return len(c) >= 1 })
	require.True(t, ok)
	time.Sleep(100 * time.Millisecond)
	calls := srv.Calls("")
	require.Len(t, calls, 1, "only the owner's /status is answered: %v", methods(calls))
	assert.Equal(t, "42", calls[0].Params["chat_id"])
	assert.Equal(t, "Idle: no task running. Phone: emulator-5554.", calls[0].Params["text"])
	assert.Empty(t, r.tasks)
	assert.Contains(t, logs.String(), "ignored a message from someone not allowed")
	assert.Contains(t, logs.String(), "user=666")
	assert.NotContains(t, logs.String(), "factory reset", "a stranger's text is not logged")
	assert.NotContains(t, logs.String(), "TEST-token-value")
}

func TestStopCancelsWithStoppedByUser(t *testing.T) {
	srv := telegramtest.NewServer(t, token)
	r := &fakeRunner{block: true, steps: []map[string]any{{"step": 1.0, "max_steps": 10.0, "action": "wait(100ms)"}}}
	startBot(t, srv, r, nil)
	srv.SendText(owner, "/run wait forever")
	_, ok := srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool { return len(c) >= 1 })
	require.True(t, ok)
	srv.SendText(owner, "/status")
	_, ok = srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool { return hasText(c, "Busy: \"wait forever\"") })
	require.True(t, ok, "status while busy")
	srv.SendText(owner, "/stop")
	calls, ok := srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool {
		return len(srv.Calls("sendPhoto")) == 1 && hasText(c, "Stopping")
	})
	require.True(t, ok, "calls: %v", methods(calls))
	assert.True(t, hasText(calls, "✗ Failed after 1 steps: wait forever\nstopped by user"))
	assert.Equal(t, "✗ stopped by user", srv.Calls("sendPhoto")[0].Params["caption"])
}

func hasText(calls []telegramtest.Call, s string) bool {
	for _, c := range calls {
		if strings.Contains(c.Params["text"], s) {
			return true
		}
	}
	return false
}

func TestRetriesOn429And5xx(t *testing.T) {
	srv := telegramtest.NewServer(t, token)
	b, logs := startBot(t, srv, &fakeRunner{}, func(o *telegram.Options) {
		o.Retry = telegram.Retry{Attempts: 5, Base: 10 * time.Millisecond, Max: 1500 * time.Millisecond}
	})
	srv.Fail("sendMessage", 502, 1)
	srv.Fail("sendMessage", 429, 1)
	srv.Fail("sendMessage", 503, 1)
	start := time.Now()
	require.NoError(t, b.Deliver(context.Background(), "42", "Weather: sunny"))
	calls := srv.Calls("sendMessage")
	require.Len(t, calls, 4, "three failures, then delivered")
	assert.Equal(t, "Weather: sunny", calls[3].Params["text"])
	assert.GreaterOrEqual(t, time.Since(start), time.Second, "429's retry_after (1 s) is honoured")
	assert.Contains(t, logs.String(), "HTTP 429")
	assert.NotContains(t, logs.String(), "TEST-token-value")

	srv.Fail("sendMessage", 500, 5)
	err := b.Deliver(context.Background(), "42", "lost?")
	require.Error(t, err, "a server that keeps failing beyond the budget is reported")
	assert.NotContains(t, err.Error(), "TEST-token-value")
}

func TestHumanAuthCodeReplyAndButtons(t *testing.T) {
	srv := telegramtest.NewServer(t, token)
	r := &fakeRunner{auth: &agent.HumanAuthRequest{ID: "req1", Capability: "2fa", Instruction: "Enter the login code", Timeout: 10 * time.Second}}
	startBot(t, srv, r, func(o *telegram.Options) {
		o.RelayURL = func(id string) string { return "https://relay.example/a/" + id }
	})
	srv.SendText(owner, "/run log in")
	calls, ok := srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool { return hasText(c, "Authorization needed") })
	require.True(t, ok, "calls: %v", methods(calls))
	var ask telegramtest.Call
	for _, c := range calls {
		if strings.Contains(c.Params["text"], "Authorization needed") {
			ask = c
		}
	}
	assert.Contains(t, ask.Params["reply_markup"], `"callback_data":"auth:approve:req1"`)
	assert.Contains(t, ask.Params["reply_markup"], `"callback_data":"auth:reject:req1"`)
	assert.Contains(t, ask.Params["reply_markup"], "https://relay.example/a/req1")
	assert.True(t, hasText(calls, "⏸ log in\nwaiting for you: human authorization (2fa)"), "the status message says it is paused")

	srv.SendText(owner, "/auth")
	_, ok = srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool {
		n := 0
		for _, x := range c {
			if strings.Contains(x.Params["text"], "request req1") {
				n++
			}
		}
		return n == 2
	})
	require.True(t, ok, "/auth lists the pending request again")

	srv.SendText(owner, "493817")
	calls, ok = srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool { return photoOf(c) != nil })
	require.True(t, ok, "calls: %v", methods(calls))
	assert.Equal(t, agent.HumanAuthDecision{Status: "approved", Text: "493817", Message: "approved in Telegram with a code"}, r.decision)

	// A late button press is acknowledged as stale.
	srv.PressButton(owner, owner.ID, ask.MessageID, "auth:approve:req1")
	calls, ok = srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool { return len(c) > 0 && c[len(c)-1].Method == "answerCallbackQuery" })
	require.True(t, ok)
	assert.Equal(t, "This request is no longer pending.", calls[len(calls)-1].Params["text"])
}

func TestHumanAuthRejectButton(t *testing.T) {
	srv := telegramtest.NewServer(t, token)
	r := &fakeRunner{auth: &agent.HumanAuthRequest{ID: "req2", Capability: "payment", Instruction: "Pay 3 EUR", Timeout: 10 * time.Second}}
	startBot(t, srv, r, nil)
	srv.SendText(owner, "/run pay")
	calls, ok := srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool { return hasText(c, "Authorization needed") })
	require.True(t, ok)
	ask := calls[len(calls)-1]
	srv.PressButton(stranger, stranger.ID, ask.MessageID, "auth:approve:req2") // ignored
	srv.PressButton(owner, owner.ID, ask.MessageID, "auth:reject:req2")
	calls, ok = srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool { return photoOf(c) != nil })
	require.True(t, ok, "calls: %v", methods(calls))
	assert.Equal(t, "rejected", r.decision.Status)
	acks := srv.Calls("answerCallbackQuery")
	require.Len(t, acks, 1, "the stranger's press is not acknowledged")
	assert.Equal(t, "Rejected.", acks[0].Params["text"])
}

func TestRequestUserInputAnsweredInChat(t *testing.T) {
	srv := telegramtest.NewServer(t, token)
	r := &fakeRunner{question: "Which size, small or large?"}
	startBot(t, srv, r, nil)
	srv.SendText(owner, "/run order a coffee")
	calls, ok := srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool { return hasText(c, "❓ Which size") })
	require.True(t, ok, "calls: %v", methods(calls))
	assert.True(t, hasText(calls, "waiting for you: an answer to a question"))
	srv.SendText(owner, "large please")
	calls, ok = srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool { return photoOf(c) != nil })
	require.True(t, ok, "calls: %v", methods(calls))
	assert.Equal(t, "large please", r.answer)
	assert.Equal(t, "✓ ordered large please", photoOf(calls).Params["caption"])
}

func TestPlainMessagesGoToTheAssistant(t *testing.T) {
	srv := telegramtest.NewServer(t, token)
	state := t.TempDir()
	r := &fakeRunner{converse: [][3]string{
		{"Hello Ada! What can I do?", "", ""},
		{"", "cron_add", `{"task": "check the weather", "expr": "0 8 * * *", "summary": "every day at 8"}`},
		{"", "start_task", `{"task": "turn Wi-Fi off"}`},
	}}
	startBot(t, srv, r, func(o *telegram.Options) { o.StateDir, o.HistoryTurns = state, 4 })

	srv.SendText(owner, "hi")
	_, ok := srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool { return hasText(c, "💬 Hello Ada! What can I do?") })
	require.True(t, ok, "a text answer")
	srv.SendText(owner, "every day at 8 check the weather")
	_, ok = srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool { return hasText(c, "🗓 Scheduled job j1 → check the weather") })
	require.True(t, ok, "cron_add goes to the runner and is confirmed in words")
	srv.SendText(owner, "switch the wifi off")
	calls, ok := srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool { return photoOf(c) != nil })
	require.True(t, ok, "calls: %v", methods(calls))
	assert.True(t, hasText(calls, "🤖 That is a task for the phone, starting it: turn Wi-Fi off"), "says which it decided")
	assert.Equal(t, []string{"turn Wi-Fi off"}, r.tasks)

	require.Len(t, r.schedule, 1)
	assert.Equal(t, "cron_add", r.schedule[0].Type)
	assert.Equal(t, "0 8 * * *", r.schedule[0].Str("expr"))
	assert.Equal(t, "telegram:42", r.replyTo)
	require.Len(t, r.asked, 3)
	assert.Contains(t, r.asked[2].Text, "user: hi\nassistant: 💬 Hello Ada! What can I do?\n", "the conversation so far goes to the model")
	assert.True(t, strings.HasSuffix(r.asked[2].Text, "user: switch the wifi off\n"))
	var names []string
	for _, tool := range r.asked[0].Tools {
		names = append(names, tool.Name)
	}
	assert.Equal(t, []string{"start_task", "cron_add", "cron_update", "cron_list", "cron_remove"}, names)

	data, err := os.ReadFile(filepath.Join(state, "telegram", "chat-42.json"))
	require.NoError(t, err)
	var h struct {
		Turns []struct{ Role, Text string }
	}
	require.NoError(t, json.Unmarshal(data, &h))
	require.Len(t, h.Turns, 4, "bounded to HistoryTurns")
	assert.Equal(t, "every day at 8 check the weather", h.Turns[0].Text)
	assert.Equal(t, "switch the wifi off", h.Turns[2].Text)
}

func TestSkillsSkillAndCronCommands(t *testing.T) {
	srv := telegramtest.NewServer(t, token)
	r := &fakeRunner{}
	startBot(t, srv, r, nil)
	srv.SendText(owner, "/skills")
	_, ok := srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool { return hasText(c, "• toggle-wifi — Turn Wi-Fi on or off.") })
	require.True(t, ok)
	srv.SendText(owner, "/skill toggle-wifi state=off")
	calls, ok := srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool { return photoOf(c) != nil })
	require.True(t, ok, "calls: %v", methods(calls))
	assert.Equal(t, []string{"skill toggle-wifi state=off"}, r.tasks)
	assert.True(t, hasText(calls, "▶ Starting: skill toggle-wifi"))
	assert.True(t, hasText(calls, "▶ skill toggle-wifi\nstep 2\nlast: tap id=wifi_switch"), "replay steps are narrated like agent steps, without a budget")
	srv.SendText(owner, "/skill toggle-wifi off")
	_, ok = srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool { return hasText(c, `Skill parameter "off": expected key=value`) })
	require.True(t, ok)
	srv.SendText(owner, "/cron")
	srv.SendText(owner, "/cron remove j7")
	_, ok = srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return len(r.schedule) == 2 && hasText(c, "Scheduled job j1")
	})
	require.True(t, ok)
	r.mu.Lock()
	defer r.mu.Unlock()
	got := map[string]string{}
	for _, a := range r.schedule {
		got[a.Type] = a.Str("id")
	}
	assert.Equal(t, map[string]string{"cron_list": "", "cron_remove": "j7"}, got)
}

func TestOnboardingOnceTasksRefusedUntilDone(t *testing.T) {
	srv := telegramtest.NewServer(t, token)
	r := &fakeRunner{notOnboarded: true}
	startBot(t, srv, r, nil)
	srv.SendText(owner, "/run turn wifi off")
	_, ok := srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool { return hasText(c, "👋 Hi, I'm OpenPocket") })
	require.True(t, ok)
	srv.SendText(owner, "/run turn wifi off")
	_, ok = srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool { return hasText(c, "Tasks wait until setup is done.") })
	require.True(t, ok, "a task is refused with a short explanation")
	srv.SendText(owner, "/status")
	_, ok = srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool { return hasText(c, "Idle") })
	require.True(t, ok, "/status works during setup")
	srv.SendText(owner, "Ada")
	_, ok = srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool { return hasText(c, "Nice to meet you, Ada!") })
	require.True(t, ok)
	r.mu.Lock()
	assert.Equal(t, "Ada", r.name)
	assert.Empty(t, r.tasks, "no task ran during setup")
	r.mu.Unlock()
	srv.SendText(owner, "/run turn wifi off")
	calls, ok := srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool { return photoOf(c) != nil })
	require.True(t, ok, "calls: %v", methods(calls))
	n := 0
	for _, c := range calls {
		if strings.Contains(c.Params["text"], "👋") {
			n++
		}
	}
	assert.Equal(t, 1, n, "greeted once")
}

func TestWebhookReceivesUpdatesWithTheSecret(t *testing.T) {
	srv := telegramtest.NewServer(t, token)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	l.Close()
	startBot(t, srv, &fakeRunner{}, func(o *telegram.Options) {
		o.Webhook = &telegram.Webhook{URL: "https://bot.example.com/tg/hook", Listen: addr}
	})
	calls, ok := srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool { return len(c) > 0 && c[0].Method == "setWebhook" })
	require.True(t, ok, "calls: %v", methods(calls))
	secret := calls[0].Params["secret_token"]
	assert.Len(t, secret, 48)
	assert.Equal(t, "https://bot.example.com/tg/hook", calls[0].Params["url"])
	assert.Empty(t, srv.Calls("getUpdates"), "no long polling with a webhook")

	post := func(secret string, body []byte) {
		req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/tg/hook", bytes.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("X-Telegram-Bot-Api-Secret-Token", secret)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
	}
	post("wrong", srv.TextUpdate(owner, 1, "/status")) // a forged POST is dropped
	post(secret, srv.TextUpdate(owner, 2, "/help"))
	calls, ok = srv.WaitFor(5*time.Second, func(c []telegramtest.Call) bool { return hasText(c, "Commands:") })
	require.True(t, ok, "calls: %v", methods(calls))
	time.Sleep(100 * time.Millisecond)
	assert.False(t, hasText(srv.Calls(""), "Idle"), "the forged /status got nothing")
}

// photoOf is the screenshot sent at a task's end (nil before); replies
// sent meanwhile may come after it.
func photoOf(calls []telegramtest.Call) *telegramtest.Call {
	for i := range calls {
		if calls[i].Method == "sendPhoto" {
			return &calls[i]
		}
	}
	return nil
}
