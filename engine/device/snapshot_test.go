package device_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/device/devicetest"
	"github.com/openpocket/openpocket/engine/screen"
)

// pngOf renders a 360x800 test screen: black, or with a white block whose
// position makes visually different screens.
func pngOf(t testing.TB, blockX int, black bool) []byte {
	return pngSized(t, 360, 800, blockX, black)
}

// pngSized renders pngOf's screen stretched to w x h.
func pngSized(t testing.TB, w, h, blockX int, black bool) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.NRGBA{30, 60, 90, 255}
			sx, sy := x*360/w, y*800/h
			if black {
				c = color.NRGBA{0, 0, 0, 255}
			} else if sx >= blockX && sx < blockX+120 && sy > 200 && sy < 600 {
				c = color.NRGBA{250, 250, 250, 255}
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

const dumpXML = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.x" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][360,800]"><node index="0" text="Save" resource-id="com.x:id/save" class="android.widget.Button" package="com.x" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[20,700][340,780]" /></node></hierarchy>
UI hierchary dumped to: /dev/tty`

type screenState struct {
	mu      sync.Mutex
	png     []byte
	app     string
	dumpErr bool
	secure  bool
}

func (s *screenState) set(fn func(*screenState)) { s.mu.Lock(); fn(s); s.mu.Unlock() }

func fakeScreen(t *testing.T) (*devicetest.Fake, *screenState) {
	st := &screenState{png: pngOf(t, 0, false), app: "com.x"}
	f := devicetest.New()
	f.OnOutput("wm size", "Physical size: 360x800\n")
	f.On("screencap -p", func(string) (device.ShellResult, error) {
		st.mu.Lock()
		defer st.mu.Unlock()
		return device.ShellResult{Stdout: st.png}, nil
	})
	f.On("dumpsys activity activities", func(string) (device.ShellResult, error) {
		st.mu.Lock()
		defer st.mu.Unlock()
		return device.ShellResult{Stdout: []byte("  topResumedActivity=ActivityRecord{1 u0 " + st.app + "/.Main t1}\n")}, nil
	})
	f.On("dumpsys window windows", func(string) (device.ShellResult, error) {
		st.mu.Lock()
		defer st.mu.Unlock()
		flags := "fl=LAYOUT_IN_SCREEN"
		if st.secure {
			flags += " SECURE"
		}
		return device.ShellResult{Stdout: []byte("  Window #1 Window{a u0 " + st.app + "/" + st.app + ".Main}:\n    mAttrs={" + flags + "}\n")}, nil
	})
	f.On("uiautomator dump", func(string) (device.ShellResult, error) {
		st.mu.Lock()
		defer st.mu.Unlock()
		if st.dumpErr {
			return device.ShellResult{}, errors.New("ERROR: could not get idle state")
		}
		return device.ShellResult{Stdout: []byte(dumpXML)}, nil
	})
	f.On("cat /sdcard/window_dump.xml", func(string) (device.ShellResult, error) {
		return device.ShellResult{}, errors.New("no file")
	})
	f.OnOutput("pm query-activities", "    packageName=com.x\n")
	return f, st
}

func TestCaptureCachePaths(t *testing.T) {
	f, st := fakeScreen(t)
	p := device.NewPhone(f, device.Options{})
	ctx := context.Background()

	s1, err := p.Capture(ctx, device.CaptureOptions{Scaled: true, SOM: true, Installed: true})
	require.NoError(t, err)
	m := s1.CaptureMetrics
	assert.Equal(t, screen.SourceFresh, m.UIElementsSource)
	assert.Equal(t, "com.x", s1.CurrentApp)
	assert.Equal(t, [2]int{360, 800}, [2]int{s1.Width, s1.Height})
	assert.Nil(t, m.VisualHashHammingDistance, "no previous capture")
	assert.Len(t, m.VisualHash, 16)
	require.Len(t, s1.UIElements, 1)
	assert.Equal(t, "Save", s1.UIElements[0].Text)
	assert.Equal(t, []string{"com.x"}, s1.InstalledPackages)
	assert.Equal(t, s1.ImageFormat.MIME(), screen.SniffImageMIME(s1.SOMScreenshot), "the format names the model image's bytes")
	assert.Empty(t, s1.ScaledScreenshot, "the plain scaled image is not encoded when the model reads the set-of-mark one")

	// The first look's dump is kept: its screenshot was taken before the
	// dump started (TestFirstLookDumpsAfterItsScreenshot), and this look's
	// screenshot is the same frame.
	dumps := len(f.CallsWithPrefix("uiautomator dump"))

	s2, err := p.Capture(ctx, device.CaptureOptions{})
	require.NoError(t, err)
	assert.Equal(t, screen.SourceCache, s2.CaptureMetrics.UIElementsSource)
	assert.Equal(t, dumps, len(f.CallsWithPrefix("uiautomator dump")), "cache hit skips the dump")
	require.NotNil(t, s2.CaptureMetrics.VisualHashHammingDistance)
	assert.Equal(t, 0, *s2.CaptureMetrics.VisualHashHammingDistance)

	s3, err := p.Capture(ctx, device.CaptureOptions{})
	require.NoError(t, err)
	assert.Equal(t, screen.SourceFresh, s3.CaptureMetrics.UIElementsSource, "at most one reuse in a row")

	st.set(func(s *screenState) { s.dumpErr = true })
	s4, err := p.Capture(ctx, device.CaptureOptions{NoCache: true})
	require.NoError(t, err)
	assert.Equal(t, screen.SourceCacheFallback, s4.CaptureMetrics.UIElementsSource, "dump failed, screen unchanged")
	assert.Len(t, s4.UIElements, 1)

	st.set(func(s *screenState) { s.png = pngOf(t, 240, false) })
	s5, err := p.Capture(ctx, device.CaptureOptions{NoCache: true})
	require.NoError(t, err)
	assert.Equal(t, screen.SourceFreshEmpty, s5.CaptureMetrics.UIElementsSource, "dump failed, screen changed")
	assert.Empty(t, s5.UIElements)
	assert.Greater(t, *s5.CaptureMetrics.VisualHashHammingDistance, 4)

	st.set(func(s *screenState) { s.dumpErr = false; s.app = "com.y" })
	s6, err := p.Capture(ctx, device.CaptureOptions{})
	require.NoError(t, err)
	assert.Equal(t, screen.SourceFresh, s6.CaptureMetrics.UIElementsSource)
	assert.Equal(t, "com.y", s6.CurrentApp)
	assert.Equal(t, 1, len(f.CallsWithPrefix("pm query-activities")), "installed packages fetched once")
}

func TestCaptureSecureSurfaceBypassesCache(t *testing.T) {
	f, st := fakeScreen(t)
	p := device.NewPhone(f, device.Options{})
	ctx := context.Background()
	st.set(func(s *screenState) { s.png = pngOf(t, 0, true); s.secure = true })
	s1, err := p.Capture(ctx, device.CaptureOptions{})
	require.NoError(t, err)
	assert.True(t, s1.SecureSurface)
	s2, err := p.Capture(ctx, device.CaptureOptions{})
	require.NoError(t, err)
	assert.True(t, s2.SecureSurface)
	assert.Equal(t, screen.SourceFresh, s2.CaptureMetrics.UIElementsSource, "a black secure screen never reuses the cache")
}

func TestObserveStateDelta(t *testing.T) {
	f, st := fakeScreen(t)
	f.On("input tap", func(string) (device.ShellResult, error) {
		st.set(func(s *screenState) { s.png = pngOf(t, 240, false); s.app = "com.y" })
		return device.ShellResult{}, nil
	})
	p := device.NewPhone(f, device.Options{SettleInterval: 1})
	ctx := context.Background()
	snap, err := p.Capture(ctx, device.CaptureOptions{})
	require.NoError(t, err)
	out, err := p.Execute(ctx, act("tap", map[string]any{"x": 10, "y": 10}), device.ActOptions{Snapshot: snap, Observe: true})
	require.NoError(t, err)
	assert.True(t, out.Changed)
	assert.Contains(t, out.Result, "state_delta changed=true app=com.x->com.y")

	snap, err = p.Capture(ctx, device.CaptureOptions{})
	require.NoError(t, err)
	out, err = p.Execute(ctx, act("tap", map[string]any{"x": 10, "y": 10}), device.ActOptions{Snapshot: snap, Observe: true})
	require.NoError(t, err)
	assert.False(t, out.Changed)
	assert.Contains(t, out.Result, "state_delta changed=false app=com.y->com.y")
}

// blockingTransport makes the UI dump and the activity dump hang until
// their context ends, and counts calls still running.
type blockingTransport struct {
	*devicetest.Fake
	running atomic.Int32
}

func (b *blockingTransport) block(ctx context.Context) error {
	b.running.Add(1)
	defer b.running.Add(-1)
	<-ctx.Done()
	return ctx.Err()
}

func (b *blockingTransport) ExecOut(ctx context.Context, cmd string) ([]byte, error) {
	if strings.HasPrefix(cmd, "uiautomator") {
		return nil, b.block(ctx)
	}
	return b.Fake.ExecOut(ctx, cmd)
}

func (b *blockingTransport) Shell(ctx context.Context, cmd string) (device.ShellResult, error) {
	if strings.HasPrefix(cmd, "dumpsys") || strings.HasPrefix(cmd, "pm ") {
		return device.ShellResult{}, b.block(ctx)
	}
	return b.Fake.Shell(ctx, cmd)
}

func TestCaptureErrorStopsBackgroundWork(t *testing.T) {
	f, st := fakeScreen(t)
	st.set(func(s *screenState) { s.png = []byte("not a png") })
	f.OnExit("screencap -p /", "", "screencap: permission denied", 1)
	tr := &blockingTransport{Fake: f}
	p := device.NewPhone(tr, device.Options{})
	done := make(chan error, 1)
	go func() {
		_, err := p.Capture(context.Background(), device.CaptureOptions{Installed: true})
		done <- err
	}()
	select {
	case err := <-done:
		assert.ErrorContains(t, err, "permission denied")
	case <-time.After(5 * time.Second):
		t.Fatal("Capture waited for the UI dump after the screenshot failed")
	}
	assert.Zero(t, tr.running.Load(), "no round trip outlives Capture")
}

func TestCaptureFallbackNeedsSameSize(t *testing.T) {
	f, st := fakeScreen(t)
	p := device.NewPhone(f, device.Options{})
	ctx := context.Background()
	s1, err := p.Capture(ctx, device.CaptureOptions{})
	require.NoError(t, err)
	require.Equal(t, screen.SourceFresh, s1.CaptureMetrics.UIElementsSource)

	// The same picture at twice the resolution, and the dump fails: the
	// cached bounds belong to the old size and must not be offered.
	st.set(func(s *screenState) { s.png = pngSized(t, 720, 1600, 0, false); s.dumpErr = true })
	f.OnOutput("wm size", "Physical size: 720x1600\n")
	s2, err := p.Capture(ctx, device.CaptureOptions{NoCache: true})
	require.NoError(t, err)
	require.LessOrEqual(t, *s2.CaptureMetrics.VisualHashHammingDistance, 4, "the screens look alike")
	assert.Equal(t, screen.SourceFreshEmpty, s2.CaptureMetrics.UIElementsSource)
	assert.Empty(t, s2.UIElements)
}

func TestCaptureRotatedFollowsTheScreenshot(t *testing.T) {
	f, st := fakeScreen(t)
	f.OnOutput("input ", "")
	st.set(func(s *screenState) { s.png = pngSized(t, 800, 360, 0, false) })
	p := device.NewPhone(f, device.Options{})
	ctx := context.Background()
	for range 2 {
		snap, err := p.Capture(ctx, device.CaptureOptions{NoCache: true})
		require.NoError(t, err)
		assert.Equal(t, [2]int{800, 360}, [2]int{snap.Width, snap.Height})
		assert.InDelta(t, 800.0/float64(snap.ScaledWidth), snap.ScaleX, 1e-9)
		assert.InDelta(t, 360.0/float64(snap.ScaledHeight), snap.ScaleY, 1e-9)
	}
	assert.Len(t, f.CallsWithPrefix("wm size"), 1, "a rotated screen is not a resized one: no wm size per capture")
	_, err := p.Execute(ctx, act("tap", map[string]any{"x": 700, "y": 300}), device.ActOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"input tap 700 300"}, f.CallsWithPrefix("input tap"), "clamped to the rotated screen")
}
