package android

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"sync"

	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// glyphBitmap is one rune of the 7x13 font as an on/off grid.
type glyphBitmap struct {
	w, h int
	on   []bool
}

var (
	glyphMu    sync.Mutex
	glyphCache = map[rune]*glyphBitmap{}
)

const glyphW, glyphH = 7, 13

func glyphFor(r rune) *glyphBitmap {
	glyphMu.Lock()
	defer glyphMu.Unlock()
	if g, ok := glyphCache[r]; ok {
		return g
	}
	face := basicfont.Face7x13
	g := &glyphBitmap{w: glyphW, h: glyphH, on: make([]bool, glyphW*glyphH)}
	dr, mask, maskp, _, ok := face.Glyph(fixed.P(0, face.Ascent), r)
	if ok && mask != nil {
		for y := 0; y < dr.Dy() && y < glyphH; y++ {
			for x := 0; x < dr.Dx() && x < glyphW; x++ {
				_, _, _, a := mask.At(maskp.X+x, maskp.Y+y).RGBA()
				g.on[y*glyphW+x] = a > 0x7fff
			}
		}
	} else {
		// Unknown glyph (CJK, emoji…): a hollow box, like a missing-font tofu.
		for y := 1; y < glyphH-1; y++ {
			for x := 1; x < glyphW-1; x++ {
				g.on[y*glyphW+x] = y == 1 || y == glyphH-2 || x == 1 || x == glyphW-2
			}
		}
	}
	glyphCache[r] = g
	return g
}

// fill paints r (clipped to clip and the image) with an opaque colour.
func fill(img *image.RGBA, r, clip image.Rectangle, c color.RGBA) {
	r = r.Intersect(clip).Intersect(img.Rect)
	if r.Empty() {
		return
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := img.Pix[img.PixOffset(r.Min.X, y):img.PixOffset(r.Max.X, y)]
		for i := 0; i < len(row); i += 4 {
			row[i], row[i+1], row[i+2], row[i+3] = c.R, c.G, c.B, 255
		}
	}
}

// dim darkens the whole image by half, the scrim behind a dialog.
func dim(img *image.RGBA) {
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i] /= 2
		img.Pix[i+1] /= 2
		img.Pix[i+2] /= 2
	}
}

func textWidth(s string, scale int) int {
	return len([]rune(s)) * glyphW * scale
}

// drawText draws s with its top-left corner at (x, y), clipped to clip.
func drawText(img *image.RGBA, s string, x, y, scale int, clip image.Rectangle, c color.RGBA) {
	for _, r := range s {
		g := glyphFor(r)
		for gy := 0; gy < g.h; gy++ {
			for gx := 0; gx < g.w; gx++ {
				if g.on[gy*g.w+gx] {
					px := image.Rect(x+gx*scale, y+gy*scale, x+(gx+1)*scale, y+(gy+1)*scale)
					fill(img, px, clip, c)
				}
			}
		}
		x += glyphW * scale
		if x > clip.Max.X {
			return
		}
	}
}

// drawLabel draws one line of text vertically centred in r, left-aligned
// with a small inset or centred.
func drawLabel(img *image.RGBA, s string, r, clip image.Rectangle, scale int, center bool, c color.RGBA) {
	if s == "" {
		return
	}
	scale = max(scale, 1)
	y := r.Min.Y + (r.Dy()-glyphH*scale)/2
	x := r.Min.X
	if center {
		x += (r.Dx() - textWidth(s, scale)) / 2
	}
	drawText(img, s, x, y, scale, clip.Intersect(r), c)
}

func (p *Phone) drawView(img *image.RGBA, v *view, density int) {
	clip := v.bounds
	if v.look.bg.A != 0 {
		fill(img, v.full, clip, v.look.bg)
	}
	dp := func(n int) int { return (n*density + 80) / 160 }
	switch v.class {
	case clsEdit:
		line := colHint
		if v.focused {
			line = colAccent
		}
		fill(img, image.Rect(v.full.Min.X, v.full.Max.Y-dp(2), v.full.Max.X, v.full.Max.Y), clip, line)
		inner := image.Rect(v.full.Min.X+dp(4), v.full.Min.Y, v.full.Max.X-dp(4), v.full.Max.Y)
		text, fg := v.text, v.look.fg
		if v.password {
			text = starMask(text)
		}
		if text == "" {
			text, fg = v.hint, colHint
			if v.focused {
				text = ""
			}
		}
		drawLabel(img, text, inner, clip, v.look.textScale, false, fg)
		if v.focused {
			cx := inner.Min.X + textWidth(text, max(v.look.textScale, 1))
			if text == v.hint {
				cx = inner.Min.X
			}
			fill(img, image.Rect(cx, v.full.Min.Y+dp(14), cx+dp(2), v.full.Max.Y-dp(14)), clip, colAccent)
		}
	case clsSwitch:
		track, thumb := colDisabled, colWhite
		if v.checked {
			track, thumb = colAccent, colAccent
		}
		cy := (v.full.Min.Y + v.full.Max.Y) / 2
		tr := image.Rect(v.full.Max.X-dp(44), cy-dp(7), v.full.Max.X-dp(4), cy+dp(7))
		fill(img, tr, clip, track)
		tx := tr.Min.X - dp(2)
		if v.checked {
			tx = tr.Max.X - dp(18)
		}
		fill(img, image.Rect(tx, cy-dp(10), tx+dp(20), cy+dp(10)), clip, colDivider)
		fill(img, image.Rect(tx+dp(1), cy-dp(9), tx+dp(19), cy+dp(9)), clip, thumb)
	case clsImage:
		drawLabel(img, v.look.glyph, v.full, clip, v.look.textScale, true, v.look.fg)
	case clsLinear:
		if v.clickable {
			fill(img, image.Rect(v.full.Min.X, v.full.Max.Y-1, v.full.Max.X, v.full.Max.Y), clip, colDivider)
		}
	default:
		inset := 0
		if !v.look.center {
			inset = dp(4)
		}
		r := image.Rect(v.full.Min.X+inset, v.full.Min.Y, v.full.Max.X, v.full.Max.Y)
		drawLabel(img, v.text, r, clip, v.look.textScale, v.look.center, v.look.fg)
	}
	for _, c := range v.children {
		p.drawView(img, c, density)
	}
}

func starMask(s string) string {
	n := len([]rune(s))
	b := make([]byte, n)
	for i := range b {
		b[i] = '*'
	}
	return string(b)
}

// blackScreenLocked reports whether screencap must return a black image:
// the screen is off, or the focused window is FLAG_SECURE.
func (p *Phone) blackScreenLocked() bool {
	return !p.st.awake || p.st.secure[p.topLocked().pkg]
}

// imageLocked returns the rendered screen, re-rendering only after a change.
func (p *Phone) imageLocked() *image.RGBA {
	if p.img != nil && p.imgVersion == p.version {
		return p.img
	}
	tree := p.treeLocked()
	img := image.NewRGBA(image.Rect(0, 0, tree.w, tree.h))
	if p.blackScreenLocked() {
		fill(img, img.Rect, img.Rect, colBlack)
	} else {
		for _, w := range tree.windows {
			if w.scrim {
				dim(img)
			}
			if w.act != nil && p.st.ext.secureScreens[w.act.component()] {
				// A FLAG_SECURE layer is left out of screenshots: black
				// where it is, the system bars still drawn over it.
				fill(img, w.root.bounds, img.Rect, colBlack)
				continue
			}
			p.drawView(img, w.root, tree.density)
		}
	}
	p.img, p.imgVersion = img, p.version
	return img
}

// pngLocked returns the PNG of the screen, cached per state version.
func (p *Phone) pngLocked() []byte {
	if p.png != nil && p.pngVersion == p.version {
		return p.png
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, p.imageLocked()); err != nil {
		// Encoding an in-memory RGBA image into a buffer cannot fail.
		panic("android: png encode: " + err.Error())
	}
	p.png, p.pngVersion = buf.Bytes(), p.version
	return p.png
}

// treeLocked returns the laid-out screen, cached per state version.
func (p *Phone) treeLocked() *screenTree {
	if p.tree != nil && p.treeVersion == p.version {
		return p.tree
	}
	p.tree, p.treeVersion = p.buildTreeLocked(), p.version
	return p.tree
}

// Screenshot returns the current screen. The image is shared with the
// phone's cache: callers must not modify it.
func (p *Phone) Screenshot() image.Image {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.imageLocked()
}

// ScreenPNG returns the current screen as PNG bytes (shared; do not modify).
func (p *Phone) ScreenPNG() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pngLocked()
}
