package screen

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"runtime"
	"testing"

	"github.com/openpocket/openpocket/engine/screen/imagecodec"
)

// textScreen is a white 1080×2400 screen covered with lines of dark digits
// drawn with 2 px strokes (the thinnest text a phone shows), 14 px tall.
func textScreen() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
	blendRect(img, img.Rect, color.RGBA{255, 255, 255, 255}, 255)
	ink := color.RGBA{0x20, 0x20, 0x20, 0xFF}
	for y := 40; y+14 < 2400; y += 24 {
		x := 20 + y%7
		for i := 0; x+12 < 1060; i++ {
			for row, bits := range digitFont[(i*7+y)%10] {
				for col := 0; col < 5; col++ {
					if bits&(0x10>>col) != 0 {
						blendRect(img, image.Rect(x+2*col, y+2*row, x+2*col+2, y+2*row+2), ink, 255)
					}
				}
			}
			x += 12
		}
	}
	return img
}

// areaReference is the obvious, slow area average in float64: the output
// the box filter must reproduce.
func areaReference(src *image.RGBA, w, h int) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	sx := float64(src.Rect.Dx()) / float64(w)
	sy := float64(src.Rect.Dy()) / float64(h)
	for dy := 0; dy < h; dy++ {
		y0, y1 := float64(dy)*sy, float64(dy+1)*sy
		for dx := 0; dx < w; dx++ {
			x0, x1 := float64(dx)*sx, float64(dx+1)*sx
			var sum [4]float64
			for y := int(y0); float64(y) < y1; y++ {
				cy := math.Min(y1, float64(y+1)) - math.Max(y0, float64(y))
				for x := int(x0); float64(x) < x1; x++ {
					c := math.Min(x1, float64(x+1)) - math.Max(x0, float64(x))
					p := src.Pix[src.PixOffset(x, y):]
					for k := range sum {
						sum[k] += float64(p[k]) * c * cy
					}
				}
			}
			o := dst.Pix[dst.PixOffset(dx, dy):]
			for k := range sum {
				o[k] = uint8(math.Round(sum[k] / (sx * sy)))
			}
		}
	}
	return dst
}

// resizeBilinear is the cheaper kernel Resize was measured against: two
// taps per axis at the sample's centre.
func resizeBilinear(src *image.RGBA, w, h int) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	sx := float64(src.Rect.Dx()) / float64(w)
	sy := float64(src.Rect.Dy()) / float64(h)
	for dy := 0; dy < h; dy++ {
		fy := max(0, (float64(dy)+0.5)*sy-0.5)
		y0 := min(int(fy), src.Rect.Dy()-2)
		ty := fy - float64(y0)
		for dx := 0; dx < w; dx++ {
			fx := max(0, (float64(dx)+0.5)*sx-0.5)
			x0 := min(int(fx), src.Rect.Dx()-2)
			tx := fx - float64(x0)
			o := dst.Pix[dst.PixOffset(dx, dy):]
			for k := 0; k < 4; k++ {
				at := func(x, y int) float64 { return float64(src.Pix[src.PixOffset(x, y)+k]) }
				top := at(x0, y0)*(1-tx) + at(x0+1, y0)*tx
				bot := at(x0, y0+1)*(1-tx) + at(x0+1, y0+1)*tx
				o[k] = uint8(math.Round(top*(1-ty) + bot*ty))
			}
		}
	}
	return dst
}

// ssim is the mean structural similarity of two equally sized images' Rec.
// 601 luma over 8×8 windows (Wang et al. 2004 constants): 1 is identical,
// below ~0.9 a reader notices.
func ssim(a, b *image.RGBA) float64 {
	luma := func(img *image.RGBA, x, y int) float64 {
		p := img.Pix[img.PixOffset(x, y):]
		return 0.299*float64(p[0]) + 0.587*float64(p[1]) + 0.114*float64(p[2])
	}
	const c1, c2 = (0.01 * 255) * (0.01 * 255), (0.03 * 255) * (0.03 * 255)
	var total float64
	var n int
	for y := 0; y+8 <= a.Rect.Dy(); y += 8 {
		for x := 0; x+8 <= a.Rect.Dx(); x += 8 {
			var ma, mb, va, vb, cov float64
			for j := 0; j < 8; j++ {
				for i := 0; i < 8; i++ {
					ma += luma(a, x+i, y+j)
					mb += luma(b, x+i, y+j)
				}
			}
			ma, mb = ma/64, mb/64
			for j := 0; j < 8; j++ {
				for i := 0; i < 8; i++ {
					da, db := luma(a, x+i, y+j)-ma, luma(b, x+i, y+j)-mb
					va, vb, cov = va+da*da, vb+db*db, cov+da*db
				}
			}
			va, vb, cov = va/63, vb/63, cov/63
			total += (2*ma*mb + c1) * (2*cov + c2) / ((ma*ma + mb*mb + c1) * (va + vb + c2))
			n++
		}
	}
	return total / float64(n)
}

func TestResizeKeepsTextReadable(t *testing.T) {
	src := textScreen()
	w, h := ScaledSize(1080, 2400, StyleOpenAI)
	want := areaReference(src, w, h)
	got := Resize(src, w, h)
	box := ssim(got, want)
	if box < 0.995 {
		t.Errorf("SSIM(Resize, exact area average) = %.4f, want ≥ 0.995", box)
	}
	// Fixed-point weights and the shortcuts for repeated rows stay within
	// one level of the exact average, channel by channel.
	for i := range got.Pix {
		if d := int(got.Pix[i]) - int(want.Pix[i]); d < -1 || d > 1 {
			t.Fatalf("byte %d (pixel %d,%d) = %d, exact area average %d", i, i/4%w, i/4/w, got.Pix[i], want.Pix[i])
		}
	}
	bilinear := ssim(resizeBilinear(src, w, h), want)
	if bilinear >= box {
		t.Errorf("bilinear SSIM %.4f ≥ box %.4f: the kernel choice no longer holds", bilinear, box)
	}
	t.Logf("SSIM vs exact area average: box %.4f, bilinear %.4f", box, bilinear)
	// Parallel bands and a single band give identical pixels.
	single := image.NewRGBA(image.Rect(0, 0, w, h))
	r := resizer{pix: src.Pix, stride: src.Stride, sw: 1080, xs: boxWeights(1080, w), ys: boxWeights(2400, h), dst: single}
	r.rows(0, h)
	for i := range single.Pix {
		if single.Pix[i] != got.Pix[i] {
			t.Fatalf("parallel resize differs from one band at byte %d", i)
		}
	}
}

// BenchmarkResizeKernels is the measurement behind Resize's kernel: the box
// filter as shipped against a 2-tap bilinear kernel run by the same code
// (same fixed point, same parallel bands), so only the kernel differs.
func BenchmarkResizeKernels(b *testing.B) {
	src := textScreen()
	w, h := ScaledSize(1080, 2400, StyleOpenAI)
	b.Run("box", func(b *testing.B) {
		for b.Loop() {
			Resize(src, w, h)
		}
	})
	b.Run("bilinear", func(b *testing.B) {
		xs, ys := bilinearWeights(1080, w), bilinearWeights(2400, h)
		for b.Loop() {
			dst := image.NewRGBA(image.Rect(0, 0, w, h))
			r := resizer{pix: src.Pix, stride: src.Stride, sw: 1080, xs: xs, ys: ys, dst: dst}
			imagecodec.ParallelRows(h, w*h, r.rows)
		}
	})
}

// bilinearWeights are two-tap linear interpolation weights in Resize's
// fixed-point format.
func bilinearWeights(src, dst int) []contrib {
	out := make([]contrib, dst)
	scale := float64(src) / float64(dst)
	for d := range out {
		f := max(0, (float64(d)+0.5)*scale-0.5)
		s0 := min(int(f), src-2)
		w1 := uint32(math.Round((f - float64(s0)) * (1 << weightShift)))
		out[d] = contrib{start: s0, weights: []uint32{1<<weightShift - w1, w1}}
	}
	return out
}

// TestParallelBandsMatchOneBand: the image work split into bands of rows
// (set-of-mark, resize, JPEG) gives the same bytes as one band.
func TestParallelBandsMatchOneBand(t *testing.T) {
	img, els := scaledFixture(t)
	run := func() (som []byte, scaled []byte, jpg []byte) {
		m := SetOfMark(img, els, true)
		j, err := EncodeJPEG(m, 80)
		if err != nil {
			t.Fatal(err)
		}
		return m.Pix, Resize(textScreen(), 768, 1707).Pix, j
	}
	old := runtime.GOMAXPROCS(2) // two bands even on one CPU
	s2, r2, j2 := run()
	runtime.GOMAXPROCS(1)
	s1, r1, j1 := run()
	runtime.GOMAXPROCS(old)
	if !bytes.Equal(s1, s2) {
		t.Error("set-of-mark differs between one band and several")
	}
	if !bytes.Equal(r1, r2) {
		t.Error("resize differs between one band and several")
	}
	a, err := jpeg.Decode(bytes.NewReader(j1))
	if err != nil {
		t.Fatal(err)
	}
	b, err := jpeg.Decode(bytes.NewReader(j2))
	if err != nil {
		t.Fatal(err)
	}
	ya, yb := a.(*image.YCbCr), b.(*image.YCbCr)
	if !bytes.Equal(ya.Y, yb.Y) || !bytes.Equal(ya.Cb, yb.Cb) || !bytes.Equal(ya.Cr, yb.Cr) {
		t.Error("a banded JPEG decodes differently from a single scan")
	}
}
