package android

import (
	"context"
	"encoding/binary"
	"strings"
	"time"
)

// Raw screencap format (frameworks/base/cmds/screencap/screencap.cpp): a
// little-endian header of width, height and pixel format — followed since
// Android 9 (API 28) by the colour space — then the rows, width ×
// bytes-per-pixel each, without stride padding.
const (
	pixelFormatRGBA8888 = 1 // PIXEL_FORMAT_RGBA_8888
	colorSpaceSRGB      = 1 // COLORSPACE_SRGB
	rawHeaderLegacy     = 12
	rawHeader           = 16
)

// ScreencapOptions make the virtual phone's screencap behave like a given
// device. The zero value is a fast Android 14 phone.
type ScreencapOptions struct {
	// PNGDelay is added to every `screencap -p`: a real phone encodes each
	// frame to PNG on its own CPU, which takes hundreds of milliseconds.
	PNGDelay time.Duration
	// RawDelay is added to every raw `screencap` (reading back the frame).
	RawDelay time.Duration
	// LegacyHeader writes the 12-byte header of Android 8.1 and older (no
	// colour space field) instead of the 16-byte one.
	LegacyHeader bool
}

// SetScreencap changes how screencap answers from now on.
func (p *Phone) SetScreencap(o ScreencapOptions) { p.locked(func() { p.capture = o }) }

// screencap [-p] [-d display] [FILE]: PNG with -p or a .png file name,
// otherwise the raw dump (header + RGBA rows) in the real format.
func cmdScreencap(ctx context.Context, p *Phone, c *cmdIO) int {
	asPNG := false
	var file string
	args := c.args[1:]
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-p":
			asPNG = true
		case a == "-d" && i+1 < len(args):
			i++
		case a == "-h":
			c.errorf("usage: screencap [-hp] [-d display-id] [FILENAME]")
			return 0
		case strings.HasPrefix(a, "-"):
			c.errorf("usage: screencap [-hp] [-d display-id] [FILENAME]")
			return 1
		default:
			file = a
		}
	}
	if strings.HasSuffix(file, ".png") {
		asPNG = true
	}
	var header []byte
	var body []byte // immutable once cached: safe to use after unlock
	p.mu.Lock()
	cfg := p.capture
	if asPNG {
		body = p.pngLocked()
	} else {
		img := p.imageLocked()
		header = rawScreencapHeader(img.Rect.Dx(), img.Rect.Dy(), cfg.LegacyHeader)
		body = img.Pix
	}
	p.mu.Unlock()
	delay := cfg.RawDelay
	if asPNG {
		delay = cfg.PNGDelay
	}
	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return 130
		}
	}
	if file == "" {
		c.stdout.Write(header)
		c.stdout.Write(body)
		return 0
	}
	if err := p.fs.writeNew(file, append(header, body...)); err != nil {
		c.errorf("Error opening file: %s (%s)", file, errText(err))
		return 1
	}
	return 0
}

// rawScreencapHeader is the header raw screencap writes before the pixels.
func rawScreencapHeader(w, h int, legacy bool) []byte {
	n := rawHeader
	if legacy {
		n = rawHeaderLegacy
	}
	b := make([]byte, n)
	binary.LittleEndian.PutUint32(b[0:], uint32(w))
	binary.LittleEndian.PutUint32(b[4:], uint32(h))
	binary.LittleEndian.PutUint32(b[8:], pixelFormatRGBA8888)
	if !legacy {
		binary.LittleEndian.PutUint32(b[12:], colorSpaceSRGB)
	}
	return b
}
