package android

import (
	"bytes"
	"context"
	"encoding/binary"
	"image/png"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func screencapOut(t *testing.T, p *Phone, cmdline string) []byte {
	t.Helper()
	var out bytes.Buffer
	require.Equal(t, 0, p.Shell(context.Background(), cmdline, nil, &out, io.Discard), cmdline)
	return out.Bytes()
}

func TestRawScreencapMatchesPNGPixels(t *testing.T) {
	p := New(Options{Width: 320, Height: 640, Density: 160})
	launch(t, p, PkgSettings)
	raw := screencapOut(t, p, "screencap")
	require.Len(t, raw, 16+320*640*4, "16-byte header (Android 9+) and RGBA rows")
	assert.Equal(t, uint32(320), binary.LittleEndian.Uint32(raw[0:]))
	assert.Equal(t, uint32(640), binary.LittleEndian.Uint32(raw[4:]))
	assert.Equal(t, uint32(1), binary.LittleEndian.Uint32(raw[8:]), "PIXEL_FORMAT_RGBA_8888")
	assert.Equal(t, uint32(1), binary.LittleEndian.Uint32(raw[12:]), "COLORSPACE_SRGB")

	img, err := png.Decode(bytes.NewReader(screencapOut(t, p, "screencap -p")))
	require.NoError(t, err)
	for _, pt := range [][2]int{{0, 0}, {160, 100}, {319, 639}, {40, 300}} {
		r, g, b, _ := img.At(pt[0], pt[1]).RGBA()
		i := 16 + (pt[1]*320+pt[0])*4
		assert.Equal(t, []byte{byte(r >> 8), byte(g >> 8), byte(b >> 8), 255}, raw[i:i+4], "pixel %v", pt)
	}

	p.SetScreencap(ScreencapOptions{LegacyHeader: true})
	legacy := screencapOut(t, p, "screencap")
	require.Len(t, legacy, 12+320*640*4, "12-byte header before Android 9")
	assert.Equal(t, raw[16:], legacy[12:])
}

func TestScreencapDelaysArePerPath(t *testing.T) {
	p := New(Options{Width: 64, Height: 128, Density: 160})
	p.SetScreencap(ScreencapOptions{PNGDelay: 300 * time.Millisecond})
	t0 := time.Now()
	screencapOut(t, p, "screencap")
	rawTook := time.Since(t0)
	t1 := time.Now()
	screencapOut(t, p, "screencap -p")
	pngTook := time.Since(t1)
	assert.GreaterOrEqual(t, pngTook, 150*time.Millisecond)
	assert.Less(t, rawTook, 150*time.Millisecond)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	p.SetScreencap(ScreencapOptions{RawDelay: time.Minute})
	code := p.Shell(ctx, "screencap", nil, io.Discard, io.Discard)
	assert.NotEqual(t, 0, code, "a cancelled capture fails instead of waiting out the delay")
}
