package screen

import (
	"fmt"
	"image"
	"image/draw"
	"math/bits"
	"strconv"
)

// Share of the screen height DHash skips at the top (status bar) and the
// bottom (navigation bar).
const (
	HashSkipTop    = 0.07
	HashSkipBottom = 0.11
)

// DHash is the difference hash of a screenshot (REFERENCE.md step 5): the
// image minus its top 7 % and bottom 11 % is area-averaged to a 9×8
// grayscale grid; each of the 64 bits says whether a cell is brighter than
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
	var pix []uint8
	var stride int
	nrgba := false
	switch s := img.(type) {
	case *image.RGBA:
		pix, stride = s.Pix[s.PixOffset(crop.Min.X, crop.Min.Y):], s.Stride
	case *image.NRGBA:
		pix, stride = s.Pix[s.PixOffset(crop.Min.X, crop.Min.Y):], s.Stride
		nrgba = true
	default:
		c := image.NewRGBA(image.Rect(0, 0, crop.Dx(), crop.Dy()))
		draw.Draw(c, c.Bounds(), img, crop.Min, draw.Src)
		pix, stride = c.Pix, c.Stride
	}
	w, h := crop.Dx(), crop.Dy()
	xs := boxWeights(w, 9)
	ys := boxWeights(h, 8)

	// Source rows are reduced to 9 cells, then rows are folded into the 8
	// grid rows. Gray is 16.16 fixed point Rec. 601 luma.
	var grid [8][9]uint64
	gray := make([]uint32, w)
	for gy, cy := range ys {
		for k, wy := range cy.weights {
			if wy == 0 {
				continue
			}
			row := pix[(cy.start+k)*stride : (cy.start+k)*stride+w*4]
			for x := range gray {
				r, g, bl := uint32(row[4*x]), uint32(row[4*x+1]), uint32(row[4*x+2])
				if nrgba {
					if a := uint32(row[4*x+3]); a != 255 {
						r, g, bl = mul255(r, a), mul255(g, a), mul255(bl, a)
					}
				}
				gray[x] = (19595*r + 38470*g + 7471*bl + 1<<15) >> 16
			}
			for gx, cx := range xs {
				var s uint64
				for i, wx := range cx.weights {
					s += uint64(gray[cx.start+i]) * uint64(wx)
				}
				grid[gy][gx] += s * uint64(wy)
			}
		}
	}
	var h64 uint64
	for y := 0; y < 8; y++ {
		for x := 0; x < 8; x++ {
			h64 <<= 1
			if grid[y][x] > grid[y][x+1] {
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
