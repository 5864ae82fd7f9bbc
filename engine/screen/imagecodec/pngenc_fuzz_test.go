package imagecodec

import (
	"bytes"
	"errors"
	"image"
	"image/png"
	"testing"
)

// FuzzEncodePNG: EncodeOpaquePNG's own deflate blocks for runs of repeated rows
// (pngzero.go) sit between compress/flate's; whatever the image — widths
// that make odd match lengths, runs just under and over zeroRunMin, a
// translucent pixel anywhere — image/png decodes the result (checking the
// Adler-32) to the same pixels.
func FuzzEncodePNG(f *testing.F) {
	f.Add(uint16(768), []byte{0, 12, 1, 30, 2, 7, 3, 200})
	f.Add(uint16(1), []byte{5, 9, 6, 8})
	f.Add(uint16(86), []byte{1, 1, 2, 255, 3, 3})
	f.Fuzz(func(t *testing.T, width uint16, script []byte) {
		w := int(width)%600 + 1
		// The script is pairs (kind, n): a run of n+1 rows, repeated
		// (kind even) or each new (odd), their colour from kind.
		var rows [][]byte
		alpha := byte(0xFF)
		for i := 0; i+1 < len(script) && len(rows) < 200; i += 2 {
			kind, n := script[i], int(script[i+1])+1
			if kind == 0xFE {
				alpha = 0x80 // the rest translucent: image/png's path
			}
			for k := 0; k < n && len(rows) < 200; k++ {
				if kind%2 == 0 && len(rows) > 0 {
					rows = append(rows, rows[len(rows)-1])
					continue
				}
				row := make([]byte, 4*w)
				for x := 0; x < w; x++ {
					v := byte(int(kind)*7 + x*int(kind|1)/(k+1) + len(rows))
					px := []byte{v, v ^ kind, byte(x), alpha}
					for c := range 3 { // premultiplied: no channel above alpha
						px[c] = byte(int(px[c]) * int(alpha) / 255)
					}
					copy(row[4*x:], px)
				}
				rows = append(rows, row)
			}
		}
		if len(rows) == 0 {
			return
		}
		img := image.NewRGBA(image.Rect(0, 0, w, len(rows)))
		for y, r := range rows {
			copy(img.Pix[y*img.Stride:], r)
		}
		b, err := EncodeOpaquePNG(img)
		if errors.Is(err, ErrTranslucent) {
			if img.Opaque() {
				t.Fatal("an opaque image refused as translucent")
			}
			var buf bytes.Buffer
			if err := png.Encode(&buf, img); err != nil { // what screen.EncodePNG falls back to
				t.Fatal(err)
			}
			b = buf.Bytes()
		} else if err != nil {
			t.Fatal(err)
		} else if !img.Opaque() {
			t.Fatal("a translucent image encoded as RGB")
		}
		got, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("image/png: %v", err)
		}
		want := image.Image(img)
		if got.Bounds() != want.Bounds() {
			t.Fatalf("bounds %v, want %v", got.Bounds(), want.Bounds())
		}
		for y := 0; y < len(rows); y++ {
			for x := 0; x < w; x++ {
				r0, g0, b0, a0 := want.At(x, y).RGBA()
				r1, g1, b1, a1 := got.At(x, y).RGBA()
				// A translucent pixel goes through image/png's encoder,
				// which un-premultiplies: one level of rounding either way.
				tol := uint32(0)
				if a0>>8 != 0xFF {
					tol = 1
				}
				if diff(r0>>8, r1>>8) > tol || diff(g0>>8, g1>>8) > tol || diff(b0>>8, b1>>8) > tol || a0>>8 != a1>>8 {
					t.Fatalf("pixel %d,%d: %v, want %v", x, y, got.At(x, y), want.At(x, y))
				}
			}
		}
	})
}

func diff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}
