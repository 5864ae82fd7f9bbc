package screen

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"image"
	"math/bits"
	"strconv"
)

// hashSamples is the least number of samples DHash takes along each side of
// a grid cell; larger images are sampled sparsely.
const hashSamples = 24

// Share of the screen height DHash skips at the top (status bar) and the
// bottom (navigation bar).
const (
	HashSkipTop    = 0.07
	HashSkipBottom = 0.11
)

// DHash is the difference hash of a screenshot (docs/formats.md#screen-snapshot): the
// image minus its top 7 % and bottom 11 % is averaged to a 9×8 grid of Rec.
// 601 luma (large images on an evenly spaced sample of ≥ 24×24 pixels per
// cell, so a 1080×2400 screenshot hashes in well under a millisecond); each of the 64 bits says whether a cell is brighter than
// its right neighbour (row by row, most significant bit first). The result
// is 16 lowercase hex digits. An empty image hashes to all zeros.
func DHash(img image.Image) string {
	return fmt.Sprintf("%016x", dhash(img))
}

func dhash(img image.Image) uint64 {
	b := img.Bounds()
	top := b.Min.Y + int(float64(b.Dy())*HashSkipTop)
	bottom := b.Max.Y - int(float64(b.Dy())*HashSkipBottom)
	if bottom <= top {
		top, bottom = b.Min.Y, b.Max.Y
	}
	crop := image.Rect(b.Min.X, top, b.Max.X, bottom)
	if crop.Empty() {
		return 0
	}
	pix, stride, nrgba := rgbaPixels(img, crop)
	w, h := crop.Dx(), crop.Dy()

	// A cell is the mean of the pixels sampled in it: every step-th row and
	// column, so a large screenshot costs about as much as a 216×192 one
	// (≥ hashSamples samples per cell side) while small images are read
	// whole. Sampling needs no weights: three additions per sample. An image
	// narrower than 9 (or shorter than 8) px gives some cells a single
	// shared pixel instead of none.
	step := max(1, min(w/9, h/8)/hashSamples)
	var cols [9 + 1]int
	for gx := range cols {
		cols[gx] = gx * w / 9
	}
	var sum [8][9][3]uint64
	var rows [8]int // sampled source rows per grid row
	for y := 0; y < h; y += step {
		gy := y * 8 / h
		rows[gy]++
		row := pix[y*stride : y*stride+w*4]
		cell := &sum[gy]
		for gx := 0; gx < 9; gx++ {
			lo, hi := cols[gx], max(cols[gx+1], cols[gx]+1)
			var r, g, bl uint64
			for i := lo * 4; i < hi*4; i += 4 * step {
				p := row[i : i+4 : i+4]
				if nrgba && p[3] != 255 {
					a := uint32(p[3])
					r += uint64(mul255(uint32(p[0]), a))
					g += uint64(mul255(uint32(p[1]), a))
					bl += uint64(mul255(uint32(p[2]), a))
					continue
				}
				r += uint64(p[0])
				g += uint64(p[1])
				bl += uint64(p[2])
			}
			cell[gx][0] += r
			cell[gx][1] += g
			cell[gx][2] += bl
		}
	}
	for gy := range rows {
		if rows[gy] == 0 { // fewer than 8 rows: borrow the nearest row's cells
			src := min(gy*h/8, h-1) * 8 / h
			sum[gy], rows[gy] = sum[src], rows[src]
		}
	}

	// Mean Rec. 601 luma per cell; cells may differ in pixel count by one.
	var h64 uint64
	for gy := 0; gy < 8; gy++ {
		var luma [9]float64
		for gx := 0; gx < 9; gx++ {
			c := sum[gy][gx]
			samples := (max(cols[gx+1]-cols[gx], 1) + step - 1) / step
			n := float64(rows[gy] * samples)
			luma[gx] = float64(299*c[0]+587*c[1]+114*c[2]) / n
		}
		for gx := 0; gx < 8; gx++ {
			h64 <<= 1
			if luma[gx] > luma[gx+1] {
				h64 |= 1
			}
		}
	}
	return h64
}

// Hamming is the number of differing bits between two DHash values; 64 (the
// maximum) when either is not 16 hex digits.
func Hamming(a, b string) int {
	x, okA := parseHash(a)
	y, okB := parseHash(b)
	if !okA || !okB {
		return 64
	}
	return bits.OnesCount64(x ^ y)
}

func parseHash(s string) (uint64, bool) {
	if len(s) != 16 {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 16, 64)
	return v, err == nil
}

// contentRows are the rows [top, bottom) of an image h rows high that
// ContentHash reads.
func contentRows(h int) (top, bottom int) {
	top, bottom = int(float64(h)*HashSkipTop), h-int(float64(h)*HashSkipBottom)
	if bottom <= top {
		return 0, h
	}
	return top, bottom
}

// contentSeed keys ContentHash; values are compared only within a process.
var contentSeed = maphash.MakeSeed()

// ContentHash is an exact fingerprint of the screen between the status and
// navigation bars (the bands DHash skips, so a ticking clock is no change):
// any pixel that differs there changes it. DHash answers "does it look the
// same" (cache reuse tolerates a few bits); ContentHash answers "did
// anything change" (state_delta, settling), where a toggled switch must
// count. Its seed is per process: never persist or compare across runs.
func ContentHash(img image.Image) string {
	b := img.Bounds()
	top, bottom := contentRows(b.Dy())
	top, bottom = b.Min.Y+top, b.Min.Y+bottom
	var h maphash.Hash
	h.SetSeed(contentSeed)
	r := image.Rect(b.Min.X, top, b.Max.X, bottom)
	pix, stride, _ := rgbaPixels(img, r)
	hashRows(&h, pix, stride, r.Dx()*4, r.Dy())
	return fmt.Sprintf("%016x", h.Sum64())
}

// hashRows writes n rows of row bytes each to h: a row equal to the one
// before it in the same rectangle as the byte 1 (screens repeat rows, and
// a repeated row is pinned by the one above), any other as 0 and its
// bytes. DecodeScaledPNG writes the same from the rows as they stream.
func hashRows(h *maphash.Hash, pix []byte, stride, row, n int) {
	for y := 0; y < n; y++ {
		r := pix[y*stride : y*stride+row]
		if y > 0 && bytes.Equal(r, pix[(y-1)*stride:(y-1)*stride+row]) {
			h.WriteByte(1)
			continue
		}
		h.WriteByte(0)
		h.Write(r)
	}
}

// BandsHash is ContentHash's complement: an exact fingerprint of the rows
// ContentHash skips (the status and navigation bars). Together the two
// pin every pixel, so screenshots of the same screen fetched as PNG and
// as raw pixels compare equal, which their bytes never do.
func BandsHash(img image.Image) string {
	b := img.Bounds()
	top, bottom := contentRows(b.Dy())
	var h maphash.Hash
	h.SetSeed(contentSeed)
	for _, r := range []image.Rectangle{
		image.Rect(b.Min.X, b.Min.Y, b.Max.X, b.Min.Y+top),
		image.Rect(b.Min.X, b.Min.Y+bottom, b.Max.X, b.Max.Y),
	} {
		if r.Empty() {
			continue
		}
		pix, stride, _ := rgbaPixels(img, r)
		hashRows(&h, pix, stride, r.Dx()*4, r.Dy())
	}
	return fmt.Sprintf("%016x", h.Sum64())
}
