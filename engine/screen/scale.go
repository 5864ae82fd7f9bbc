package screen

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"math"
	"runtime"
	"sync"
)

// ModelStyle selects how a screenshot is scaled for a model.
type ModelStyle int

const (
	// StyleOpenAI scales the shortest side to 768 px.
	StyleOpenAI ModelStyle = iota
	// StyleAnthropic scales the longest side to 1568 px.
	StyleAnthropic
)

// Target sides of ScaledSize.
const (
	OpenAIShortSide   = 768
	AnthropicLongSide = 1568
)

// String names the style ("openai", "anthropic").
func (s ModelStyle) String() string {
	switch s {
	case StyleOpenAI:
		return "openai"
	case StyleAnthropic:
		return "anthropic"
	}
	return fmt.Sprintf("ModelStyle(%d)", int(s))
}

// ScaledSize is the size a w×h screenshot is shown to a model at: the
// shortest side at 768 px (StyleOpenAI) or the longest side at 1568 px
// (StyleAnthropic), aspect ratio kept, sides rounded, never upscaled (a
// screen already small enough keeps its size). Non-positive input sizes are
// returned unchanged.
func ScaledSize(w, h int, style ModelStyle) (sw, sh int) {
	if w <= 0 || h <= 0 {
		return w, h
	}
	var side, target int
	switch style {
	case StyleAnthropic:
		side, target = max(w, h), AnthropicLongSide
	default:
		side, target = min(w, h), OpenAIShortSide
	}
	if side <= target {
		return w, h
	}
	f := float64(target) / float64(side)
	sw = max(1, int(math.Round(float64(w)*f)))
	sh = max(1, int(math.Round(float64(h)*f)))
	return sw, sh
}

// weightShift is the fixed-point precision of the resampling weights; the
// product of two weight sums (1<<24) times 255 still fits a uint32.
const weightShift = 12

type contrib struct {
	start   int      // first source index
	weights []uint32 // one per source index from start, summing to 1<<weightShift
}

// boxWeights computes, for every destination index, the share of each
// source pixel covered by it (area averaging). Upscaling degrades to a
// linear blend of the one or two covered source pixels.
func boxWeights(src, dst int) []contrib {
	out := make([]contrib, dst)
	scale := float64(src) / float64(dst)
	const one = 1 << weightShift
	backing := make([]uint32, 0, src+2*dst) // all weights, one allocation
	for d := range out {
		lo, hi := float64(d)*scale, float64(d+1)*scale
		s0 := int(lo)
		s1 := int(math.Ceil(hi))
		if s1 > src {
			s1 = src
		}
		if s1 <= s0 {
			s1 = s0 + 1
		}
		if len(backing)+s1-s0 > cap(backing) {
			backing = make([]uint32, 0, src+2*dst)
		}
		ws := backing[len(backing) : len(backing)+s1-s0 : len(backing)+s1-s0]
		backing = backing[:len(backing)+s1-s0]
		var sum uint32
		for s := s0; s < s1; s++ {
			cover := math.Min(hi, float64(s+1)) - math.Max(lo, float64(s))
			w := uint32(math.Round(cover / scale * one))
			ws[s-s0] = w
			sum += w
		}
		// Give the rounding remainder to the largest weight so the sum is
		// exact and a flat image stays flat.
		big := 0
		for i := range ws {
			if ws[i] > ws[big] {
				big = i
			}
		}
		ws[big] = ws[big] + one - sum
		out[d] = contrib{start: s0, weights: ws}
	}
	return out
}

// Resize scales img to w×h with an area-averaging box filter (each output
// pixel is the coverage-weighted mean of the source pixels under it), the
// right filter for shrinking screenshots: measured against a 2-tap bilinear
// kernel on 1080×2400 → 768×1707 it costs about the same (≈2.4 taps per
// axis instead of 2) while thin text strokes keep their weight instead of
// aliasing away (see TestResizeKeepsTextReadable and BenchmarkResizeKernels).
// Large images are split into bands of output rows resized in parallel, one
// per CPU. *image.RGBA and *image.NRGBA are read directly (NRGBA is
// premultiplied on the fly); other types are converted first. The result is
// a premultiplied *image.RGBA with bounds (0,0)-(w,h); w or h ≤ 0 gives an
// empty image.
func Resize(img image.Image, w, h int) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, max(w, 0), max(h, 0)))
	b := img.Bounds()
	if w <= 0 || h <= 0 || b.Empty() {
		return dst
	}
	pix, stride, nrgba := rgbaPixels(img, b)
	r := resizer{pix: pix, stride: stride, nrgba: nrgba, sw: b.Dx(),
		xs: boxWeights(b.Dx(), w), ys: boxWeights(b.Dy(), h), dst: dst}
	parallelRows(h, w*h, r.rows)
	return dst
}

// parallelMinPixels is the output size below which splitting the work
// across goroutines costs more than it saves.
const parallelMinPixels = 64 * 1024

// parallelRows calls do for consecutive bands of [0, n) rows, one band per
// CPU when the job (pixels output pixels) is big enough, and waits.
func parallelRows(n, pixels int, do func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if pixels < parallelMinPixels || workers < 2 {
		do(0, n)
		return
	}
	var wg sync.WaitGroup
	for i := range workers {
		lo, hi := n*i/workers, n*(i+1)/workers
		wg.Add(1)
		go func() { defer wg.Done(); do(lo, hi) }()
	}
	wg.Wait()
}

// resizer holds one Resize call's source, weights and destination.
type resizer struct {
	pix    []uint8
	stride int
	nrgba  bool
	sw     int
	xs, ys []contrib
	dst    *image.RGBA
}

// rows resizes destination rows [lo, hi): per row, the covered source rows
// are summed with their vertical weights, then each output pixel sums its
// covered columns with the horizontal weights.
func (r *resizer) rows(lo, hi int) {
	sw, w := r.sw, r.dst.Rect.Dx()
	acc := make([]uint32, sw*4)
	for dy := lo; dy < hi; dy++ {
		clear(acc)
		cy := r.ys[dy]
		for k, wy := range cy.weights {
			if wy == 0 {
				continue
			}
			off := (cy.start + k) * r.stride
			row := r.pix[off : off+sw*4]
			if r.nrgba {
				accumulateNRGBA(acc, row, wy)
			} else {
				accumulateRGBA(acc, row, wy)
			}
		}
		out := r.dst.Pix[dy*r.dst.Stride : dy*r.dst.Stride+w*4]
		for dx := 0; dx < w; dx++ {
			cx := r.xs[dx]
			var cr, cg, cb, ca uint32
			j := cx.start * 4
			for _, wx := range cx.weights {
				p := acc[j : j+4 : j+4]
				cr += p[0] * wx
				cg += p[1] * wx
				cb += p[2] * wx
				ca += p[3] * wx
				j += 4
			}
			const half = 1 << (2*weightShift - 1)
			o := out[dx*4 : dx*4+4 : dx*4+4]
			o[0] = uint8((cr + half) >> (2 * weightShift))
			o[1] = uint8((cg + half) >> (2 * weightShift))
			o[2] = uint8((cb + half) >> (2 * weightShift))
			o[3] = uint8((ca + half) >> (2 * weightShift))
		}
	}
}

// accumulateRGBA adds row (premultiplied samples) times wy to acc.
func accumulateRGBA(acc []uint32, row []uint8, wy uint32) {
	acc = acc[:len(row)]
	for i := 0; i+3 < len(row); i += 4 {
		p := row[i : i+4 : i+4]
		a := acc[i : i+4 : i+4]
		a[0] += uint32(p[0]) * wy
		a[1] += uint32(p[1]) * wy
		a[2] += uint32(p[2]) * wy
		a[3] += uint32(p[3]) * wy
	}
}

// accumulateNRGBA is accumulateRGBA for non-premultiplied samples.
func accumulateNRGBA(acc []uint32, row []uint8, wy uint32) {
	acc = acc[:len(row)]
	for i := 0; i+3 < len(row); i += 4 {
		p := row[i : i+4 : i+4]
		a := acc[i : i+4 : i+4]
		r, g, bl, al := uint32(p[0]), uint32(p[1]), uint32(p[2]), uint32(p[3])
		if al != 255 {
			r, g, bl = mul255(r, al), mul255(g, al), mul255(bl, al)
		}
		a[0] += r * wy
		a[1] += g * wy
		a[2] += bl * wy
		a[3] += al * wy
	}
}

// rgbaPixels returns the 8-bit RGBA samples of r (a rectangle inside img's
// bounds) starting at r.Min, with their row stride. *image.RGBA and
// *image.NRGBA (what image/png decodes screenshots to) are read in place;
// nrgba reports non-premultiplied samples. Other types are converted.
func rgbaPixels(img image.Image, r image.Rectangle) (pix []uint8, stride int, nrgba bool) {
	switch s := img.(type) {
	case *image.RGBA:
		return s.Pix[s.PixOffset(r.Min.X, r.Min.Y):], s.Stride, false
	case *image.NRGBA:
		return s.Pix[s.PixOffset(r.Min.X, r.Min.Y):], s.Stride, true
	}
	c := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(c, c.Bounds(), img, r.Min, draw.Src)
	return c.Pix, c.Stride, false
}

// mul255 is x*a/255 rounded, for premultiplying.
func mul255(x, a uint32) uint32 {
	t := x*a + 128
	return (t + t>>8) >> 8
}

// DecodePNG decodes a PNG screenshot.
func DecodePNG(b []byte) (image.Image, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("screen: decode png: empty input")
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("screen: decode png (%d bytes): %w", len(b), err)
	}
	return img, nil
}

type encoderPool struct{ p sync.Pool }

func (e *encoderPool) Get() *png.EncoderBuffer {
	b, _ := e.p.Get().(*png.EncoderBuffer)
	return b
}
func (e *encoderPool) Put(b *png.EncoderBuffer) { e.p.Put(b) }

var pngEncoder = png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: &encoderPool{}}

// EncodePNG encodes img as PNG favouring speed over size (screenshots are
// sent every step). An opaque *image.RGBA (what Resize and SetOfMark
// return) takes a fast path: RGB, Up filter, zlib BestSpeed; anything else
// goes through image/png at png.BestSpeed.
func EncodePNG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	if b := img.Bounds(); !b.Empty() {
		buf.Grow(b.Dx() * b.Dy())
	}
	if rgba, ok := img.(*image.RGBA); ok && !rgba.Bounds().Empty() && rgba.Opaque() {
		if err := encodeOpaqueRGBA(&buf, rgba); err != nil {
			return nil, fmt.Errorf("screen: encode png: %w", err)
		}
		return buf.Bytes(), nil
	}
	if err := pngEncoder.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("screen: encode png: %w", err)
	}
	return buf.Bytes(), nil
}
