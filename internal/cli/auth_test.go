package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/browsertest"
	"github.com/openpocket/openpocket/internal/humanauth"
	"github.com/openpocket/openpocket/internal/relay"
	"github.com/openpocket/openpocket/internal/sim/android"
	"github.com/openpocket/openpocket/internal/workspace"
)

// tapID taps the element with resource id pkg:id/<id> on the virtual
// phone through its shell, as adb shell input tap would.
func tapID(t *testing.T, p *android.Phone, id string) (x, y int) {
	t.Helper()
	re := regexp.MustCompile(`resource-id="[^"]*:id/` + id + `"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"`)
	m := re.FindSubmatch(p.UIDumpXML())
	require.NotNil(t, m, "no element %s on screen", id)
	n := func(i int) int { v, _ := strconv.Atoi(string(m[i])); return v }
	x, y = (n(1)+n(3))/2, (n(2)+n(4))/2
	shell(t, p, fmt.Sprintf("input tap %d %d", x, y))
	return x, y
}

func shell(t *testing.T, p *android.Phone, cmd string) {
	t.Helper()
	var out bytes.Buffer
	require.Equal(t, 0, p.Shell(context.Background(), cmd, nil, &out, &out), "%s: %s", cmd, out.String())
}

// relayApp is an agent app with humanAuth enabled on a free port, the
// real relay bound, and the Login app waiting for its one-time code.
func relayApp(t *testing.T, timeoutSec int) (*App, *android.Phone, func(string, any), chan string) {
	app, p, reply, links := humanAuthApp(t, timeoutSec)
	p.SetOTP("482913")
	shell(t, p, "monkey -p "+android.PkgLogin+" -c android.intent.category.LAUNCHER 1")
	tapID(t, p, "username")
	shell(t, p, "input text alice")
	tapID(t, p, "password")
	shell(t, p, "input text "+android.LoginPassword)
	tapID(t, p, "login")
	tapID(t, p, "otp") // the code field has the focus when the human answers
	return app, p, reply, links
}

// humanAuthApp is an agent app with humanAuth enabled on a free port and
// the real relay bound.
func humanAuthApp(t *testing.T, timeoutSec int) (*App, *android.Phone, func(string, any), chan string) {
	app, srv, _, s := agentAppWithSim(t)
	h, err := workspace.Open(app.Home)
	require.NoError(t, err)
	cfg := h.Config()
	cfg.HumanAuth.Enabled, cfg.HumanAuth.RelayPort, cfg.HumanAuth.RequestTimeoutSec = true, 0, timeoutSec
	require.NoError(t, h.SaveConfig(cfg))
	app.sys = testSystem{relay: func(ctx context.Context, st *humanauth.Store, addr string, phone RelayPhone) (string, func(), error) {
		return relay.Start(ctx, st, relay.Options{Addr: addr, Phone: phone})
	}}
	links := make(chan string, 1)
	return app, s.Phone(), srv.ReplyTool, links
}

func runWithLinks(app *App, links chan string) chan engine.RunResult {
	done := make(chan engine.RunResult, 1)
	go func() {
		res, _ := app.runAgent(context.Background(), "Log in as alice", agentRunOptions{OnEvent: func(ev engine.Event) {
			if ev.Kind == "human_auth_request" {
				links <- ev.Fields["url"].(string)
			}
		}})
		done <- res
	}()
	return done
}

func TestAgentOTPApprovedInBrowser(t *testing.T) {
	app, p, reply, links := relayApp(t, 120)
	vx, vy := func() (int, int) {
		re := regexp.MustCompile(`resource-id="[^"]*:id/verify"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"`)
		m := re.FindSubmatch(p.UIDumpXML())
		require.NotNil(t, m)
		a, _ := strconv.Atoi(string(m[1]))
		b, _ := strconv.Atoi(string(m[2]))
		c, _ := strconv.Atoi(string(m[3]))
		d, _ := strconv.Atoi(string(m[4]))
		return (a + c) / 2, (b + d) / 2
	}()
	reply("request_human_auth", map[string]any{"capability": "2fa", "instruction": "Enter the 6-digit code sent to alice's phone"})
	reply("shell", map[string]any{"command": fmt.Sprintf("input tap %d %d", vx, vy)})
	reply("finish", map[string]any{"message": "Logged in"})
	done := runWithLinks(app, links)

	var link string
	select {
	case link = <-links:
	case <-time.After(60 * time.Second):
		t.Fatal("no human_auth_request event")
	}
	ctx := browsertest.Browser(t, browsertest.Phone)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(link), chromedp.WaitVisible("#f_code")))
	require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys("#f_code", "482913")))
	browsertest.Screenshot(t, ctx, "otp-request")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click("#approve"), chromedp.WaitVisible("#message")))
	browsertest.Screenshot(t, ctx, "otp-approved")

	res := <-done
	require.True(t, res.Success, res.Message)
	assert.True(t, p.LoggedIn())
	assert.Equal(t, "alice", p.LoggedInUser())

	id := filepath.Base(link[:len(link)-len(link[len(link)-len("?t=")-43:])])
	art := filepath.Join(app.Home, "state", "human-auth-artifacts", id+".json")
	data, err := os.ReadFile(art)
	require.NoError(t, err)
	var payload map[string]any
	require.NoError(t, json.Unmarshal(data, &payload))
	assert.Equal(t, "text", payload["kind"])
	assert.Equal(t, "482913", payload["value"])
	assert.Equal(t, "2fa", payload["capability"])
	_, err = time.Parse(time.RFC3339Nano, payload["capturedAt"].(string))
	assert.NoError(t, err)

	sess, err := os.ReadFile(res.SessionPath)
	require.NoError(t, err)
	s := string(sess)
	assert.Contains(t, s, "Human auth approved request_id="+id+" message=the user approved and provided text\n")
	assert.Contains(t, s, "human_artifact="+art+"\n")
	assert.Contains(t, s, "delegation_result=typed 6 characters into the focused field\n")
	assert.NotContains(t, s, "482913", "the code stays out of the session")
	assert.NotContains(t, s, link[len(link)-43:], "the token stays out of the session")

	// The link is dead now.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(link), chromedp.WaitVisible("#message")))
	assert.Equal(t, "Already answered", text(t, ctx, "#title"))
}

func text(t *testing.T, ctx context.Context, sel string) string {
	s, err := chromedp.Run(ctx, chromedp.Text(sel))
	require.NoError(t, err)
	return s
}

func TestAgentHumanAuthRejectedInBrowser(t *testing.T) {
	app, p, reply, links := relayApp(t, 120)
	reply("request_human_auth", map[string]any{"capability": "2fa", "instruction": "Enter the code"})
	reply("finish", map[string]any{"message": "The user declined"})
	done := runWithLinks(app, links)
	link := <-links
	ctx := browsertest.Browser(t, browsertest.Phone)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(link), chromedp.WaitVisible("#reject"), chromedp.Click("#reject"), chromedp.WaitVisible("#message")))
	assert.Equal(t, "Rejected", text(t, ctx, "#title"))
	res := <-done
	sess, err := os.ReadFile(res.SessionPath)
	require.NoError(t, err)
	assert.Contains(t, string(sess), "Human auth rejected request_id=")
	assert.Contains(t, string(sess), "message=the user rejected the request")
	assert.False(t, p.LoggedIn())
}

func TestAgentHumanAuthTimeout(t *testing.T) {
	app, _, reply, links := relayApp(t, 1)
	reply("request_human_auth", map[string]any{"capability": "2fa", "instruction": "Enter the code", "timeoutSec": 600})
	reply("finish", map[string]any{"message": "Nobody answered"})
	done := runWithLinks(app, links)
	link := <-links
	res := <-done
	sess, err := os.ReadFile(res.SessionPath)
	require.NoError(t, err)
	assert.Contains(t, string(sess), "Human auth timeout request_id=", "600 s capped at requestTimeoutSec=1")
	ctx := browsertest.Browser(t, browsertest.Phone)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(link), chromedp.WaitVisible("#message")))
	assert.Equal(t, "Link expired", text(t, ctx, "#title"))
}

func TestAgentPhotoPushedToDownloads(t *testing.T) {
	app, p, reply, links := humanAuthApp(t, 120)
	reply("request_human_auth", map[string]any{"capability": "camera", "instruction": "Take a photo of the parcel label",
		"uiTemplate": map[string]any{"title": "Parcel label", "requireArtifactOnApprove": true}})
	reply("finish", map[string]any{"message": "Got the photo"})
	done := runWithLinks(app, links)
	link := <-links
	img := filepath.Join(t.TempDir(), "label.png")
	require.NoError(t, os.WriteFile(img, tinyPNG, 0o644))
	ctx := browsertest.Browser(t, browsertest.Phone)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(link), chromedp.WaitVisible("#photo")))
	// Approving without the photo shows the page again.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click("#approve"), chromedp.WaitVisible("#problem")))
	require.NoError(t, chromedp.Do(ctx, chromedp.SetUploadFiles("#photo", []string{img})))
	browsertest.Screenshot(t, ctx, "camera-request")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click("#approve"), chromedp.WaitVisible("#message")))
	res := <-done
	require.True(t, res.Success, res.Message)
	id := filepath.Base(link[:len(link)-46])
	art := filepath.Join(app.Home, "state", "human-auth-artifacts", id+".png")
	data, err := os.ReadFile(art)
	require.NoError(t, err)
	assert.Equal(t, tinyPNG, data)
	remote := "/sdcard/Download/openpocket-" + id + ".png"
	onPhone, err := p.Files().ReadFile(remote)
	require.NoError(t, err)
	assert.Equal(t, tinyPNG, onPhone)
	assert.Equal(t, []string{remote}, p.ScannedMedia())
	sess, err := os.ReadFile(res.SessionPath)
	require.NoError(t, err)
	assert.Contains(t, string(sess), "message=the user approved and sent a photo\n")
	assert.Contains(t, string(sess), "human_artifact="+art+"\n")
	assert.Contains(t, string(sess), fmt.Sprintf("delegation_result=pushed image to %s (%d bytes) and announced it to the media scanner\n", remote, len(tinyPNG)))
}

// tinyPNG is a 1×1 PNG.
var tinyPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")

func TestAuthCommandAnswersFromTheMachine(t *testing.T) {
	app, p, reply, links := relayApp(t, 120)
	var errOut bytes.Buffer
	app.Stderr = &errOut
	// Without a relay address to reach: only the command answers.
	reply("request_human_auth", map[string]any{"capability": "2fa", "instruction": "Enter the code"})
	reply("shell", map[string]any{"command": "input keyevent KEYCODE_ENTER"})
	reply("finish", map[string]any{"message": "Logged in"})
	done := runWithLinks(app, links)
	link := <-links
	id := filepath.Base(link[:len(link)-46])

	cmd := func(args ...string) (string, error) {
		var out bytes.Buffer
		a := &App{sys: testSystem{}, Globals: app.Globals, Stdout: &out, Stderr: &out, Ctx: context.Background()}
		var err error
		switch args[0] {
		case "list":
			err = (&AuthListCmd{}).Run(homeDeps(t, a))
		case "approve":
			err = (&AuthApproveCmd{ID: args[1], Text: args[2]}).Run(homeDeps(t, a))
		case "reject":
			err = (&AuthRejectCmd{ID: args[1]}).Run(homeDeps(t, a))
		}
		return out.String(), err
	}
	out, err := cmd("list")
	require.NoError(t, err)
	assert.Regexp(t, `(?m)^ID +CAPABILITY +EXPIRES +INSTRUCTION\n`+regexp.QuoteMeta(id)+` +2fa +in \S+ +Enter the code\n`, out)
	_, err = cmd("approve", "nope", "")
	assert.Equal(t, ExitUsage, ExitCode(err))
	assert.ErrorContains(t, err, `no pending request "nope"`)
	out, err = cmd("approve", id, "482913")
	require.NoError(t, err)
	assert.Equal(t, "approved "+id+"\n", out)
	_, err = cmd("reject", id)
	assert.Error(t, err, "the first answer stands")

	res := <-done
	require.True(t, res.Success, res.Message)
	assert.True(t, p.LoggedIn(), "the code was typed and Enter submitted it")
	sess, err := os.ReadFile(res.SessionPath)
	require.NoError(t, err)
	assert.Contains(t, string(sess), "Human auth approved request_id="+id+" message=the user approved and provided text\n")
	assert.NotContains(t, string(sess), "482913")
	out, err = cmd("list")
	require.NoError(t, err)
	assert.Equal(t, "no pending human-auth requests\n", out)
	assert.Contains(t, errOut.String(), "or at this machine: openpocket auth approve "+id)
}

func TestAgentLocationOnANonEmulator(t *testing.T) {
	app, p, reply, links := humanAuthApp(t, 120)
	reply("request_human_auth", map[string]any{"capability": "location", "instruction": "Where should the taxi pick you up?"})
	reply("finish", map[string]any{"message": "Noted"})
	done := runWithLinks(app, links)
	link := <-links
	ctx := browsertest.Browser(t, browsertest.Phone)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(link), chromedp.WaitVisible("#lat"),
		chromedp.SetValue("#lat", "37.7749"), chromedp.SetValue("#lon", "-122.4194")))
	hidden, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("use-location").hidden`))
	require.NoError(t, err)
	assert.False(t, hidden, "with JavaScript, the page offers the browser's location")
	browsertest.Screenshot(t, ctx, "location-request")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click("#approve"), chromedp.WaitVisible("#message")))
	res := <-done
	require.True(t, res.Success, res.Message)
	id := filepath.Base(link[:len(link)-46])
	art := filepath.Join(app.Home, "state", "human-auth-artifacts", id+".json")
	data, err := os.ReadFile(art)
	require.NoError(t, err)
	var payload map[string]any
	require.NoError(t, json.Unmarshal(data, &payload))
	assert.Equal(t, "geo", payload["kind"])
	assert.Equal(t, 37.7749, payload["lat"])
	assert.Equal(t, -122.4194, payload["lon"])
	assert.Equal(t, "location", payload["capability"])
	sess, err := os.ReadFile(res.SessionPath)
	require.NoError(t, err)
	assert.Contains(t, string(sess), "message=the user approved and shared a location\n")
	assert.Contains(t, string(sess), "delegation_result=location not applied: "+p.Serial()+" is not an emulator (adb emu geo fix only works on emulators); lat=37.7749 lon=-122.4194 are in the artifact\n")
}
