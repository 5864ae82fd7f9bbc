package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/browsertest"
	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// TestHTMLReportOfTheDemoInChromium plays `make demo`'s playbook with
// --report-html and opens the page in headless Chromium: every step is
// listed, every UI step's screenshot has loaded, a thumbnail opens full
// size. The browser's screenshot is saved under the test's artifacts.
func TestHTMLReportOfTheDemoInChromium(t *testing.T) {
	ctx := browsertest.Browser(t, browsertest.Viewport{Width: 1280, Height: 1600})
	s := simtest.Start(t)
	out, reportDir := t.TempDir(), t.TempDir()
	code, stdout, stderr := playMain(t, s.Serial(), "play", "../../examples/demo.yaml", "--output", out, "--report-html", reportDir)
	require.Equal(t, ExitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)

	pages, err := filepath.Glob(filepath.Join(reportDir, "*", "index.html"))
	require.NoError(t, err)
	require.Len(t, pages, 1)
	var fr FlowReport
	runs, _ := filepath.Glob(filepath.Join(out, "*", "steps.json"))
	require.Len(t, runs, 1)
	b, err := os.ReadFile(runs[0])
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &fr))
	shots := 0
	for _, st := range fr.Steps {
		if st.Screenshot != "" {
			shots++
		}
	}
	require.Greater(t, shots, 5, "UI steps have screenshots")

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("file://"+pages[0])))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#steps"))))
	eval := func(js string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](js))
		require.NoError(t, err, js)
		return n
	}
	rows := eval(`document.querySelectorAll("#steps tbody tr.step").length`)
	assert.Equal(t, rows, eval(`Number(document.querySelector("#steps tbody tr.step:last-child td").textContent)`), "steps are numbered 1..n")
	loaded := eval(`Array.from(document.querySelectorAll("img.thumb")).filter(i => i.complete && i.naturalWidth > 0).length`)
	labels := eval(`Array.from(document.querySelectorAll("#steps td.yaml code")).filter(c => /demo\.yaml:\d+/.test(c.textContent)).length`)
	status, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#status")))
	require.NoError(t, err)
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`a[href^="#shot-"]`))))
	lightbox, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector(location.hash)).display`))
	require.NoError(t, err)
	assert.Equal(t, len(fr.Steps), rows, "one row per step")
	assert.Equal(t, shots, loaded, "every UI step's screenshot loads from the file system")
	assert.Equal(t, len(fr.Steps), labels, "every step names its YAML line")
	assert.Equal(t, "passed", status)
	assert.Equal(t, "flex", lightbox, "a thumbnail opens the full-size screenshot")

	require.NotEmpty(t, shot)
	img, err := png.Decode(bytes.NewReader(shot))
	require.NoError(t, err, "the browser screenshot is a PNG")
	assert.Greater(t, img.Bounds().Dy(), 600, "the page is taller than one screen of steps")
	require.NoError(t, os.WriteFile(filepath.Join(t.ArtifactDir(), "demo-report.png"), shot, 0o644))

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(reportDir, "index.html"))))
	assert.Equal(t, 1, eval(`document.querySelectorAll("#runs a").length`))
}

// TestHTMLReportFitsAPhone opens a failed run's report (long file paths,
// an error, YAML source) and the runs index at 390×844 and 1280×800: no
// page is wider than the window. Screenshots go to the test's artifacts.
func TestHTMLReportFitsAPhone(t *testing.T) {
	s := simtest.Start(t)
	dir, out, reportDir := t.TempDir(), t.TempDir(), t.TempDir()
	flow := filepath.Join(dir, "a-playbook-with-a-rather-long-name-for-the-phone-width.yaml")
	require.NoError(t, os.WriteFile(flow, []byte("name: long\nsteps:\n  - launch: com.android.settings\n"+
		"  - assert_visible: {text: \"A label that is not on this screen at all, so the step fails\", timeout: 300ms}\n"), 0o644))
	code, stdout, stderr := playMain(t, s.Serial(), "play", flow, "--output", out, "--report-html", reportDir)
	require.Equal(t, ExitFailed, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	pages, err := filepath.Glob(filepath.Join(reportDir, "*", "index.html"))
	require.NoError(t, err)
	require.Len(t, pages, 1)
	for _, vp := range []browsertest.Viewport{{Width: 390, Height: 844, Mobile: true}, {Width: 1280, Height: 800}} {
		ctx := browsertest.Browser(t, vp)
		for name, page := range map[string]string{"run": pages[0], "index": filepath.Join(reportDir, "index.html")} {
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("file://"+page)))
			widths, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`[document.scrollingElement.scrollWidth, window.innerWidth]`))
			require.NoError(t, err)
			assert.LessOrEqual(t, widths[0], widths[1], "%s page at %d px: %d px wide", name, vp.Width, widths[0])
			shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(t.ArtifactDir(), fmt.Sprintf("report-%s-%d.png", name, vp.Width)), shot, 0o644))
		}
	}
}
