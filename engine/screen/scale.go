package screen

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"math"
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
// right filter for shrinking screenshots. *image.RGBA and *image.NRGBA are
// read directly (NRGBA is premultiplied on the fly); other types are
// converted first. The result is a premultiplied *image.RGBA with bounds
// (0,0)-(w,h); w or h ≤ 0 gives an empty image.
func Resize(img image.Image, w, h int) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, max(w, 0), max(h, 0)))
	b := img.Bounds()
	if w <= 0 || h <= 0 || b.Empty() {
		return dst
	}
	pix, stride, nrgba := rgbaPixels(img, b)
	sw, sh := b.Dx(), b.Dy()
	xs := boxWeights(sw, w)
	ys := boxWeights(sh, h)

	acc := make([]uint32, sw*4)
	for dy := 0; dy < h; dy++ {
		clear(acc)
		cy := ys[dy]
		for k, wy := range cy.weights {
			if wy == 0 {
				continue
			}
			row := pix[(cy.start+k)*stride : (cy.start+k)*stride+sw*4]
			if nrgba {
				for i := 0; i < len(row); i += 4 {
					r, g, bl, a := uint32(row[i]), uint32(row[i+1]), uint32(row[i+2]), uint32(row[i+3])
					if a != 255 {
						r, g, bl = mul255(r, a), mul255(g, a), mul255(bl, a)
					}
					acc[i] += r * wy
					acc[i+1] += g * wy
					acc[i+2] += bl * wy
					acc[i+3] += a * wy
				}
			} else {
				for i := 0; i < len(row); i += 4 {
					acc[i] += uint32(row[i]) * wy
					acc[i+1] += uint32(row[i+1]) * wy
					acc[i+2] += uint32(row[i+2]) * wy
					acc[i+3] += uint32(row[i+3]) * wy
				}
			}
		}
		out := dst.Pix[dy*dst.Stride : dy*dst.Stride+w*4]
		for dx := 0; dx < w; dx++ {
			cx := xs[dx]
			var r, g, bl, a uint32
			j := cx.start * 4
			for _, wx := range cx.weights {
				r += acc[j] * wx
				g += acc[j+1] * wx
				bl += acc[j+2] * wx
				a += acc[j+3] * wx
				j += 4
			}
			const half = 1 << (2*weightShift - 1)
			o := out[dx*4 : dx*4+4 : dx*4+4]
			o[0] = uint8((r + half) >> (2 * weightShift))
			o[1] = uint8((g + half) >> (2 * weightShift))
			o[2] = uint8((bl + half) >> (2 * weightShift))
			o[3] = uint8((a + half) >> (2 * weightShift))
		}
	}
	return dst
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
