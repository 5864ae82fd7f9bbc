package imagecodec

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"strings"
	"testing"
)

// screenLike draws what phone screens are made of: a status bar, flat
// list rows with dark "glyphs" on them, a gradient card and a translucent
// band when alpha is set (premultiplied, as image.RGBA is).
func screenLike(w, h int, alpha bool) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	fill := func(r image.Rectangle, c color.RGBA) { draw.Draw(img, r, image.NewUniform(c), image.Point{}, draw.Src) }
	fill(img.Rect, color.RGBA{0xFA, 0xFA, 0xFA, 0xFF})
	fill(image.Rect(0, 0, w, h/20+1), color.RGBA{0x20, 0x40, 0x80, 0xFF})
	for y := h / 10; y+12 < h; y += 24 {
		for x := 8; x+6 < w; x += 9 {
			if (x*7+y)%5 != 0 {
				fill(image.Rect(x, y, x+5, y+7), color.RGBA{0x30, 0x30, 0x30, 0xFF})
			}
		}
	}
	for y := h / 2; y < min(h, h/2+h/8+1); y++ {
		for x := range w {
			img.SetRGBA(x, y, color.RGBA{uint8(x * 255 / w), uint8(y * 3), 0x90, 0xFF})
		}
	}
	if alpha {
		for y := 3 * h / 4; y < min(h, 3*h/4+h/10+1); y++ {
			for x := range w {
				a := uint8(x * 255 / w)
				img.SetRGBA(x, y, color.RGBA{a / 2, a / 3, a, a})
			}
		}
	}
	return img
}

// decodeAll collects DecodePNGRows' rows into an image, checking that rows
// come in order and that "same" rows are the same.
func decodeAll(tb testing.TB, b []byte) (*image.RGBA, error) {
	var img *image.RGBA
	next := 0
	err := DecodePNGRows(b, func(w, h int) PNGRowFunc {
		img = image.NewRGBA(image.Rect(0, 0, w, h))
		return func(y int, rgba []byte, same bool) {
			if y != next {
				tb.Errorf("row %d after row %d", y, next-1)
			}
			next++
			copy(img.Pix[y*img.Stride:], rgba)
			if same && !bytes.Equal(rgba, img.Pix[(y-1)*img.Stride:y*img.Stride]) {
				tb.Errorf("row %d passed as the same as row %d but differs", y, y-1)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	if next != img.Rect.Dy() {
		tb.Errorf("%d rows of %d", next, img.Rect.Dy())
	}
	return img, nil
}

// knownDifference: image/png checks chunk CRCs and the zlib Adler-32
// trailer and may reject bytes after the zlib stream, DecodePNGRows does
// not (documented).
func knownDifference(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "checksum") || strings.Contains(err.Error(), "too much pixel data"))
}

// compareWithImagePNG decodes b with DecodePNGRows and image/png: the
// same pixels (image/png's output premultiplied; translucent pixels may
// round by one, image/png premultiplies in 16 bits), or both fail, or
// DecodePNGRows leaves b to image/png. It reports whether the row decoder
// took b.
func compareWithImagePNG(tb testing.TB, name string, b []byte) bool {
	tb.Helper()
	got, err := decodeAll(tb, b)
	if errors.Is(err, ErrNotScreenPNG) {
		return false
	}
	want, stdErr := png.Decode(bytes.NewReader(b))
	switch {
	case err != nil && stdErr != nil:
		return true
	case err != nil:
		tb.Fatalf("%s: DecodePNGRows: %v; image/png decodes it", name, err)
	case stdErr != nil && !knownDifference(stdErr):
		tb.Fatalf("%s: image/png: %v; DecodePNGRows decodes it", name, stdErr)
	case stdErr != nil:
		return true
	}
	if got.Bounds() != want.Bounds() {
		tb.Fatalf("%s: bounds %v, image/png %v", name, got.Bounds(), want.Bounds())
	}
	r := want.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c1 := got.RGBAAt(x, y)
			c2 := color.RGBAModel.Convert(want.At(x, y)).(color.RGBA)
			tol := 0
			if c2.A != 0xFF {
				tol = 1
			}
			for k, v := range []int{int(c1.R) - int(c2.R), int(c1.G) - int(c2.G), int(c1.B) - int(c2.B), int(c1.A) - int(c2.A)} {
				if v < -tol || v > tol {
					tb.Fatalf("%s: pixel (%d,%d) channel %d = %v, image/png says %v", name, x, y, k, c1, c2)
				}
			}
		}
	}
	return true
}

// psnr is the peak signal-to-noise ratio (dB) of b against a over RGB.
func psnr(a, b image.Image) float64 {
	var se float64
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			for _, d := range []float64{float64(r1>>8) - float64(r2>>8), float64(g1>>8) - float64(g2>>8), float64(b1>>8) - float64(b2>>8)} {
				se += d * d
			}
		}
	}
	mse := se / float64(3*r.Dx()*r.Dy())
	if mse == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/mse)
}
