package screen

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"
)

// filteredPNG writes an 8-bit RGB (bpp 3) or RGBA (bpp 4) PNG whose row y
// uses filter type y%5, split over several IDAT chunks: every filter the
// fast decoder reverses, as real encoders mix them.
func filteredPNG(t *testing.T, w, h, bpp int, pix func(x, y int) [4]byte) []byte {
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

func sameAsStdlib(t *testing.T, name string, b []byte) {
	t.Helper()
	want, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: image/png: %v", name, err)
	}
	got, err := DecodePNG(b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if got.Bounds() != want.Bounds() {
		t.Fatalf("%s: bounds %v, want %v", name, got.Bounds(), want.Bounds())
	}
	r := want.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c1 := color.RGBAModel.Convert(got.At(x, y)).(color.RGBA)
			c2 := color.RGBAModel.Convert(want.At(x, y)).(color.RGBA)
			// Premultiplying a translucent pixel may round differently
			// (image/png's NRGBA is premultiplied in 16 bits, truncated).
			tol := 0
			if c2.A != 0xFF {
				tol = 1
			}
			for k, v := range []int{int(c1.R) - int(c2.R), int(c1.G) - int(c2.G), int(c1.B) - int(c2.B), int(c1.A) - int(c2.A)} {
				if v < -tol || v > tol {
					t.Fatalf("%s: pixel (%d,%d) channel %d = %v, image/png says %v", name, x, y, k, c1, c2)
				}
			}
		}
	}
}

func TestDecodePNGFastPathMatchesImagePNG(t *testing.T) {
	pattern := func(x, y int) [4]byte {
		return [4]byte{byte(x*7 + y), byte(x ^ y*3), byte(200 - x), byte(255 - (x*y)%7*30)}
	}
	for _, bpp := range []int{3, 4} {
		for _, size := range []image.Point{{1, 1}, {3, 200}, {97, 61}, {300, 150}} {
			sameAsStdlib(t, "filters", filteredPNG(t, size.X, size.Y, bpp, pattern))
		}
	}
	// What the encoders in play write: image/png at each level (RGB for an
	// opaque image, RGBA with alpha), and the project's own fast encoder.
	src := testScreen(360, 800, 5)
	for _, level := range []png.CompressionLevel{png.BestSpeed, png.DefaultCompression, png.BestCompression} {
		var b bytes.Buffer
		(&png.Encoder{CompressionLevel: level}).Encode(&b, src)
		sameAsStdlib(t, "image/png opaque", b.Bytes())
	}
	// Repeated rows ("Up" filter, all zero) take a shortcut: a text screen
	// is mostly blank rows.
	text := textScreen().SubImage(image.Rect(0, 0, 160, 400))
	for _, level := range []png.CompressionLevel{png.BestSpeed, png.DefaultCompression} {
		var b bytes.Buffer
		(&png.Encoder{CompressionLevel: level}).Encode(&b, text)
		if !bytes.Contains(b.Bytes(), []byte("IDAT")) {
			t.Fatal("no IDAT")
		}
		sameAsStdlib(t, "text screen", b.Bytes())
	}
	translucent := image.NewNRGBA(image.Rect(0, 0, 50, 40))
	for i := range translucent.Pix {
		translucent.Pix[i] = byte(i * 13)
	}
	var b bytes.Buffer
	png.Encode(&b, translucent)
	sameAsStdlib(t, "image/png translucent", b.Bytes())
	own, err := EncodePNG(Resize(src, 200, 400))
	if err != nil {
		t.Fatal(err)
	}
	sameAsStdlib(t, "EncodePNG", own)
	// Other PNG kinds go through image/png.
	gray := image.NewGray(image.Rect(0, 0, 10, 10))
	b.Reset()
	png.Encode(&b, gray)
	sameAsStdlib(t, "gray", b.Bytes())
}

func TestDecodePNGErrors(t *testing.T) {
	good := filteredPNG(t, 20, 20, 3, func(x, y int) [4]byte { return [4]byte{1, 2, 3, 4} })
	truncated := good[:len(good)/2]
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"truncated", truncated, "screen: decode png"},
		{"garbage", []byte("GIF89a....."), "screen: decode png"},
	} {
		if _, err := DecodePNG(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v", tc.name, err)
		}
	}
}
