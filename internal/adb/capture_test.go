package adb_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/sim/android"
)

// TestAdaptiveCapturePicksFasterPath makes one path of the virtual phone
// slower (a per-frame encode delay) and checks that auto mode, after
// measuring both on the first captures, settles on the other one.
func TestAdaptiveCapturePicksFasterPath(t *testing.T) {
	for _, tc := range []struct {
		name string
		slow android.ScreencapOptions
		want string
	}{
		{"slow png encode", android.ScreencapOptions{PNGDelay: 200 * time.Millisecond}, "raw"},
		{"slow raw readback", android.ScreencapOptions{RawDelay: 200 * time.Millisecond}, "png"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, d := openShared(t)
			s.Phone().SetScreencap(tc.slow)
			ctx := context.Background()
			p := device.NewPhone(d, device.Options{CaptureProbes: 2})
			for i := 0; i < 4; i++ {
				_, decided := p.CaptureChoice()
				require.False(t, decided, "decided after only %d captures", i)
				_, err := p.Capture(ctx, device.CaptureOptions{NoCache: true})
				require.NoError(t, err)
			}
			path, decided := p.CaptureChoice()
			require.True(t, decided, "auto mode decides after two captures per path")
			assert.Equal(t, tc.want, path)
			snap, err := p.Capture(ctx, device.CaptureOptions{Scaled: true, SOM: true})
			require.NoError(t, err)
			assert.Equal(t, tc.want == "png", len(snap.Screenshot) > 0, "the device's PNG is kept only on the PNG path")
			assert.NotEmpty(t, snap.SOMScreenshot)
		})
	}
}

// TestRawAndPNGPathsSeeTheSameScreen: both paths through the real adb
// server give the same pixels, hashes and elements, for the 16-byte header
// of Android 9+ and the 12-byte one before.
func TestRawAndPNGPathsSeeTheSameScreen(t *testing.T) {
	s, d := openShared(t)
	ctx := context.Background()
	pngPhone := device.NewPhone(d, device.Options{Capture: device.CapturePNG})
	_, err := pngPhone.LaunchApp(ctx, "com.android.settings")
	require.NoError(t, err)
	want, err := pngPhone.Capture(ctx, device.CaptureOptions{NoCache: true, SOM: true})
	require.NoError(t, err)
	for _, legacy := range []bool{false, true} {
		s.Phone().SetScreencap(android.ScreencapOptions{LegacyHeader: legacy})
		raw := device.NewPhone(d, device.Options{Capture: device.CaptureRaw})
		got, err := raw.Capture(ctx, device.CaptureOptions{NoCache: true, SOM: true})
		require.NoError(t, err, "legacy=%v", legacy)
		assert.Empty(t, got.Screenshot, "no PNG is made on the raw path until asked")
		assert.Equal(t, want.CaptureMetrics.VisualHash, got.CaptureMetrics.VisualHash)
		assert.Equal(t, want.ContentHash, got.ContentHash)
		assert.Equal(t, want.UIElements, got.UIElements)
		assert.Equal(t, want.SOMScreenshot, got.SOMScreenshot, "same pixels, same model image")
		png, err := got.FullPNG()
		require.NoError(t, err)
		img, err := screen.DecodePNG(png)
		require.NoError(t, err)
		assert.Equal(t, want.ContentHash, screen.ContentHash(img), "the full PNG made on demand holds the frame")
	}
}
