package imagecodec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/draw"
	"runtime"
)

// mcuRows is the height of one JPEG MCU row with 4:2:0 subsampling.
const mcuRows = 16

// JPEG markers the encoder writes itself.
const (
	markerSOF0 = 0xC0
	markerSOS  = 0xDA
	markerEOI  = 0xD9
	markerRST0 = 0xD0
	markerDRI  = 0xDD
)

// EncodeJPEG encodes img as a baseline JPEG (4:2:0, image/jpeg's tables and
// quality scale) at quality 1-100. The image is converted to YCbCr once;
// large images are cut into bands of whole MCU rows encoded in parallel,
// one per CPU, and joined with restart markers: each band's entropy-coded
// data starts with fresh DC predictors, which is exactly what a restart
// interval of one band means to every decoder.
func EncodeJPEG(img image.Image, quality int) ([]byte, error) {
	b := img.Bounds()
	if b.Empty() || b.Dx() > 0xFFFF || b.Dy() > 0xFFFF {
		return nil, fmt.Errorf("imagecodec: encode jpeg: size %dx%d, expected sides 1..65535", b.Dx(), b.Dy())
	}
	t, err := tablesFor(max(1, min(quality, 100)))
	if err != nil {
		return nil, fmt.Errorf("imagecodec: encode jpeg: %w", err)
	}
	rgba, ok := img.(*image.RGBA)
	if !ok {
		rgba = image.NewRGBA(b)
		draw.Draw(rgba, b, img, b.Min, draw.Src)
	}
	ycc := getYCbCr(b) // every sample is written below
	defer yccPool.Put(ycc)
	mcuCols, rows := (b.Dx()+mcuRows-1)/mcuRows, (b.Dy()+mcuRows-1)/mcuRows
	bands := 1
	if b.Dx()*b.Dy() >= parallelMinPixels {
		bands = min(runtime.GOMAXPROCS(0), rows)
	}
	per := (rows + bands - 1) / bands
	per = min(per, 0xFFFF/mcuCols) // the restart interval is 16 bits
	bands = (rows + per - 1) / per
	segs := make([][]byte, bands)
	ParallelRows(bands, parallelMinPixels, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			r0, r1 := i*per, min(rows, (i+1)*per)
			convertRows(rgba, ycc, r0*mcuRows, min(b.Dy(), r1*mcuRows))
			segs[i] = encodeMCURows(t, ycc, r0, r1)
		}
	})
	size := len(t.header) + len(t.sos) + 16 + 2*bands
	for _, s := range segs {
		size += len(s)
	}
	out := make([]byte, 0, size)
	out = append(out, t.header...)
	binary.BigEndian.PutUint16(out[t.sofAt+5:], uint16(b.Dy()))
	binary.BigEndian.PutUint16(out[t.sofAt+7:], uint16(b.Dx()))
	if bands > 1 {
		interval := per * mcuCols
		out = append(out, 0xFF, markerDRI, 0, 4, byte(interval>>8), byte(interval))
	}
	out = append(out, t.sos...)
	for i, s := range segs {
		if i > 0 {
			out = append(out, 0xFF, byte(markerRST0+(i-1)%8))
		}
		out = append(out, s...)
	}
	return append(out, 0xFF, markerEOI), nil
}

// convertRows converts rows [y0, y1) (relative to the image, y0 even) of
// src into dst: luma per pixel, chroma as the mean colour of each 2×2
// block, with color.RGBToYCbCr's fixed-point coefficients. A row (pair)
// equal to the one above is copied instead: screens repeat rows.
func convertRows(src *image.RGBA, dst *image.YCbCr, y0, y1 int) {
	r := src.Rect
	w := r.Dx()
	row := func(y int) []uint8 { return src.Pix[src.PixOffset(r.Min.X, r.Min.Y+y):][:4*w] }
	for y := y0; y < y1; y++ {
		yrow := dst.Y[y*dst.YStride : y*dst.YStride+w]
		if y > y0 && bytes.Equal(row(y), row(y-1)) {
			copy(yrow, dst.Y[(y-1)*dst.YStride:])
			continue
		}
		px := row(y)
		for x := range yrow {
			p := px[4*x : 4*x+3 : 4*x+3]
			yrow[x] = uint8((19595*int32(p[0]) + 38470*int32(p[1]) + 7471*int32(p[2]) + 1<<15) >> 16)
		}
	}
	cw := (w + 1) / 2
	for cy := y0 / 2; cy < (y1+1)/2; cy++ {
		top, bot := row(2*cy), row(min(2*cy+1, r.Dy()-1))
		cbRow, crRow := dst.Cb[cy*dst.CStride:cy*dst.CStride+cw], dst.Cr[cy*dst.CStride:cy*dst.CStride+cw]
		if cy > y0/2 && bytes.Equal(top, row(2*cy-2)) && bytes.Equal(bot, row(2*cy-1)) {
			copy(cbRow, dst.Cb[(cy-1)*dst.CStride:])
			copy(crRow, dst.Cr[(cy-1)*dst.CStride:])
			continue
		}
		for cx := range cbRow {
			i0 := 8 * cx
			i1 := min(i0+4, 4*(w-1))
			rr := int32(top[i0]) + int32(top[i1]) + int32(bot[i0]) + int32(bot[i1])
			gg := int32(top[i0+1]) + int32(top[i1+1]) + int32(bot[i0+1]) + int32(bot[i1+1])
			bb := int32(top[i0+2]) + int32(top[i1+2]) + int32(bot[i0+2]) + int32(bot[i1+2])
			// Sums of four samples: the coefficients absorb the /4.
			cb := -11056*rr - 21712*gg + 32768*bb + 257<<17
			cr := 32768*rr - 27440*gg - 5328*bb + 257<<17
			cbRow[cx] = clampYCbCr(cb >> 18)
			crRow[cx] = clampYCbCr(cr >> 18)
		}
	}
}

func clampYCbCr(v int32) uint8 {
	return uint8(max(0, min(255, v)))
}
