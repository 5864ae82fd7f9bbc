package imagecodec

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// filteredPNG writes an 8-bit RGB (bpp 3) or RGBA (bpp 4) PNG whose row y
// uses filter type y%5, split over several IDAT chunks: every filter the
// row decoder reverses, as real encoders mix them.
func filteredPNG(t testing.TB, w, h, bpp int, pix func(x, y int) [4]byte) []byte {
	t.Helper()
	rowLen := w * bpp
	raw := make([][]byte, h)
	for y := range raw {
		raw[y] = make([]byte, rowLen)
		for x := 0; x < w; x++ {
			p := pix(x, y)
			copy(raw[y][x*bpp:], p[:bpp])
		}
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	prev := make([]byte, rowLen)
	for y, cur := range raw {
		ft := byte(y % 5)
		out := make([]byte, rowLen)
		for i := range cur {
			var a, c byte
			if i >= bpp {
				a, c = cur[i-bpp], prev[i-bpp]
			}
			b := prev[i]
			switch ft {
			case 0:
				out[i] = cur[i]
			case 1:
				out[i] = cur[i] - a
			case 2:
				out[i] = cur[i] - b
			case 3:
				out[i] = cur[i] - byte((int(a)+int(b))/2)
			case 4:
				pa, pb, pc := abs(int(b)-int(c)), abs(int(a)-int(c)), abs(int(a)+int(b)-2*int(c))
				pred := c
				if pa <= pb && pa <= pc {
					pred = a
				} else if pb <= pc {
					pred = b
				}
				out[i] = cur[i] - pred
			}
		}
		zw.Write([]byte{ft})
		zw.Write(out)
		prev = cur
	}
	zw.Close()
	var buf bytes.Buffer
	buf.WriteString("\x89PNG\r\n\x1a\n")
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 8, map[int]byte{3: 2, 4: 6}[bpp]
	writeChunk(&buf, "IHDR", ihdr[:])
	data := z.Bytes()
	for len(data) > 0 { // IDAT chunks of 100 bytes
		n := min(100, len(data))
		writeChunk(&buf, "IDAT", data[:n])
		data = data[n:]
	}
	writeChunk(&buf, "IEND", nil)
	return buf.Bytes()
}

// encodings is what a screenshot PNG looks like from the encoders in play:
// image/png at each level (RGB for an opaque image, RGBA with alpha) and
// every filter, in small IDAT chunks.
func encodings(tb testing.TB) map[string][]byte {
	out := map[string][]byte{}
	pattern := func(x, y int) [4]byte {
		return [4]byte{byte(x*7 + y), byte(x ^ y*3), byte(200 - x), byte(255 - (x*y)%7*30)}
	}
	for _, bpp := range []int{3, 4} {
		for _, size := range []image.Point{{1, 1}, {3, 200}, {97, 61}, {300, 150}} {
			out[fmt.Sprintf("filters %d bpp %v", bpp, size)] = filteredPNG(tb, size.X, size.Y, bpp, pattern)
		}
	}
	for _, alpha := range []bool{false, true} {
		for _, level := range []png.CompressionLevel{png.BestSpeed, png.DefaultCompression, png.BestCompression} {
			var b bytes.Buffer
			if err := (&png.Encoder{CompressionLevel: level}).Encode(&b, screenLike(180, 400, alpha)); err != nil {
				tb.Fatal(err)
			}
			out[fmt.Sprintf("image/png level %d alpha %v", level, alpha)] = b.Bytes()
		}
	}
	return out
}

func TestDecodePNGRowsMatchesImagePNG(t *testing.T) {
	for name, b := range encodings(t) {
		if !compareWithImagePNG(t, name, b) {
			t.Errorf("%s: left to image/png", name)
		}
		if _, err := png.Decode(bytes.NewReader(b)); err != nil {
			t.Fatalf("%s: the test PNG itself is bad: %v", name, err)
		}
	}
}

func TestDecodePNGRowsLeavesOtherPNGsToImagePNG(t *testing.T) {
	var gray, paletted, interlaced, trns bytes.Buffer
	png.Encode(&gray, image.NewGray(image.Rect(0, 0, 10, 10)))
	png.Encode(&paletted, image.NewPaletted(image.Rect(0, 0, 10, 10), []color.Color{color.Black, color.White}))
	// Adam7: IHDR's last byte set (the rows then do not parse as plain
	// ones, which is the point: they must not be tried).
	plain := filteredPNG(t, 8, 8, 3, func(x, y int) [4]byte { return [4]byte{1, 2, 3, 4} })
	interlaced.Write(plain)
	interlaced.Bytes()[8+8+12] = 1
	// tRNS names a transparent colour image/png honours.
	trns.Write(plain[:8+25])
	writeChunk(&trns, "tRNS", []byte{0, 1, 0, 2, 0, 3})
	trns.Write(plain[8+25:])
	for name, b := range map[string][]byte{"gray": gray.Bytes(), "paletted": paletted.Bytes(), "interlaced": interlaced.Bytes(), "tRNS": trns.Bytes()} {
		called := false
		err := DecodePNGRows(b, func(w, h int) PNGRowFunc { called = true; return func(int, []byte, bool) {} })
		if !errors.Is(err, ErrNotScreenPNG) || called {
			t.Errorf("%s: err %v, begin called %v; want ErrNotScreenPNG before any row", name, err, called)
		}
	}
}

func TestDecodePNGRowsErrors(t *testing.T) {
	good := filteredPNG(t, 20, 20, 3, func(x, y int) [4]byte { return [4]byte{1, 2, 3, 4} })
	// The zlib trailer cut short.
	var short bytes.Buffer
	short.Write(good[:8+25])
	idat := good[8+25:]
	var payload []byte
	for len(idat) > 12 && string(idat[4:8]) == "IDAT" {
		n := int(binary.BigEndian.Uint32(idat))
		payload = append(payload, idat[8:8+n]...)
		idat = idat[12+n:]
	}
	writeChunk(&short, "IDAT", payload[:len(payload)-2])
	writeChunk(&short, "IEND", nil)
	for name, in := range map[string][]byte{
		"truncated":     good[:len(good)/2],
		"garbage":       []byte("GIF89a....."),
		"empty":         nil,
		"short trailer": short.Bytes(),
	} {
		if _, err := decodeAll(t, in); err == nil || errors.Is(err, ErrNotScreenPNG) {
			t.Errorf("%s: err = %v, want a decoding error", name, err)
		}
		if _, err := png.Decode(bytes.NewReader(in)); err == nil {
			t.Errorf("%s: image/png decodes it: a bad test case", name)
		}
	}
}

// FuzzDecodePNGRows: whatever the bytes, DecodePNGRows leaves them to
// image/png, or both fail, or both give the same pixels (differential, with
// image/png as the reference).
func FuzzDecodePNGRows(f *testing.F) {
	for _, b := range encodings(f) {
		if len(b) < 4<<10 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<20 {
			return
		}
		// Keep each run fast: a few bytes of deflate inflate to megapixels
		// (a claimed 2048×2048 stalled the fuzzer to a few runs a minute).
		// 64K pixels still span several of the decoder's 64 KiB chunks.
		if len(b) >= 24 && uint64(binary.BigEndian.Uint32(b[16:]))*uint64(binary.BigEndian.Uint32(b[20:])) > 1<<16 {
			return
		}
		compareWithImagePNG(t, "fuzz input", b)
	})
}
