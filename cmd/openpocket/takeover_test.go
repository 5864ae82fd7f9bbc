package main_test

import (
	"bytes"
	"image/png"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/browsertest"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/internal/sim/android"
	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/internal/workspace"
)

var descBounds = regexp.MustCompile(`content-desc="Settings"[^>]*?bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"`)

// settingsIcon is the center of the largest element described "Settings"
// on the launcher (the app icon, not a folder's preview thumbnail).
func settingsIcon(t *testing.T, p *android.Phone) (x, y int) {
	t.Helper()
	best := -1
	for _, m := range descBounds.FindAllStringSubmatch(string(p.UIDumpXML()), -1) {
		var b [4]int
		for i := range b {
			b[i], _ = strconv.Atoi(m[i+1])
		}
		if a := (b[2] - b[0]) * (b[3] - b[1]); a > best {
			best, x, y = a, (b[0]+b[2])/2, (b[1]+b[3])/2
		}
	}
	require.Positive(t, best, "no Settings icon on the launcher")
	return x, y
}

// TestRelayPageShowsTheScreenAndTakesOver: with stdin closed the relay
// page shows the phone's current screen, refreshing; a tap on the image
// taps the virtual phone; the page fits 390 px; and once the request is
// answered its link fetches no screen and passes no tap.
func TestRelayPageShowsTheScreenAndTakesOver(t *testing.T) {
	phone := simtest.Start(t)
	srv := llmtest.NewServer(t)
	srv.ReplyTool("request_human_auth", map[string]any{"capability": "2fa", "instruction": "Enter the sign-in code", "timeoutSec": 120})
	release := make(chan struct{})
	srv.Respond(func(llmtest.Request) llmtest.Reply {
		<-release // the run stays up (its relay too) until the used link is checked
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "finish", Arguments: `{"message":"done"}`}}}
	})
	home := authHome(t, srv, func(c *workspace.Config) { c.Agent.ReturnHomeOnTaskEnd = false })
	run := startAgent(t, home, phone.Serial(), nil, "sign in")
	_, link := run.link(t)
	require.Equal(t, "com.android.launcher3", phone.Phone().CurrentPackage())

	ctx := browsertest.Browser(t, browsertest.Viewport{Width: 390, Height: 844, Mobile: true})
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(link), chromedp.WaitVisible("#screen")))
	var natural int
	waitFor(t, "the screen image", func() bool {
		natural, _ = chromedp.Run(ctx, chromedp.Evaluate[int](`document.getElementById("screen").naturalWidth`))
		return natural > 0
	})
	cfg, err := png.DecodeConfig(bytes.NewReader(phone.Phone().ScreenPNG()))
	require.NoError(t, err)
	w, h := cfg.Width, cfg.Height
	assert.Equal(t, w, natural, "the image is the phone's screen at full size")
	var u *url.URL
	overflow, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
	require.NoError(t, err)
	assert.False(t, overflow, "no horizontal overflow at 390 px")

	// It refreshes: the image's address changes and new pictures load.
	first, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("screen").src`))
	require.NoError(t, err)
	waitFor(t, "a refreshed screen", func() bool {
		later, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(function(){var i=document.getElementById("screen");return i.complete&&i.naturalWidth>0?i.src:""})()`))
		return later != "" && later != first
	})

	// A tap on the Settings icon in the picture taps the phone.
	x, y := settingsIcon(t, phone.Phone())
	type box struct{ Left, Top, Width, Height float64 }
	rect, err := chromedp.Run(ctx, chromedp.Evaluate[box](`(function(){var r=document.getElementById("screen").getBoundingClientRect();return {Left:r.left,Top:r.top,Width:r.width,Height:r.height}})()`))
	require.NoError(t, err)
	require.Positive(t, rect.Width)
	require.NoError(t, chromedp.Do(ctx, chromedp.MouseClickXY(rect.Left+float64(x)*rect.Width/float64(w), rect.Top+float64(y)*rect.Height/float64(h))))
	waitFor(t, "Settings opened by the tap on the page", func() bool { return phone.Phone().CurrentPackage() == android.PkgSettings })

	require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys("#f_code", "123456"), chromedp.Click("#approve"), chromedp.WaitVisible("#message")))

	// The used link (the run still waits for its model): no screen, no tap.
	waitFor(t, "the model asked after the approval", func() bool { return len(srv.Requests()) >= 2 })
	u, err = url.Parse(link)
	require.NoError(t, err)
	base := u.Scheme + "://" + u.Host + u.Path
	res, err := http.Get(base + "/screen?" + u.RawQuery)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusGone, res.StatusCode, "a used link fetches no screen")
	assert.NotEqual(t, "image/png", res.Header.Get("Content-Type"))
	res, err = http.PostForm(base+"/tap?"+u.RawQuery, url.Values{"x": {strconv.Itoa(x)}, "y": {strconv.Itoa(y)}})
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusGone, res.StatusCode, "a used link passes no tap")
	close(release)
	assert.Equal(t, 0, exitCode(t, run.cmd, run.stdout), run.errText())
	assert.Equal(t, android.PkgSettings, phone.Phone().CurrentPackage(), "no tap reached the phone")
}

// relayScreen fetches a relay link's screen and returns its size.
func relayScreen(t *testing.T, link string) (w, h int) {
	t.Helper()
	u, err := url.Parse(link)
	require.NoError(t, err)
	res, err := http.Get(u.Scheme + "://" + u.Host + u.Path + "/screen?" + u.RawQuery)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	cfg, err := png.DecodeConfig(res.Body)
	require.NoError(t, err)
	return cfg.Width, cfg.Height
}

// relayTap taps (x, y) through a relay link.
func relayTap(t *testing.T, link string, x, y int) {
	t.Helper()
	u, err := url.Parse(link)
	require.NoError(t, err)
	res, err := http.PostForm(u.Scheme+"://"+u.Host+u.Path+"/tap?"+u.RawQuery, url.Values{"x": {strconv.Itoa(x)}, "y": {strconv.Itoa(y)}})
	require.NoError(t, err)
	res.Body.Close()
	require.Less(t, res.StatusCode, 300, "tap through %s", link)
}

// TestRelayTakeoverDrivesOnlyTheRunsPhone: three phones attached, two runs waiting for a person at once (two homes, two
// relays) on two of them: each link shows its own run's phone and a tap
// through it reaches that phone only; the third phone is never touched.
func TestRelayTakeoverDrivesOnlyTheRunsPhone(t *testing.T) {
	size := func(w, h int) func(*sim.Options) { return func(o *sim.Options) { o.Width, o.Height = w, h } }
	// The idle phone is the first's twin (same size, same launcher): a tap
	// meant for the first that reached it would open its Settings too.
	idle, first, second := simtest.Start(t, size(720, 1280)), simtest.Start(t, size(720, 1280)), simtest.Start(t, size(800, 1600))
	type waiting struct {
		phone *sim.Sim
		run   *agentRun
		link  string
	}
	var runs []waiting
	for _, p := range []*sim.Sim{first, second} {
		srv := llmtest.NewServer(t)
		srv.ReplyTool("request_human_auth", map[string]any{"capability": "2fa", "instruction": "Enter the sign-in code", "timeoutSec": 120})
		home := authHome(t, srv, func(c *workspace.Config) { c.Agent.ReturnHomeOnTaskEnd = false })
		r := startAgent(t, home, p.Serial(), nil, "sign in")
		_, link := r.link(t)
		runs = append(runs, waiting{p, r, link})
	}
	idleBefore := idle.Phone().CurrentPackage()
	for _, w := range runs {
		cfg, err := png.DecodeConfig(bytes.NewReader(w.phone.Phone().ScreenPNG()))
		require.NoError(t, err)
		gw, gh := relayScreen(t, w.link)
		assert.Equal(t, [2]int{cfg.Width, cfg.Height}, [2]int{gw, gh}, "the link shows its run's phone (%s)", w.phone.Serial())
	}
	for i, w := range runs {
		x, y := settingsIcon(t, w.phone.Phone())
		relayTap(t, w.link, x, y)
		waitFor(t, "Settings opened on the run's phone", func() bool { return w.phone.Phone().CurrentPackage() == android.PkgSettings })
		if i == 0 {
			assert.Equal(t, "com.android.launcher3", runs[1].phone.Phone().CurrentPackage(), "the other run's phone is untouched")
		}
	}
	assert.Equal(t, idleBefore, idle.Phone().CurrentPackage(), "the phone no run uses is never tapped")
}
