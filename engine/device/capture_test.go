package device_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"image"
	"image/jpeg"
	stdpng "image/png"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
)

// TestCaptureReusesThePostActionLook: the look taken after an action leaves
// its frame behind; the next capture of the unchanged screen reuses it (no
// second decode), and a capture after that reuses the encoded model image.
func TestCaptureReusesThePostActionLook(t *testing.T) {
	f, st := fakeScreen(t)
	p := device.NewPhone(f, device.Options{Capture: device.CapturePNG})
	ctx := context.Background()
	_, err := p.Observe(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, device.FramesMade(p))

	s1, err := p.Capture(ctx, device.CaptureOptions{SOM: true, Scaled: true})
	require.NoError(t, err)
	assert.EqualValues(t, 1, device.FramesMade(p), "the capture reused the look's frame")
	s2, err := p.Capture(ctx, device.CaptureOptions{SOM: true, Scaled: true})
	require.NoError(t, err)
	assert.EqualValues(t, 1, device.FramesMade(p))
	require.NotEmpty(t, s1.SOMScreenshot)
	assert.Same(t, &s1.SOMScreenshot[0], &s2.SOMScreenshot[0], "the set-of-mark image was encoded once")

	st.set(func(s *screenState) { s.png = pngOf(t, 200, false) })
	s3, err := p.Capture(ctx, device.CaptureOptions{SOM: true, Scaled: true})
	require.NoError(t, err)
	assert.EqualValues(t, 2, device.FramesMade(p), "a changed screen is decoded")
	assert.NotEqual(t, s1.ContentHash, s3.ContentHash)
}

// TestCapturePNGFormatAndPlainImage: a PNG profile gets PNG model images,
// and without elements the plain scaled image stands in for the overlay.
func TestCapturePNGFormatAndPlainImage(t *testing.T) {
	f, st := fakeScreen(t)
	st.set(func(s *screenState) { s.dumpErr = true })
	p := device.NewPhone(f, device.Options{Image: screen.ImageEncoding{Format: screen.FormatPNG}, Capture: device.CapturePNG})
	s, err := p.Capture(context.Background(), device.CaptureOptions{SOM: true})
	require.NoError(t, err)
	assert.Empty(t, s.UIElements)
	assert.Empty(t, s.SOMScreenshot)
	assert.Equal(t, "image/png", screen.SniffImageMIME(s.ScaledScreenshot))
	assert.Equal(t, screen.FormatPNG, s.ImageFormat)
	img, err := screen.DecodePNG(s.ScaledScreenshot)
	require.NoError(t, err)
	assert.Equal(t, [2]int{s.ScaledWidth, s.ScaledHeight}, [2]int{img.Bounds().Dx(), img.Bounds().Dy()})
}

// TestFullPNGOnDemand: on the raw path the full-size PNG exists only once
// asked for, and holds the captured frame.
func TestFullPNGOnDemand(t *testing.T) {
	f, _ := fakeScreen(t)
	raw := rawOf(t, pngOf(t, 100, false))
	f.On("screencap", func(cmd string) (device.ShellResult, error) {
		if cmd != "screencap" {
			return device.ShellResult{}, errors.New("unexpected " + cmd)
		}
		return device.ShellResult{Stdout: raw}, nil
	})
	p := device.NewPhone(f, device.Options{Capture: device.CaptureRaw})
	s, err := p.Capture(context.Background(), device.CaptureOptions{FullPNG: true})
	require.NoError(t, err)
	assert.Empty(t, s.Screenshot)
	png, err := s.FullPNG()
	require.NoError(t, err)
	img, err := screen.DecodePNG(png)
	require.NoError(t, err)
	assert.Equal(t, s.ContentHash, screen.ContentHash(img))
	assert.Equal(t, 360, img.Bounds().Dx())
}

// rawOf turns a PNG into raw screencap output (16-byte header, RGBA rows).
func rawOf(t *testing.T, png []byte) []byte {
	t.Helper()
	img, err := screen.DecodePNG(png)
	require.NoError(t, err)
	b := img.Bounds()
	out := make([]byte, 16, 16+4*b.Dx()*b.Dy())
	binary.LittleEndian.PutUint32(out[0:], uint32(b.Dx()))
	binary.LittleEndian.PutUint32(out[4:], uint32(b.Dy()))
	binary.LittleEndian.PutUint32(out[8:], 1)
	binary.LittleEndian.PutUint32(out[12:], 1)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			out = append(out, byte(r>>8), byte(g>>8), byte(bl>>8), byte(a>>8))
		}
	}
	return out
}

// TestModelImageIsTheSmallerEncoding: without a format in the profile the
// model gets whichever of PNG and JPEG is smaller for the frame — PNG for
// a flat UI screen, JPEG for photo-like noise — and a profile's explicit
// format is kept even when it is the bigger one.
func TestModelImageIsTheSmallerEncoding(t *testing.T) {
	ctx := context.Background()
	sizes := func(snap *screen.Snapshot) (png, jpg int) {
		t.Helper()
		img := decoded(t, snap.ScaledScreenshot)
		p, err := screen.EncodePNG(img)
		require.NoError(t, err)
		j, err := screen.EncodeJPEG(img, screen.DefaultJPEGQuality)
		require.NoError(t, err)
		return len(p), len(j)
	}
	for _, tc := range []struct {
		name   string
		screen []byte
		want   screen.ImageFormat
	}{
		{"flat UI", pngOf(t, 0, false), screen.FormatPNG},
		{"photo", noisePNG(t, 360, 800), screen.FormatJPEG},
	} {
		f, st := fakeScreen(t)
		st.set(func(s *screenState) { s.png, s.dumpErr = tc.screen, true })
		p := device.NewPhone(f, device.Options{Capture: device.CapturePNG})
		snap, err := p.Capture(ctx, device.CaptureOptions{Scaled: true})
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, snap.ImageFormat, tc.name)
		assert.Equal(t, tc.want.MIME(), screen.SniffImageMIME(snap.ScaledScreenshot), tc.name)
		png, jpg := sizes(snap)
		assert.LessOrEqual(t, len(snap.ScaledScreenshot), max(png, jpg), tc.name)
		if tc.want == screen.FormatJPEG {
			assert.Less(t, len(snap.ScaledScreenshot), png, "%s: the JPEG was the smaller", tc.name)
		}

		explicit := device.NewPhone(f, device.Options{Capture: device.CapturePNG,
			Image: screen.ImageEncoding{Format: screen.FormatJPEG}})
		snap, err = explicit.Capture(ctx, device.CaptureOptions{Scaled: true})
		require.NoError(t, err)
		assert.Equal(t, screen.FormatJPEG, snap.ImageFormat, "%s: the profile's format is kept", tc.name)
		assert.Equal(t, "image/jpeg", screen.SniffImageMIME(snap.ScaledScreenshot))
	}
}

// decoded decodes a model image of either format.
func decoded(t *testing.T, b []byte) image.Image {
	t.Helper()
	var img image.Image
	var err error
	if screen.SniffImageMIME(b) == "image/png" {
		img, err = screen.DecodePNG(b)
	} else {
		img, err = jpeg.Decode(bytes.NewReader(b))
	}
	require.NoError(t, err)
	return img
}

// noisePNG is a w×h PNG of random pixels: nothing PNG compresses.
func noisePNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = uint8(r.Uint32())
		if i%4 == 3 {
			img.Pix[i] = 0xFF
		}
	}
	var buf bytes.Buffer
	require.NoError(t, stdpng.Encode(&buf, img))
	return buf.Bytes()
}

// TestRawCaptureReusesAnUnchangedFrame: on the raw path a capture of the
// same pixels reuses the last frame (found by the content and bands hashes
// a new frame needs anyway), and a pixel changed in the status bar or in
// the content makes a new one.
func TestRawCaptureReusesAnUnchangedFrame(t *testing.T) {
	f, _ := fakeScreen(t)
	raw := rawOf(t, pngOf(t, 100, false))
	var mu sync.Mutex
	f.On("screencap", func(cmd string) (device.ShellResult, error) {
		if cmd != "screencap" {
			return device.ShellResult{}, errors.New("unexpected " + cmd)
		}
		mu.Lock()
		defer mu.Unlock()
		return device.ShellResult{Stdout: append([]byte(nil), raw...)}, nil // a fresh buffer, as from the wire
	})
	p := device.NewPhone(f, device.Options{Capture: device.CaptureRaw})
	ctx := context.Background()
	capture := func() *screen.Snapshot {
		t.Helper()
		s, err := p.Capture(ctx, device.CaptureOptions{Scaled: true})
		require.NoError(t, err)
		return s
	}
	s1 := capture()
	capture()
	assert.EqualValues(t, 1, device.FramesMade(p), "the same pixels are the same frame")
	const w = 360
	for i, y := range []int{5, 400} { // the status bar, then the content
		mu.Lock()
		raw[16+4*(y*w+7)] ^= 0x40
		mu.Unlock()
		s := capture()
		assert.EqualValues(t, 2+i, device.FramesMade(p), "a pixel changed in row %d", y)
		if y == 400 {
			assert.NotEqual(t, s1.ContentHash, s.ContentHash)
		}
	}
}
