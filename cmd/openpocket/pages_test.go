package main_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/browsertest"
	"github.com/openpocket/openpocket/internal/lease"
)

// fitsWindow fails the test when the page scrolls sideways, and saves its
// screenshot under the test's artifacts.
func fitsWindow(t *testing.T, ctx context.Context, name string, vp browsertest.Viewport) {
	t.Helper()
	widths, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`[document.scrollingElement.scrollWidth, window.innerWidth]`))
	require.NoError(t, err)
	assert.LessOrEqual(t, widths[0], widths[1], "%s at %d px is %d px wide", name, vp.Width, widths[0])
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	path := filepath.Join(t.ArtifactDir(), fmt.Sprintf("%s-%d.png", name, vp.Width))
	require.NoError(t, os.WriteFile(path, shot, 0o644))
	t.Logf("screenshot: %s", path)
}

// TestDashboardPagesFitAPhone opens every dashboard page (manager, agent
// with its live screen and a cron job, session, skill) at 390×844 and
// 1280×800: none scrolls sideways. On the phone, a tap on the live
// screen reaches the right element (Wi-Fi toggles) and the message it
// leaves does not move the screen.
func TestDashboardPagesFitAPhone(t *testing.T) {
	t.Setenv(lease.DirEnv, t.TempDir())
	home, env, sims, servers := agentInstallSims(t, "alpha")
	phone := sims["alpha"]
	r := runBinary(t, env, "--home", home, "--agent", "alpha", "cron", "add", "--every", "1h", "--name", "a-rather-long-job-name-for-a-phone",
		"--task", "open the settings app, check that Wi-Fi is connected to the office network and report the signal strength")
	require.Equal(t, 0, r.code, r.stderr)
	servers["alpha"].ReplyTool("launch_app", map[string]any{"packageName": "com.android.settings"})
	servers["alpha"].ReplyTool("finish", map[string]any{"message": "settings open"})
	r = runBinary(t, env, "--home", home, "--agent", "alpha", "agent", "open the settings")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	base := startDashboard(t, home)

	for _, vp := range []browsertest.Viewport{{Width: 390, Height: 844, Mobile: true}, {Width: 1280, Height: 800}} {
		ctx := browsertest.Browser(t, vp)
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.ID("agents"))))
		fitsWindow(t, ctx, "manager", vp)

		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/a/alpha/")))
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById('screen').getBoundingClientRect().height > 200`, chromedp.WithPollingTimeout(20*time.Second)))
		require.NoError(t, err, "the live screen loads")
		jobs, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("jobs")))
		require.NoError(t, err)
		assert.Contains(t, jobs, "a-rather-long-job-name-for-a-phone")
		fitsWindow(t, ctx, "agent", vp)
		session, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#sessions a').getAttribute('href')`))
		require.NoError(t, err)

		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+session), chromedp.WaitVisible(chromedp.ID("session"))))
		fitsWindow(t, ctx, "session", vp)
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/a/alpha/skills/toggle-wifi"), chromedp.WaitVisible(chromedp.ID("skill"))))
		items, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#skill ol li').length`))
		require.NoError(t, err)
		assert.Greater(t, items, 2, "the procedure is a list, not text")
		fitsWindow(t, ctx, "skill", vp)

		if !vp.Mobile {
			continue
		}
		// A tap on the phone-sized screen: mapped by its shown width, and
		// the message after it floats instead of pushing the screen.
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/a/alpha/")))
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById('screen').getBoundingClientRect().height > 200`, chromedp.WithPollingTimeout(20*time.Second)))
		require.NoError(t, err)
		type box struct{ Left, Top, Width float64 }
		where := `(function(){var r=document.getElementById('screen').getBoundingClientRect();return {Left:r.left,Top:r.top+window.scrollY,Width:r.width};})()`
		before, err := chromedp.Run(ctx, chromedp.Evaluate[box](where))
		require.NoError(t, err)
		require.Less(t, before.Width, 360.0, "the screen is shown narrower than on a desktop")
		wifiBefore := phone.Phone().WifiOn()
		cx, cy := wifiSwitchCenter(t, phone)
		scale := before.Width / 1080
		require.NoError(t, chromedp.Do(ctx, chromedp.ScrollIntoView(chromedp.ID("screen"))))
		vis, err := chromedp.Run(ctx, chromedp.Evaluate[box](`(function(){var r=document.getElementById('screen').getBoundingClientRect();return {Left:r.left,Top:r.top,Width:r.width};})()`))
		require.NoError(t, err)
		require.NoError(t, chromedp.Do(ctx, chromedp.MouseClickXY(vis.Left+float64(cx)*scale, vis.Top+float64(cy)*scale)))
		require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.ID("flash"))), "the tap's message shows")
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById('screen').getBoundingClientRect().height > 200`, chromedp.WithPollingTimeout(20*time.Second)))
		require.NoError(t, err)
		flash, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("flash")))
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(flash, "tapped"), flash)
		assert.NotEqual(t, wifiBefore, phone.Phone().WifiOn(), "the tap at the shown width hit the Wi-Fi switch")
		after, err := chromedp.Run(ctx, chromedp.Evaluate[box](where))
		require.NoError(t, err)
		assert.Equal(t, before, after, "the message does not move the screen")
		fitsWindow(t, ctx, "agent-after-tap", vp)
	}
}
