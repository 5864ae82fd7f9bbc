package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/channel/telegram/telegramtest"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/sim/android"
	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/internal/workspace"
)

const tgToken = "987654:E2E-secret-token"

var (
	tgOwner    = telegramtest.User{ID: 4242, FirstName: "Ada"}
	tgStranger = telegramtest.User{ID: 6666, FirstName: "Eve"}
)

// tgRig is a gateway process (the real binary) with Telegram enabled
// against a fake Bot API server, the scripted model and a virtual phone.
type tgRig struct {
	t     *testing.T
	tg    *telegramtest.Server
	model *llmtest.Server
	phone *android.Phone
	sim   string
	home  string
}

func newTGRig(t *testing.T, edit func(cfg *workspace.Config, home string)) *tgRig {
	t.Helper()
	s := simtest.Start(t)
	r := &tgRig{t: t, tg: telegramtest.NewServer(t, tgToken), model: llmtest.NewServer(t), phone: s.Phone(), sim: s.Serial()}
	r.home = homeWithModel(t, r.model)
	h, err := workspace.Open(r.home)
	require.NoError(t, err)
	require.NoError(t, h.MarkOnboardingCompleted(time.Now())) // TestTelegramOnboarding covers the other case
	cfg := h.Config()
	cfg.Agent.ReturnHomeOnTaskEnd = false
	cfg.Agent.AutoArtifactsEnabled = false
	cfg.Channels.Telegram = workspace.TelegramConfig{Enabled: true, BotTokenEnv: "OP_E2E_TG_TOKEN",
		AllowedUserIDs: []int64{tgOwner.ID}, APIBaseURL: r.tg.URL(), ProgressEverySteps: 2}
	if edit != nil {
		edit(&cfg, r.home)
	}
	require.NoError(t, h.SaveConfig(cfg))
	return r
}

// gateway starts `openpocket gateway` and stops it (SIGTERM) with the
// test; the returned func stops it earlier.
func (r *tgRig) gateway() (*lockedBuilder, func()) {
	r.t.Helper()
	r.t.Setenv("OP_E2E_TG_TOKEN", tgToken)
	cmd, stdout, stderr := start(r.t, r.home, "-s", r.sim, "gateway", "--stop-timeout", "20s")
	var once sync.Once
	stop := func() {
		once.Do(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			assert.Equal(r.t, 0, exitCode(r.t, cmd, stdout), stderr.String())
			assert.NotContains(r.t, stderr.String(), tgToken, "the bot token is never logged")
		})
	}
	r.t.Cleanup(stop)
	waitFor(r.t, "the Telegram channel to start", func() bool { return strings.Contains(stderr.String(), "channel telegram started") })
	return stderr, stop
}

// wait waits for the calls to satisfy cond.
func (r *tgRig) wait(what string, cond func([]telegramtest.Call) bool) []telegramtest.Call {
	r.t.Helper()
	calls, ok := r.tg.WaitFor(60*time.Second, cond)
	require.True(r.t, ok, "timed out waiting for %s; calls: %+v", what, calls)
	return calls
}

func anyText(sub string) func([]telegramtest.Call) bool {
	return func(c []telegramtest.Call) bool {
		for _, x := range c {
			if strings.Contains(x.Params["text"], sub) || strings.Contains(x.Params["caption"], sub) {
				return true
			}
		}
		return false
	}
}

// wifiMark is the element mark of Settings' Wi-Fi switch, as the model
// will see it once Settings is open.
func (r *tgRig) wifiMark() string {
	r.t.Helper()
	ctx := context.Background()
	tr, err := adb.NewClient(adb.DefaultServer).Open(ctx, adb.Target{Serial: r.sim})
	require.NoError(r.t, err)
	p := device.NewPhone(tr, device.Options{})
	_, err = p.LaunchApp(ctx, "com.android.settings")
	require.NoError(r.t, err)
	snap, err := p.Capture(ctx, device.CaptureOptions{Scaled: true, NoCache: true})
	require.NoError(r.t, err)
	_, err = p.Shell(ctx, "input keyevent KEYCODE_HOME")
	require.NoError(r.t, err)
	for _, e := range snap.UIElements {
		if strings.HasSuffix(e.ResourceID, "wifi_switch") {
			return e.ID
		}
	}
	r.t.Fatal("no Wi-Fi switch among the elements")
	return ""
}

// session returns the text of the only session file.
func (r *tgRig) session() string {
	r.t.Helper()
	files, err := filepath.Glob(filepath.Join(r.home, "workspace", "sessions", "session-*.md"))
	require.NoError(r.t, err)
	require.Len(r.t, files, 1)
	data, err := os.ReadFile(files[0])
	require.NoError(r.t, err)
	return string(data)
}

func TestTelegramRunTogglesWifi(t *testing.T) {
	r := newTGRig(t, nil)
	mark := r.wifiMark()
	require.True(t, r.phone.WifiOn())
	r.model.ReplyTool("launch_app", map[string]any{"packageName": "com.android.settings", "thought": "open settings"})
	r.model.ReplyTool("tap_element", map[string]any{"elementId": mark, "thought": "the Wi-Fi switch"})
	r.model.ReplyTool("finish", map[string]any{"message": "Wi-Fi is off"})
	_, _ = r.gateway()

	// "turn wifi off" matches no skill, so the model drives it
	// ("toggle wifi" names the bundled skill: replayed first, below).
	r.tg.SendText(tgStranger, "/run turn wifi off")
	r.tg.SendText(tgOwner, "/run turn wifi off")
	calls := r.wait("the final screenshot", func(c []telegramtest.Call) bool { return photoOf(c) != nil })

	assert.False(t, r.phone.WifiOn(), "the task really toggled Wi-Fi")
	for _, c := range calls {
		assert.Equal(t, "4242", c.Params["chat_id"], "the stranger gets nothing: %s %q", c.Method, c.Params["text"])
	}
	require.Equal(t, "sendMessage", calls[0].Method)
	assert.Equal(t, "▶ Starting: turn wifi off", calls[0].Params["text"])
	var edits []string
	for _, c := range calls {
		if c.Method == "editMessageText" {
			assert.Equal(t, calls[0].MessageID, c.MessageID)
			edits = append(edits, c.Params["text"])
		}
	}
	require.GreaterOrEqual(t, len(edits), 2, "a progress edit and the verdict: %q", edits)
	assert.Regexp(t, `step 2/100 · com\.android\.settings\nlast: tap_element`, edits[0])
	assert.Equal(t, "✓ Done after 3 steps: turn wifi off\nWi-Fi is off", edits[len(edits)-1])
	photo := *photoOf(calls)
	assert.Equal(t, "✓ Wi-Fi is off", photo.Params["caption"])
	img, err := png.Decode(bytes.NewReader(photo.Photo))
	require.NoError(t, err, "the screenshot is a real PNG of the phone")
	assert.Greater(t, img.Bounds().Dx(), 100)
	assert.Contains(t, r.session(), "- status: SUCCESS")
}

// TestTelegramRunReplaysAMatchingSkill: a chat task that names a skill
// ("toggle wifi", the bundled toggle-wifi) is replayed first: Wi-Fi goes
// off with no request at the model server, and the chat gets the
// replay's verdict. (Step-by-step narration of a replay:
// TestChatTaskReplaysALearnedTask in internal/cli.)
func TestTelegramRunReplaysAMatchingSkill(t *testing.T) {
	r := newTGRig(t, nil)
	require.True(t, r.phone.WifiOn())
	_, _ = r.gateway()

	r.tg.SendText(tgOwner, "/run toggle wifi")
	calls := r.wait("the final screenshot", func(c []telegramtest.Call) bool { return photoOf(c) != nil })
	assert.False(t, r.phone.WifiOn(), "the replay toggled Wi-Fi")
	assert.Empty(t, r.model.Requests(), "no model call")
	var edits []string
	for _, c := range calls {
		if c.Method == "editMessageText" {
			edits = append(edits, c.Params["text"])
		}
	}
	require.NotEmpty(t, edits, "the verdict")
	assert.Contains(t, edits[len(edits)-1], "Replayed the learned skill toggle-wifi")
	assert.Contains(t, photoOf(calls).Params["caption"], "✓ Replayed the learned skill toggle-wifi")
	assert.Contains(t, r.session(), `"type": "replay_skill"`)
}

func TestTelegramStopEndsSessionStoppedByUser(t *testing.T) {
	r := newTGRig(t, nil)
	r.model.ReplyTool("wait", map[string]any{"durationMs": 100})
	r.model.Push(llmtest.Reply{Delay: 60 * time.Second, ToolCalls: []llmtest.ToolCall{{Name: "finish", Arguments: `{"message":"too late"}`}}})
	_, _ = r.gateway()
	r.tg.SendText(tgOwner, "/run wait for a long time")
	r.wait("the model's second call", func([]telegramtest.Call) bool { return len(r.model.Requests()) >= 2 })
	r.tg.SendText(tgOwner, "/status")
	r.wait("the busy status", anyText(`Busy: "wait for a long time"`))
	r.wait("the status naming the phone", anyText("phone: "+r.sim))
	r.tg.SendText(tgOwner, "/screen")
	r.wait("a screenshot while the task runs", func(c []telegramtest.Call) bool { return photoOf(c) != nil })
	shot := r.tg.Calls("sendPhoto")[0]
	assert.Equal(t, "The phone's screen now.", shot.Params["caption"])
	_, err := png.Decode(bytes.NewReader(shot.Photo))
	require.NoError(t, err, "a real PNG, taken without the busy device's lease")
	r.tg.SendText(tgOwner, "/stop")
	r.wait("the final screenshot", func([]telegramtest.Call) bool { return len(r.tg.Calls("sendPhoto")) == 2 })
	assert.Equal(t, "✗ stopped by user", r.tg.Calls("sendPhoto")[1].Params["caption"])
	s := r.session()
	assert.Contains(t, s, "## Final\n\n- status: FAILED")
	assert.Contains(t, s, "### Message\n\nstopped by user")
}

func TestTelegramAuthCodeCompletesLoginOTP(t *testing.T) {
	t.Run("with the relay", func(t *testing.T) { testTelegramAuthCode(t, true) })
	t.Run("chat only", func(t *testing.T) { testTelegramAuthCode(t, false) })
}

func testTelegramAuthCode(t *testing.T, relay bool) {
	r := newTGRig(t, func(cfg *workspace.Config, _ string) {
		cfg.HumanAuth.Enabled, cfg.HumanAuth.RelayPort = relay, freePort(t)
	})
	p := r.phone
	p.SetOTP("482913")
	loginUntilOTP(t, p)
	vx, vy := center(t, p, "verify")
	r.model.ReplyTool("request_human_auth", map[string]any{"capability": "2fa", "instruction": "Enter the 6-digit code sent to alice's phone"})
	r.model.ReplyTool("shell", map[string]any{"command": fmt.Sprintf("input tap %d %d", vx, vy)})
	r.model.ReplyTool("finish", map[string]any{"message": "Logged in"})
	_, _ = r.gateway()

	r.tg.SendText(tgOwner, "/run log in as alice")
	ask := r.wait("the authorization request", anyText("Authorization needed"))
	var req telegramtest.Call
	for _, c := range ask {
		if strings.Contains(c.Params["text"], "Authorization needed") {
			req = c
		}
	}
	assert.Contains(t, req.Params["reply_markup"], "auth:approve:")
	if relay {
		assert.Contains(t, req.Params["text"], "Relay page: http://127.0.0.1:", "the relay link comes along")
	} else {
		assert.NotContains(t, req.Params["text"], "Relay page")
	}
	r.tg.SendText(tgOwner, "/auth")
	r.wait("/auth listing it", func(c []telegramtest.Call) bool {
		n := 0
		for _, x := range c {
			if strings.Contains(x.Params["text"], "Authorization needed") {
				n++
			}
		}
		return n >= 2
	})
	r.tg.SendText(tgOwner, "482913")
	calls := r.wait("the final screenshot", func(c []telegramtest.Call) bool { return photoOf(c) != nil })
	assert.Equal(t, "✓ Logged in", photoOf(calls).Params["caption"])
	assert.True(t, p.LoggedIn())
	assert.Equal(t, "alice", p.LoggedInUser())
	arts, err := filepath.Glob(filepath.Join(r.home, "state", "human-auth-artifacts", "*.json"))
	require.NoError(t, err)
	require.Len(t, arts, 1, "the code is the request's text artifact")
	data, err := os.ReadFile(arts[0])
	require.NoError(t, err)
	assert.Contains(t, string(data), `"value": "482913"`)
	assert.NotContains(t, r.session(), "482913", "the code stays out of the session")
}

func TestTelegramCronDeliveryPostsToTheChat(t *testing.T) {
	r := newTGRig(t, func(cfg *workspace.Config, home string) {
		jobs := `{"version": 2, "jobs": [{"id": "weather", "name": "Weather", "enabled": true,
  "schedule": {"kind": "every", "everyMs": 86400000}, "payload": {"kind": "agent_turn", "task": "check the weather"},
  "delivery": {"channel": "telegram", "to": 4242}, "runOnStartup": true}]}`
		p := filepath.Join(home, "workspace", "cron", "jobs.json")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(jobs), 0o644))
		cfg.Cron.TickSec = 1
	})
	r.model.ReplyTool("finish", map[string]any{"message": "Sunny, 21°C"})
	r.tg.Fail("sendMessage", 502, 1) // delayed by the outage, not lost
	_, _ = r.gateway()
	calls := r.wait("the delivery after a retry", func(c []telegramtest.Call) bool { return len(c) >= 2 })
	var got []string
	for _, c := range calls {
		if c.Method == "sendMessage" {
			got = append(got, c.Params["chat_id"]+" "+c.Params["text"])
		}
	}
	assert.Equal(t, []string{"4242 ✓ Weather: Sunny, 21°C", "4242 ✓ Weather: Sunny, 21°C"}, got, "one 502, then delivered")
}

// loginUntilOTP fills the Login app up to its code screen, the code field focused.
func loginUntilOTP(t *testing.T, p *android.Phone) {
	shellOK(t, p, "monkey -p "+android.PkgLogin+" -c android.intent.category.LAUNCHER 1")
	tapOn(t, p, "username")
	shellOK(t, p, "input text alice")
	tapOn(t, p, "password")
	shellOK(t, p, "input text "+android.LoginPassword)
	tapOn(t, p, "login")
	tapOn(t, p, "otp")
}

func center(t *testing.T, p *android.Phone, id string) (int, int) {
	t.Helper()
	re := regexp.MustCompile(`resource-id="[^"]*:id/` + id + `"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"`)
	m := re.FindSubmatch(p.UIDumpXML())
	require.NotNil(t, m, "no element %s on screen", id)
	n := func(i int) int { v, _ := strconv.Atoi(string(m[i])); return v }
	return (n(1) + n(3)) / 2, (n(2) + n(4)) / 2
}

func tapOn(t *testing.T, p *android.Phone, id string) {
	x, y := center(t, p, id)
	shellOK(t, p, fmt.Sprintf("input tap %d %d", x, y))
}

func shellOK(t *testing.T, p *android.Phone, cmd string) {
	t.Helper()
	var out bytes.Buffer
	require.Equal(t, 0, p.Shell(context.Background(), cmd, nil, &out, &out), "%s: %s", cmd, out.String())
}

// freePort is a loopback port free right now (the relay's).
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func TestTelegramScheduleInWordsListedByCronList(t *testing.T) {
	r := newTGRig(t, nil)
	r.model.ReplyTool("cron_add", map[string]any{"task": "check the weather", "expr": "0 8 * * *", "summary": "every day at 8", "name": "Weather"})
	_, _ = r.gateway()
	r.tg.SendText(tgOwner, "every day at 8 check the weather")
	calls := r.wait("the confirmation", anyText("🗓 Scheduled job"))
	assert.True(t, anyText("results go to this chat")(calls))
	assert.True(t, r.model.Requests()[0].IsResponses(), "the chat assistant asks the Responses endpoint first")

	out, err := exec.Command(binary, "--home", r.home, "cron", "list", "--json").Output()
	require.NoError(t, err)
	type job struct {
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Enabled   bool            `json:"enabled"`
		CreatedBy string          `json:"createdBy"`
		Schedule  map[string]any  `json:"schedule"`
		Payload   map[string]any  `json:"payload"`
		Delivery  json.RawMessage `json:"delivery"`
	}
	var list struct {
		Jobs []struct {
			Job job `json:"job"`
		} `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal(out, &list), string(out))
	// A fresh workspace holds upstream's disabled starter job besides the
	// one the chat scheduled.
	require.Len(t, list.Jobs, 2, string(out))
	var j job
	for _, e := range list.Jobs {
		if e.Job.CreatedBy == "workspace_seed" {
			assert.Equal(t, "example-status-check", e.Job.ID)
			assert.False(t, e.Job.Enabled, "the starter job stays disabled")
			continue
		}
		require.Empty(t, j.ID, "one job scheduled from the chat: %s", out)
		j = e.Job
	}
	assert.Equal(t, "model via telegram:4242", j.CreatedBy)
	assert.Equal(t, "Weather", j.Name)
	assert.Equal(t, "0 8 * * *", j.Schedule["expr"])
	assert.Equal(t, "every day at 8", j.Schedule["summaryText"])
	assert.Equal(t, "check the weather", j.Payload["task"])
	assert.JSONEq(t, `{"channel": "telegram", "to": "4242"}`, string(j.Delivery))
	text, err := exec.Command(binary, "--home", r.home, "cron", "list").Output()
	require.NoError(t, err)
	assert.Contains(t, string(text), "Weather")
}

func TestTelegramRequestUserInputAnsweredInChat(t *testing.T) {
	r := newTGRig(t, nil)
	r.model.ReplyTool("request_user_input", map[string]any{"question": "Which network should I join?", "timeoutSec": 60})
	r.model.Respond(func(req llmtest.Request) llmtest.Reply {
		// The answer reaches the model as the step's result.
		if strings.Contains(string(req.Raw), "User replied: HomeNet-5G") {
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "finish", Arguments: `{"message":"Joined HomeNet-5G"}`}}}
		}
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "finish", Arguments: `{"message":"no answer seen"}`}}}
	})
	_, _ = r.gateway()
	r.tg.SendText(tgOwner, "/run join my home wifi")
	r.wait("the question", anyText("❓ Which network should I join?"))
	r.tg.SendText(tgOwner, "HomeNet-5G")
	calls := r.wait("the final screenshot", func(c []telegramtest.Call) bool { return photoOf(c) != nil })
	assert.Equal(t, "✓ Joined HomeNet-5G", photoOf(calls).Params["caption"])
	// The record keeps only the answer's length (the model's own final
	// message may repeat it).
	assert.Contains(t, r.session(), "User replied (10 characters; the answer is not recorded)")
	assert.NotContains(t, r.session(), "User replied: HomeNet-5G")
}

func TestTelegramOnboarding(t *testing.T) {
	var ws string
	r := newTGRig(t, func(_ *workspace.Config, home string) {
		ws = filepath.Join(home, "workspace")
		p := filepath.Join(ws, ".openpocket", "workspace-state.json")
		require.NoError(t, os.WriteFile(p, []byte(`{"version": 1, "bootstrapSeededAt": "2026-02-22T03:00:00.000Z", "onboardingCompletedAt": null}`), 0o644))
	})
	_, _ = r.gateway()
	r.tg.SendText(tgOwner, "/run toggle wifi")
	r.wait("the greeting", anyText("what should I call you?"))
	r.tg.SendText(tgOwner, "Ada")
	r.wait("the welcome", anyText("Nice to meet you, Ada!"))
	data, err := os.ReadFile(filepath.Join(ws, ".openpocket", "workspace-state.json"))
	require.NoError(t, err)
	var st map[string]any
	require.NoError(t, json.Unmarshal(data, &st))
	assert.NotNil(t, st["onboardingCompletedAt"])
	assert.Equal(t, "2026-02-22T03:00:00.000Z", st["bootstrapSeededAt"])
	user, err := os.ReadFile(filepath.Join(ws, "USER.md"))
	require.NoError(t, err)
	assert.Contains(t, string(user), "- Call the user: Ada")
	assert.Empty(t, r.model.Requests(), "no task ran before setup")
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

func TestTelegramGatewayStopEndsTheTaskGracefully(t *testing.T) {
	r := newTGRig(t, nil)
	r.model.ReplyTool("wait", map[string]any{"durationMs": 100})
	r.model.Push(llmtest.Reply{Delay: 60 * time.Second, ToolCalls: []llmtest.ToolCall{{Name: "finish", Arguments: `{"message":"too late"}`}}})
	_, stop := r.gateway()
	r.tg.SendText(tgOwner, "/run wait for a long time")
	r.wait("the model's second call", func([]telegramtest.Call) bool { return len(r.model.Requests()) >= 2 })
	stop() // SIGTERM: exit 0 asserted inside
	calls := r.tg.Calls("")
	photo := photoOf(calls)
	require.NotNil(t, photo, "the last message still went out: %+v", calls)
	assert.Equal(t, "✗ stopped: the gateway is shutting down", photo.Params["caption"])
	s := r.session()
	assert.Contains(t, s, "- status: FAILED")
	assert.Contains(t, s, "### Message\n\nstopped: the gateway is shutting down")
}
