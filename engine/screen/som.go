package screen

import (
	"encoding/binary"
	"image"
	"image/color"
	"image/draw"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/openpocket/openpocket/engine/screen/imagecodec"
)

// MarkColors are the set-of-mark colours, cycled by element position
// (docs/formats.md#screen-snapshot).
var MarkColors = []color.RGBA{
	{0x00, 0xE5, 0xFF, 0xFF},
	{0xFF, 0xEE, 0x58, 0xFF},
	{0x81, 0xC7, 0x84, 0xFF},
	{0xFF, 0x8A, 0x65, 0xFF},
	{0xCE, 0x93, 0xD8, 0xFF},
	{0x4D, 0xD0, 0xE1, 0xFF},
}

// Overlay opacities (out of 255).
const (
	markFillAlpha   = 56
	markBorderAlpha = 230
)

// digitFont is a 5×7 bitmap font for 0-9; each row's low 5 bits are the
// pixels, most significant on the left.
var digitFont = [10][7]uint8{
	{0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E},
	{0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E},
	{0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F},
	{0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E},
	{0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02},
	{0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E},
	{0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E},
	{0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08},
	{0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E},
	{0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C},
}

// SetOfMark returns a copy of img with, per element, a translucent box over
// its bounds (ScaledBounds when scaled, else Bounds), a border, and an opaque
// badge with the element's ID in dark digits at the top-left corner of the
// box (moved aside when an earlier badge is there), in MarkColors cycling by
// position; badges are drawn above all boxes. Element coordinates are relative to img's top-left
// corner. IDs that are not decimal numbers are drawn with their digits only.
func SetOfMark(img image.Image, elems []UIElement, scaled bool) *image.RGBA {
	return SetOfMarkInto(nil, img, elems, scaled)
}

// SetOfMarkInto is SetOfMark drawing into dst when it has img's bounds and
// a packed stride (else into a new image): the encoder's input is then a
// buffer the caller reuses from frame to frame (GetRGBA/PutRGBA), not a
// fresh copy of the screenshot per capture.
func SetOfMarkInto(dst *image.RGBA, img image.Image, elems []UIElement, scaled bool) *image.RGBA {
	b := img.Bounds()
	if dst == nil || dst.Rect != b || dst.Stride != 4*b.Dx() || len(dst.Pix) != 4*b.Dx()*b.Dy() {
		dst = nil
	}
	if src, ok := img.(*image.RGBA); ok && src.Stride == 4*b.Dx() && len(src.Pix) == 4*b.Dx()*b.Dy() {
		// A tightly packed copy: not zeroed first and then copied.
		if dst == nil {
			dst = &image.RGBA{Pix: slices.Clone(src.Pix), Stride: src.Stride, Rect: b}
		} else {
			copy(dst.Pix, src.Pix)
		}
	} else {
		if dst == nil {
			dst = image.NewRGBA(b)
		}
		draw.Draw(dst, b, img, b.Min, draw.Src)
	}
	if b.Empty() {
		return dst
	}
	// Badge digits scale with the image: 2 px per font pixel at 768 wide.
	s := max(1, (min(b.Dx(), b.Dy())+191)/384)
	boxes := make([]image.Rectangle, len(elems))
	for i, e := range elems {
		r := e.Bounds
		if scaled {
			r = e.ScaledBounds
		}
		boxes[i] = image.Rect(r.Left, r.Top, r.Right, r.Bottom).Add(b.Min).Intersect(b)
	}
	// Badges go on top of every box so later fills never dim them; where
	// they go depends only on the boxes, so it is decided once.
	pad := 2 * s
	placed := make([]image.Rectangle, 0, len(elems))
	badges := make([]image.Rectangle, len(elems))
	for i, e := range elems {
		if boxes[i].Empty() {
			continue
		}
		digits := badgeDigits(e.ID)
		w := pad*2 + len(digits)*5*s + max(0, len(digits)-1)*s
		h := pad*2 + 7*s
		badges[i] = placeBadge(b, boxes[i], w, h, placed)
		placed = append(placed, badges[i])
	}
	// Bands of rows are drawn in parallel: every band applies all marks in
	// order, clipped to itself, so the result is the sequential one.
	imagecodec.ParallelRows(b.Dy(), b.Dx()*b.Dy(), func(lo, hi int) {
		band := dst.SubImage(image.Rect(b.Min.X, b.Min.Y+lo, b.Max.X, b.Min.Y+hi)).(*image.RGBA)
		for i, box := range boxes {
			if !box.Empty() && box.Overlaps(band.Rect) {
				drawBox(band, box, MarkColors[i%len(MarkColors)], s)
			}
		}
		for i, e := range elems {
			if !boxes[i].Empty() && badges[i].Overlaps(band.Rect) {
				drawBadge(band, badges[i], badgeDigits(e.ID), MarkColors[i%len(MarkColors)], s)
			}
		}
	})
	return dst
}

// drawBox blends a mark's translucent fill and its border (border px
// wide) over box.
func drawBox(dst *image.RGBA, box image.Rectangle, c color.RGBA, border int) {
	blendRect(dst, box, c, markFillAlpha)
	inner := box.Inset(border)
	if inner.Empty() {
		blendRect(dst, box, c, markBorderAlpha-markFillAlpha)
		return
	}
	for _, edge := range []image.Rectangle{
		{box.Min, image.Pt(box.Max.X, inner.Min.Y)},
		{image.Pt(box.Min.X, inner.Max.Y), box.Max},
		{image.Pt(box.Min.X, inner.Min.Y), image.Pt(inner.Min.X, inner.Max.Y)},
		{image.Pt(inner.Max.X, inner.Min.Y), image.Pt(box.Max.X, inner.Max.Y)},
	} {
		blendRect(dst, edge, c, markBorderAlpha)
	}
}

// badgeDigits are the decimal digits of id (other characters are skipped).
func badgeDigits(id string) []int {
	var digits []int
	for i := 0; i < len(id); i++ {
		if id[i] >= '0' && id[i] <= '9' {
			digits = append(digits, int(id[i]-'0'))
		}
	}
	return digits
}

// placeBadge positions a w×h badge at the top-left corner of box, moved
// right (then down) past badges already placed so nested elements sharing a
// corner stay readable, and kept inside the image.
func placeBadge(img, box image.Rectangle, w, h int, placed []image.Rectangle) image.Rectangle {
	fit := func(r image.Rectangle) image.Rectangle {
		if r.Max.X > img.Max.X {
			r = r.Add(image.Pt(img.Max.X-r.Max.X, 0))
		}
		if r.Max.Y > img.Max.Y {
			r = r.Add(image.Pt(0, img.Max.Y-r.Max.Y))
		}
		return r.Intersect(img)
	}
	first := fit(image.Rect(box.Min.X, box.Min.Y, box.Min.X+w, box.Min.Y+h))
	overlaps := func(r image.Rectangle) bool {
		for _, p := range placed {
			if r.Overlaps(p) {
				return true
			}
		}
		return false
	}
	if !overlaps(first) {
		return first
	}
	for _, step := range []image.Point{{w + 1, 0}, {2 * (w + 1), 0}, {0, h + 1}, {w + 1, h + 1}} {
		r := image.Rect(box.Min.X, box.Min.Y, box.Min.X+w, box.Min.Y+h).Add(step)
		if r.Max.X > box.Max.X || r.Max.Y > box.Max.Y {
			continue
		}
		if r = fit(r); !overlaps(r) {
			return r
		}
	}
	return first
}

// drawBadge fills badge with c and writes the digits in dark ink, s image
// pixels per font pixel.
func drawBadge(dst *image.RGBA, badge image.Rectangle, digits []int, c color.RGBA, s int) {
	blendRect(dst, badge, c, 255)
	ink := color.RGBA{0x10, 0x10, 0x10, 0xFF}
	pad := 2 * s
	x := badge.Min.X + pad
	for _, d := range digits {
		for row, bitsRow := range digitFont[d] {
			for col := 0; col < 5; col++ {
				if bitsRow&(0x10>>col) == 0 {
					continue
				}
				px := image.Rect(x+col*s, badge.Min.Y+pad+row*s, x+(col+1)*s, badge.Min.Y+pad+(row+1)*s)
				blendRect(dst, px.Intersect(badge), ink, 255)
			}
		}
		x += 6 * s
	}
}

// blendLUTs caches blendLUT's tables: a few colours and opacities, used
// for every box of every frame.
var blendLUTs sync.Map // [4]uint8{R, G, B, a} → *[4][256]uint8

// blendLUT is one lookup table per channel: the blend of every possible
// sample with c at opacity a (cheaper than computing it per pixel).
func blendLUT(c color.RGBA, a uint32) *[4][256]uint8 {
	key := [4]uint8{c.R, c.G, c.B, uint8(a)}
	if v, ok := blendLUTs.Load(key); ok {
		return v.(*[4][256]uint8)
	}
	ia := 255 - a
	lut := new([4][256]uint8)
	for k, cv := range [4]uint32{uint32(c.R), uint32(c.G), uint32(c.B), 255} {
		for v := range uint32(256) {
			lut[k][v] = uint8((cv*a + v*ia + 127) / 255)
		}
	}
	if n := blendLUTCount.Add(1); n <= 256 { // marks use a handful
		blendLUTs.Store(key, lut)
	}
	return lut
}

var blendLUTCount atomic.Int32

// blendRect composites the opaque colour c at opacity a (0-255) over r.
func blendRect(dst *image.RGBA, r image.Rectangle, c color.RGBA, a uint32) {
	r = r.Intersect(dst.Bounds())
	if r.Empty() || a == 0 {
		return
	}
	if a >= 255 { // opaque: badges' digits are drawn pixel block by block
		v := uint32(c.R) | uint32(c.G)<<8 | uint32(c.B)<<16 | 0xFF<<24
		for y := r.Min.Y; y < r.Max.Y; y++ {
			row := dst.Pix[dst.PixOffset(r.Min.X, y):dst.PixOffset(r.Max.X, y)]
			for i := 0; i+3 < len(row); i += 4 {
				binary.LittleEndian.PutUint32(row[i:i+4:i+4], v)
			}
		}
		return
	}
	lut := blendLUT(c, a)
	// Screens are runs of one colour: a pixel equal to the last one
	// blended takes the last result (a compare instead of four lookups).
	var lastIn, lastOut uint32
	blend := func(p uint32) uint32 {
		return uint32(lut[0][uint8(p)]) | uint32(lut[1][uint8(p>>8)])<<8 | uint32(lut[2][uint8(p>>16)])<<16 | uint32(lut[3][uint8(p>>24)])<<24
	}
	lastOut = blend(lastIn)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := dst.Pix[dst.PixOffset(r.Min.X, y):dst.PixOffset(r.Max.X, y)]
		for i := 0; i+3 < len(row); i += 4 {
			p := binary.LittleEndian.Uint32(row[i : i+4 : i+4])
			if p != lastIn {
				lastIn, lastOut = p, blend(p)
			}
			binary.LittleEndian.PutUint32(row[i:i+4:i+4], lastOut)
		}
	}
}

// BlackThreshold is the largest channel value (0-255) IsBlack still counts
// as black.
const BlackThreshold = 16

// IsBlack reports whether an image is (nearly) all black, as screenshots of
// FLAG_SECURE windows are: every sampled pixel (a grid of up to 128×128
// points, plus the centre) has R, G and B at most BlackThreshold. An empty
// image is not black.
func IsBlack(img image.Image) bool {
	b := img.Bounds()
	if b.Empty() {
		return false
	}
	const samples = 128
	sx := max(1, b.Dx()/samples)
	sy := max(1, b.Dy()/samples)
	dark := func(x, y int) bool {
		switch s := img.(type) {
		case *image.RGBA:
			i := s.PixOffset(x, y)
			return s.Pix[i] <= BlackThreshold && s.Pix[i+1] <= BlackThreshold && s.Pix[i+2] <= BlackThreshold
		case *image.NRGBA:
			i := s.PixOffset(x, y)
			p := s.Pix[i : i+4 : i+4]
			if p[3] == 0 {
				return true
			}
			return p[0] <= BlackThreshold && p[1] <= BlackThreshold && p[2] <= BlackThreshold
		}
		r, g, bl, _ := img.At(x, y).RGBA()
		const t = BlackThreshold * 0x101
		return r <= t && g <= t && bl <= t
	}
	if !dark(b.Min.X+b.Dx()/2, b.Min.Y+b.Dy()/2) {
		return false
	}
	for y := b.Min.Y + sy/2; y < b.Max.Y; y += sy {
		for x := b.Min.X + sx/2; x < b.Max.X; x += sx {
			if !dark(x, y) {
				return false
			}
		}
	}
	return true
}
