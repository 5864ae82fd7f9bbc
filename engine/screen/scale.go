package screen

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"math"
	"sync"

	"github.com/openpocket/openpocket/engine/screen/imagecodec"
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

// weightShift is the fixed-point precision of the resampling weights: with
// weights summing to 256, a weighted sum of 8-bit samples fits 16 bits, so
// Resize works on four channels at once in the 16-bit lanes of a uint64.
const weightShift = 8

type contrib struct {
	start   int      // first source index
	weights []uint32 // one per source index from start, summing to 1<<weightShift
}

// boxWeights computes, for every destination index, the share of each
// source pixel covered by it (area averaging). Weights are rounded from the
// running coverage, so they are never negative and always sum to exactly
// 1<<weightShift (a flat image stays flat) however many pixels a
// destination covers. Upscaling degrades to a linear blend of the one or
// two covered source pixels.
func boxWeights(src, dst int) []contrib {
	out := make([]contrib, dst)
	scale := float64(src) / float64(dst)
	const one = 1 << weightShift
	backing := make([]uint32, 0, src+2*dst) // all weights, one allocation
	for d := range out {
		lo, hi := float64(d)*scale, float64(d+1)*scale
		s0 := int(lo)
		s1 := min(int(math.Ceil(hi)), src)
		if s1 <= s0 {
			s1 = s0 + 1
		}
		if len(backing)+s1-s0 > cap(backing) {
			backing = make([]uint32, 0, src+2*dst)
		}
		ws := backing[len(backing) : len(backing)+s1-s0 : len(backing)+s1-s0]
		backing = backing[:len(backing)+s1-s0]
		var covered float64
		prev := uint32(0)
		for s := s0; s < s1; s++ {
			covered += math.Min(hi, float64(s+1)) - math.Max(lo, float64(s))
			upTo := uint32(math.Round(covered / scale * one))
			if s == s1-1 {
				upTo = one
			}
			ws[s-s0] = upTo - min(prev, upTo)
			prev = max(prev, upTo)
		}
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
	r.x3 = threeTaps(r.xs, r.sw)
	imagecodec.ParallelRows(h, w*h, r.rows)
	return dst
}

// resizer holds one Resize call's source, weights and destination.
type resizer struct {
	pix    []uint8
	stride int
	nrgba  bool
	sw     int
	xs, ys []contrib
	x3     []tap3 // xs padded to three taps, when they fit
	dst    *image.RGBA
}

// rows resizes destination rows [lo, hi). Each source row it needs is
// first shrunk horizontally into a small ring of rows (consecutive output
// rows share source rows), then the output row is the weighted sum of its
// source rows. Both passes work on packed pixels: one uint64 holds R, G, B
// and A in 16-bit lanes, so one multiply-add weighs all four channels
// (sums of 8-bit samples times weights summing to 256 cannot overflow a
// lane); each pass rounds back to 8 bits.
func (r *resizer) rows(lo, hi int) {
	w := r.dst.Rect.Dx()
	taps := 0
	for _, c := range r.ys[lo:hi] {
		taps = max(taps, len(c.weights))
	}
	ring := make([][]uint64, taps+1)
	ringRow := make([]int, len(ring))
	// ringRun is, per slot, the first row of the run of identical source
	// rows its row belongs to (as far as this band has seen).
	ringRun := make([]int, len(ring))
	// A repeated row shares the buffer of the row above (ringBuf: per
	// slot, its index in bufs); one buffer more than slots leaves one free.
	ringBuf := make([]int, len(ring))
	bufs := make([][]uint64, len(ring)+1)
	backing := make([]uint64, (len(bufs)+1)*w+r.sw)
	acc := backing[len(bufs)*w : (len(bufs)+1)*w]
	scratch := backing[(len(bufs)+1)*w:]
	for i := range bufs {
		bufs[i] = backing[i*w : (i+1)*w : (i+1)*w]
	}
	for i := range ring {
		ring[i], ringBuf[i], ringRow[i] = bufs[i], i, -1
	}
	prevRun := -1 // the run the previous output row was made of, if one
	for dy := lo; dy < hi; dy++ {
		cy := r.ys[dy]
		out := r.dst.Pix[dy*r.dst.Stride : dy*r.dst.Stride+w*4]
		var rows [8][]uint64 // enough for any downscale up to 7:1 without spilling
		srcRows := rows[:0]
		run := -1
		for k := range cy.weights {
			s := cy.start + k
			slot := s % len(ring)
			if ringRow[slot] != s {
				above := (s - 1 + len(ring)) % len(ring)
				if s > 0 && ringRow[above] == s-1 && bytes.Equal(r.srcRow(s), r.srcRow(s-1)) {
					// Screens repeat rows (backgrounds, blank space): the
					// same pixels shrink to the same output.
					ring[slot], ringBuf[slot] = ring[above], ringBuf[above]
					ringRun[slot] = ringRun[above]
				} else {
					b := freeBuf(ringBuf, len(bufs), slot)
					ring[slot], ringBuf[slot] = bufs[b], b
					r.horizontal(ring[slot], s, scratch)
					ringRun[slot] = s
				}
				ringRow[slot] = s
			}
			if k == 0 || ringRun[slot] == run {
				run = ringRun[slot]
			} else {
				run = -1 // not all the same row
			}
			srcRows = append(srcRows, ring[slot])
		}
		switch {
		case run >= 0 && run == prevRun:
			copy(out, r.dst.Pix[(dy-1)*r.dst.Stride:]) // same rows, same output
		case run >= 0:
			unpackRow(out, srcRows[0]) // weights sum to one: the row itself
		default:
			verticalRow(out, srcRows, cy.weights, acc)
		}
		prevRun = run
	}
}

// unpackRow writes packed pixels (8 bits per 16-bit lane) as RGBA bytes.
func unpackRow(out []uint8, row []uint64) {
	out = out[:4*len(row)]
	for dx, v := range row {
		o := out[dx*4 : dx*4+4 : dx*4+4]
		o[0], o[1], o[2], o[3] = uint8(v), uint8(v>>16), uint8(v>>32), uint8(v>>48)
	}
}

// verticalRow writes out = Σk srcRows[k]·weights[k], rounded, unpacked to
// RGBA bytes; acc is scratch of the row's length. Summing whole rows one
// weight at a time keeps the inner loops free of indirection.
func verticalRow(out []uint8, srcRows [][]uint64, weights []uint32, acc []uint64) {
	first := srcRows[0][:len(acc)]
	w0 := uint64(weights[0])
	for dx, v := range first {
		acc[dx] = v * w0
	}
	for k := 1; k < len(weights); k++ {
		row, wk := srcRows[k][:len(acc)], uint64(weights[k])
		for dx, v := range row {
			acc[dx] += v * wk
		}
	}
	out = out[:4*len(acc)]
	for dx, a := range acc {
		v := round8(a)
		o := out[dx*4 : dx*4+4 : dx*4+4]
		o[0], o[1], o[2], o[3] = uint8(v), uint8(v>>16), uint8(v>>32), uint8(v>>48)
	}
}

// srcRow is source row y's samples.
func (r *resizer) srcRow(y int) []uint8 {
	return r.pix[y*r.stride : y*r.stride+r.sw*4]
}

// horizontal shrinks source row y into dst, packed and rounded to 8 bits
// per lane.
func (r *resizer) horizontal(dst []uint64, y int, scratch []uint64) {
	r.horizontalRow(dst, r.pix[y*r.stride:y*r.stride+r.sw*4], scratch)
}

// horizontalRow is horizontal of the source row's samples.
func (r *resizer) horizontalRow(dst []uint64, row []uint8, scratch []uint64) {
	if r.x3 != nil && !r.nrgba {
		// Every output pixel covers at most three source pixels (shrinking
		// by less than 2:1, the screenshot case): spread each source pixel
		// once, then a fixed, unrolled three-tap sum per output pixel.
		packed := scratch[:r.sw]
		for i := range packed {
			packed[i] = spread(binary.LittleEndian.Uint32(row[4*i : 4*i+4 : 4*i+4]))
		}
		for dx, t := range r.x3[:len(dst)] {
			p := packed[t.off : t.off+3 : t.off+3]
			dst[dx] = round8(p[0]*t.w[0] + p[1]*t.w[1] + p[2]*t.w[2])
		}
		return
	}
	for dx := range dst {
		cx := r.xs[dx]
		var acc uint64
		j := cx.start * 4
		for _, wx := range cx.weights {
			p := binary.LittleEndian.Uint32(row[j : j+4 : j+4])
			if r.nrgba && p>>24 != 0xFF {
				p = premultiply(p)
			}
			acc += spread(p) * uint64(wx)
			j += 4
		}
		dst[dx] = round8(acc)
	}
}

// tap3 is one output pixel's horizontal weights padded to three taps: the
// index of the first source pixel and the weights (zero for padding).
type tap3 struct {
	off int
	w   [3]uint64
}

// threeTaps pads every contribution to three taps, shifting the window
// left at the right edge, or returns nil when some output pixel needs
// more (or the source is narrower than three pixels).
func threeTaps(xs []contrib, src int) []tap3 {
	if src < 3 {
		return nil
	}
	out := make([]tap3, len(xs))
	for i, c := range xs {
		if len(c.weights) > 3 {
			return nil
		}
		start := min(c.start, src-3)
		shift := c.start - start
		for k, w := range c.weights {
			out[i].w[k+shift] = uint64(w)
		}
		out[i].off = start
	}
	return out
}

// spread moves the bytes R, G, B, A of a little-endian pixel into the
// 16-bit lanes of a uint64.
func spread(p uint32) uint64 {
	v := uint64(p)
	v = (v | v<<16) & 0x0000FFFF0000FFFF
	return (v | v<<8) & 0x00FF00FF00FF00FF
}

// round8 divides each 16-bit lane by 256, rounding to nearest.
func round8(v uint64) uint64 {
	return ((v + 0x0080008000800080) >> 8) & 0x00FF00FF00FF00FF
}

// premultiply turns a non-premultiplied little-endian RGBA pixel into a
// premultiplied one.
func premultiply(p uint32) uint32 {
	a := p >> 24
	r, g, b := mul255(p&0xFF, a), mul255(p>>8&0xFF, a), mul255(p>>16&0xFF, a)
	return r | g<<8 | b<<16 | a<<24
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

type encoderPool struct{ p sync.Pool }

func (e *encoderPool) Get() *png.EncoderBuffer {
	b, _ := e.p.Get().(*png.EncoderBuffer)
	return b
}
func (e *encoderPool) Put(b *png.EncoderBuffer) { e.p.Put(b) }

var pngEncoder = png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: &encoderPool{}}

// EncodePNG encodes img as PNG favouring speed over size (screenshots are
// sent every step). An opaque *image.RGBA (what Resize and SetOfMark
// return) takes imagecodec.EncodeOpaquePNG (RGB, Up filter, zlib
// BestSpeed, repeated rows as deflate blocks of their own); anything else
// goes through image/png at png.BestSpeed.
func EncodePNG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	if rgba, ok := img.(*image.RGBA); ok && !rgba.Bounds().Empty() {
		b, err := imagecodec.EncodeOpaquePNG(rgba)
		if err == nil {
			return b, nil
		}
		if !errors.Is(err, imagecodec.ErrTranslucent) {
			return nil, fmt.Errorf("screen: %w", err)
		}
	}
	if err := pngEncoder.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("screen: encode png: %w", err)
	}
	return buf.Bytes(), nil
}
