// Package browsertest starts a headless Chromium for the web pages' tests
// (Debian package chromium, installed by make setup; flags for this
// machine's closed network) and saves screenshots of what a person sees.
// Test support only: no production code imports it.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Viewport is the page size a test looks through; Mobile emulates a
// phone (touch, device scale 2).
type Viewport struct {
	Width, Height int
	Mobile        bool
}

// Phone is a phone-sized viewport (412×915, as a Pixel 7 reports).
var Phone = Viewport{Width: 412, Height: 915, Mobile: true}

// Browser returns a chromedp context on a fresh headless Chromium (its own
// profile directory) showing vp. Without chromium the test is skipped
// outside CI and fails in CI.
func Browser(t testing.TB, vp Viewport) context.Context {
	t.Helper()
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed (make setup installs it)")
		}
		t.Skip("chromium is not installed; run make setup")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(vp.Width, vp.Height),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelT(); cancelB(); cancelA() })
	emulate := []chromedp.EmulateViewportOption{}
	if vp.Mobile {
		emulate = append(emulate, chromedp.EmulateScale(2), chromedp.EmulateMobile)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(vp.Width), int64(vp.Height), emulate...)); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// Screenshot saves the full page as <dir>/<name>.png (PNG: quality 100), dir being
// $OPENPOCKET_TEST_ARTIFACTS or the package's testdata/out (not in git),
// and logs the path.
func Screenshot(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	dir := os.Getenv("OPENPOCKET_TEST_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("testdata", "out")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(path)
	t.Logf("screenshot: %s", abs)
}
