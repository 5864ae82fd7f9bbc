package device_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
)

// pngWithDot is pngOf's screen with a 6x6 dot at (300, 400): a toggled
// switch's knob, too small to move the 8x8 perceptual hash.
func pngWithDot(t testing.TB, on bool) []byte {
	img, err := png.Decode(bytes.NewReader(pngOf(t, 0, false)))
	require.NoError(t, err)
	rgba := image.NewNRGBA(img.Bounds())
	for y := 0; y < 800; y++ {
		for x := 0; x < 360; x++ {
			rgba.Set(x, y, img.At(x, y))
		}
	}
	if on {
		for y := 400; y < 406; y++ {
			for x := 300; x < 306; x++ {
				rgba.Set(x, y, color.NRGBA{0, 200, 0, 255})
			}
		}
	}
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, rgba))
	return b.Bytes()
}

// warm takes captures of a static screen until one was served from the
// cache, then one more: the phone then holds a kept dump and its next
// capture may reuse it.
func warm(t *testing.T, p *device.Phone) {
	t.Helper()
	for i := 0; i < 4; i++ {
		s, err := p.Capture(context.Background(), device.CaptureOptions{})
		require.NoError(t, err)
		if s.CaptureMetrics.UIElementsSource == screen.SourceCache {
			_, err := p.Capture(context.Background(), device.CaptureOptions{})
			require.NoError(t, err)
			return
		}
	}
	t.Fatal("a static screen never reused its dump")
}

func source(t *testing.T, p *device.Phone, o device.CaptureOptions) string {
	t.Helper()
	s, err := p.Capture(context.Background(), o)
	require.NoError(t, err)
	return s.CaptureMetrics.UIElementsSource
}

// A static screen with no action between captures still reuses the dump.
func TestStaticScreenReusesDump(t *testing.T) {
	f, _ := fakeScreen(t)
	p := device.NewPhone(f, device.Options{})
	warm(t, p)
	assert.Equal(t, screen.SourceCache, source(t, p, device.CaptureOptions{}))
	// Reads in between (the Phone's own queries) are not actions.
	_, err := p.CurrentApp(context.Background())
	require.NoError(t, err)
	_, err = p.Shell(context.Background(), "getprop ro.build.version.sdk")
	require.NoError(t, err)
	assert.Equal(t, screen.SourceFresh, source(t, p, device.CaptureOptions{}), "at most one reuse in a row")
	assert.Equal(t, screen.SourceCache, source(t, p, device.CaptureOptions{}), "reads do not invalidate")
}

// Every way of acting invalidates the kept dump even when the screenshot
// is byte-identical afterwards (the change is not drawn yet, or not at all).
func TestEveryActionInvalidatesTheDump(t *testing.T) {
	f, _ := fakeScreen(t)
	f.OnOutput("input", "")
	f.OnOutput("monkey", "Events injected: 1\n")
	f.OnOutput("am start", "Starting: Intent\n")
	f.OnOutput("echo", "x\n")
	ctx := context.Background()
	acts := map[string]func(p *device.Phone) error{
		"tap": func(p *device.Phone) error {
			_, err := p.Execute(ctx, action.Action{Type: "tap", Params: map[string]any{"x": 10.0, "y": 10.0}}, device.ActOptions{})
			return err
		},
		"swipe": func(p *device.Phone) error {
			_, err := p.Execute(ctx, action.Action{Type: "swipe", Params: map[string]any{"x1": 10.0, "y1": 500.0, "x2": 10.0, "y2": 100.0}}, device.ActOptions{})
			return err
		},
		"keyevent": func(p *device.Phone) error {
			_, err := p.Execute(ctx, action.Action{Type: "keyevent", Params: map[string]any{"keycode": "KEYCODE_BACK"}}, device.ActOptions{})
			return err
		},
		"type":   func(p *device.Phone) error { _, err := p.Type(ctx, "abc"); return err },
		"launch": func(p *device.Phone) error { _, err := p.LaunchApp(ctx, "com.x"); return err },
		"shell action": func(p *device.Phone) error {
			_, err := p.ShellAction(ctx, "echo x")
			return err
		},
		"Phone.Shell with a read before an operator": func(p *device.Phone) error {
			_, err := p.Shell(ctx, "getprop; input tap 1 1")
			return err
		},
		"raw transport": func(p *device.Phone) error {
			_, err := p.Transport().Shell(ctx, "input tap 5 5")
			return err
		},
		"push": func(p *device.Phone) error {
			return p.Transport().Push(ctx, "/sdcard/a.png", []byte("x"), 0o644)
		},
		"wm size change": func(p *device.Phone) error {
			_, err := p.Shell(ctx, "wm size 360x800")
			return err
		},
		"Invalidate": func(p *device.Phone) error { p.Invalidate(); return nil },
	}
	for name, act := range acts {
		t.Run(name, func(t *testing.T) {
			p := device.NewPhone(f, device.Options{})
			warm(t, p)
			g := p.ActionGeneration()
			require.NoError(t, act(p))
			assert.Greater(t, p.ActionGeneration(), g)
			assert.Equal(t, screen.SourceFresh, source(t, p, device.CaptureOptions{}), "the next list is a new dump")
		})
	}
}

// A change the perceptual hash does not see (a switch's knob) is a new
// frame: the dump is taken again, with no action through this Phone (a
// person's finger, another process).
func TestSmallChangeWithoutActionIsANewFrame(t *testing.T) {
	f, st := fakeScreen(t)
	st.set(func(s *screenState) { s.png = pngWithDot(t, false) })
	p := device.NewPhone(f, device.Options{})
	warm(t, p)
	s1, err := p.Capture(context.Background(), device.CaptureOptions{})
	require.NoError(t, err)
	require.Equal(t, screen.SourceCache, s1.CaptureMetrics.UIElementsSource)
	warm(t, p)

	st.set(func(s *screenState) { s.png = pngWithDot(t, true) })
	s2, err := p.Capture(context.Background(), device.CaptureOptions{})
	require.NoError(t, err)
	require.NotNil(t, s2.CaptureMetrics.VisualHashHammingDistance)
	assert.LessOrEqual(t, *s2.CaptureMetrics.VisualHashHammingDistance, 4, "the coarse hash barely moves")
	assert.Equal(t, screen.SourceFresh, s2.CaptureMetrics.UIElementsSource)
}

// When the dump fails after an action, the old list is not offered even
// though the screen looks the same: it may be the state before the action.
func TestNoCacheFallbackAfterAnAction(t *testing.T) {
	f, st := fakeScreen(t)
	f.OnOutput("input", "")
	p := device.NewPhone(f, device.Options{})
	warm(t, p)
	st.set(func(s *screenState) { s.dumpErr = true })
	assert.Equal(t, screen.SourceCacheFallback, source(t, p, device.CaptureOptions{NoCache: true}), "no action: the old list still holds")
	_, err := p.Shell(context.Background(), "input tap 1 1")
	require.NoError(t, err)
	assert.Equal(t, screen.SourceFreshEmpty, source(t, p, device.CaptureOptions{NoCache: true}))
}

// TestFirstLookDumpsAfterItsScreenshot: a phone's first capture has no
// earlier screenshot to vouch that the screen already showed its frame,
// so its dump starts only once its screenshot is in; the dump is then
// bracketed by that frame and the next capture's, and may be reused.
func TestFirstLookDumpsAfterItsScreenshot(t *testing.T) {
	f, st := fakeScreen(t)
	var inShot atomic.Bool
	var overlapped atomic.Bool
	dumpStarted := make(chan struct{}, 8)
	f.On("screencap -p", func(string) (device.ShellResult, error) {
		inShot.Store(true)
		defer inShot.Store(false)
		// Wait a while for a dump to start meanwhile: one that starts
		// beside the screenshot is seen here.
		select {
		case <-dumpStarted:
			overlapped.Store(true)
		case <-time.After(300 * time.Millisecond):
		}
		st.mu.Lock()
		defer st.mu.Unlock()
		return device.ShellResult{Stdout: st.png}, nil
	})
	f.On("uiautomator dump", func(string) (device.ShellResult, error) {
		if inShot.Load() {
			overlapped.Store(true)
		}
		dumpStarted <- struct{}{}
		return device.ShellResult{Stdout: []byte(dumpXML)}, nil
	})
	p := device.NewPhone(f, device.Options{})
	assert.Equal(t, screen.SourceFresh, source(t, p, device.CaptureOptions{}))
	assert.False(t, overlapped.Load(), "the first look's dump ran beside its screenshot")
	assert.Equal(t, screen.SourceCache, source(t, p, device.CaptureOptions{}), "a static screen's second look reuses the first dump")

	// A screen that changed between the two looks is dumped again.
	q := device.NewPhone(f, device.Options{})
	assert.Equal(t, screen.SourceFresh, source(t, q, device.CaptureOptions{}))
	st.set(func(s *screenState) { s.png = pngWithDot(t, true) })
	assert.Equal(t, screen.SourceFresh, source(t, q, device.CaptureOptions{}), "a changed frame is dumped again")
}

// TestSameFrameOnEitherCapturePath: while the capture path is chosen,
// looks alternate between PNG and raw screenshots; a static screen is the
// same frame on both (its pixels, not its bytes), so its dump is reused,
// while one pixel changed in the status bar is a new frame.
func TestSameFrameOnEitherCapturePath(t *testing.T) {
	f, st := fakeScreen(t)
	f.On("screencap", func(cmd string) (device.ShellResult, error) {
		st.mu.Lock()
		defer st.mu.Unlock()
		if cmd == "screencap -p" {
			return device.ShellResult{Stdout: st.png}, nil
		}
		return device.ShellResult{Stdout: rawOf(t, st.png)}, nil
	})
	p := device.NewPhone(f, device.Options{})
	assert.Equal(t, screen.SourceFresh, source(t, p, device.CaptureOptions{}))
	assert.Equal(t, screen.SourceCache, source(t, p, device.CaptureOptions{}), "the raw look of the PNG look's screen reuses its dump")
	require.Len(t, f.CallsWithPrefix("screencap -p"), 1, "the two looks took both paths")

	img, err := png.Decode(bytes.NewReader(pngOf(t, 0, false)))
	require.NoError(t, err)
	bar := image.NewNRGBA(img.Bounds())
	for y := 0; y < 800; y++ {
		for x := 0; x < 360; x++ {
			bar.Set(x, y, img.At(x, y))
		}
	}
	bar.Set(10, 5, color.NRGBA{255, 255, 255, 255}) // a status bar icon
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, bar))
	// After a reuse the next look dumps (and keeps that dump).
	assert.Equal(t, screen.SourceFresh, source(t, p, device.CaptureOptions{}))
	st.set(func(s *screenState) { s.png = b.Bytes() })
	assert.Equal(t, screen.SourceFresh, source(t, p, device.CaptureOptions{}), "a changed status bar is a new frame")
}

func capture(t *testing.T, p *device.Phone) *screen.Snapshot {
	t.Helper()
	s, err := p.Capture(context.Background(), device.CaptureOptions{})
	require.NoError(t, err)
	return s
}
