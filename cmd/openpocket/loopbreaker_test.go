package main_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/browsertest"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/internal/workspace"
)

// stuckOnATitle scripts a model that opens Settings and then taps its
// title — a label that does nothing — until the person's instruction is
// in its history, and returns a home with agent.stuckAfter 3.
func stuckOnATitle(t *testing.T, phone *sim.Sim, srv *llmtest.Server) string {
	t.Helper()
	return stuckHome(t, phone, srv, homeWithModel(t, srv))
}

func stuckHome(t *testing.T, phone *sim.Sim, srv *llmtest.Server, home string) string {
	t.Helper()
	ctx := context.Background()
	d, err := adb.NewClient("").Open(ctx, adb.Target{Serial: phone.Serial()})
	require.NoError(t, err)
	p := device.NewPhone(d, device.Options{})
	_, err = p.LaunchApp(ctx, "com.android.settings")
	require.NoError(t, err)
	snap, err := p.Capture(ctx, device.CaptureOptions{Scaled: true, NoCache: true})
	require.NoError(t, err)
	mark := ""
	for _, e := range snap.UIElements {
		if e.Text == "Settings" && !e.Clickable {
			mark = e.ID
		}
	}
	require.NotEmpty(t, mark)
	_, err = p.Shell(ctx, "input keyevent KEYCODE_HOME")
	require.NoError(t, err)

	srv.ReplyTool("launch_app", map[string]any{"packageName": "com.android.settings"})
	srv.Respond(func(req llmtest.Request) llmtest.Reply {
		if strings.Contains(string(req.Raw), "The person says: tap the Wi-Fi row instead") {
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "finish", Arguments: `{"message":"following the person"}`}}}
		}
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "tap_element", Arguments: `{"elementId":"` + mark + `"}`}}}
	})
	h, err := workspace.Open(home)
	require.NoError(t, err)
	cfg := h.Config()
	cfg.Agent.StuckAfter, cfg.Agent.MaxSteps = 3, 40
	require.NoError(t, h.SaveConfig(cfg))
	return home
}

// TestAgentStuckWithStdinClosedFails: `openpocket agent` with stdin
// closed (cron, nohup) and a model stuck on a dead control relaunches the
// app once, prints no prompt, and exits 1 "stuck" after N+2 model calls
// instead of 40.
func TestAgentStuckWithStdinClosedFails(t *testing.T) {
	phone := simtest.Start(t)
	srv := llmtest.NewServer(t)
	home := stuckOnATitle(t, phone, srv)
	run := startAgent(t, home, phone.Serial(), nil, "turn off Wi-Fi")
	assert.Equal(t, 1, exitCode(t, run.cmd, run.stdout), run.errText())
	assert.Len(t, srv.Requests(), 5, "launch, 3 dead taps, 1 after the relaunch")
	assert.NotContains(t, run.errText(), "Your instruction", "no terminal prompt without a terminal")
	s := sessionText(t, home)
	assert.Contains(t, s, "Loop breaker: relaunched com.android.settings")
	assert.Contains(t, s, "Loop breaker asked the person: no answer (human auth unavailable: no interactive terminal to ask (stdin is not a TTY) and no relay configured)")
	assert.Contains(t, s, "- status: FAILED")
	assert.Contains(t, s, "stuck: after relaunching the app")
}

// TestAgentStuckAsksThePersonOnTheTerminal: with stdin a terminal the
// loop breaker asks there; the person's instruction reaches the model,
// which finishes; the session keeps only the answer's length.
func TestAgentStuckAsksThePersonOnTheTerminal(t *testing.T) {
	phone := simtest.Start(t)
	srv := llmtest.NewServer(t)
	home := stuckOnATitle(t, phone, srv)
	master, slave := openPTY(t)
	go io.Copy(io.Discard, master)
	run := startAgent(t, home, phone.Serial(), slave, "turn off Wi-Fi")
	run.waitErr(t, "Your instruction (Enter alone stops the run): ")
	assert.Contains(t, run.errText(), `The agent is stuck on the task "turn off Wi-Fi": after relaunching the app`)
	_, err := master.WriteString("tap the Wi-Fi row instead\n")
	require.NoError(t, err)
	assert.Equal(t, 0, exitCode(t, run.cmd, run.stdout), run.errText())
	assert.Len(t, srv.Requests(), 6)
	s := sessionText(t, home)
	assert.Contains(t, s, "Loop breaker asked the person: they replied (25 characters; the answer is not recorded)")
	assert.NotContains(t, s, "tap the Wi-Fi row instead")
	assert.Contains(t, s, "- status: SUCCESS")
}

// TestAgentStuckAsksThePersonOnTheRelayPage: stdin closed, but
// humanAuth.enabled: the question goes to the relay's page (390 px), the
// person types an instruction there and the run goes on with it.
func TestAgentStuckAsksThePersonOnTheRelayPage(t *testing.T) {
	phone := simtest.Start(t)
	srv := llmtest.NewServer(t)
	home := stuckHome(t, phone, srv, authHome(t, srv, nil))
	run := startAgent(t, home, phone.Serial(), nil, "turn off Wi-Fi")
	_, url := run.link(t)
	ctx := browsertest.Browser(t, browsertest.Viewport{Width: 390, Height: 844, Mobile: true})
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible("#f_instruction")), run.errText())
	assert.Contains(t, pageText(t, ctx, "body"), "The agent is stuck on the task")
	require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys("#f_instruction", "tap the Wi-Fi row instead"),
		chromedp.Click("#approve"), chromedp.WaitVisible("#message")))
	assert.Equal(t, 0, exitCode(t, run.cmd, run.stdout), run.errText())
	assert.Len(t, srv.Requests(), 6)
	s := sessionText(t, home)
	assert.Contains(t, s, "Loop breaker asked the person: they replied (25 characters; the answer is not recorded)")
	assert.Contains(t, s, "- status: SUCCESS")
}
