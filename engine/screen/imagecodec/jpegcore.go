package imagecodec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"sync"
)

// The encoder below writes the same baseline JPEG as image/jpeg (4:2:0,
// Annex K Huffman tables, image/jpeg's quality scaling) but faster for
// screenshots: most 8×8 blocks of a UI are one flat colour, and a flat
// block's transform is its DC term alone, so it skips the DCT and writes
// two Huffman codes. The headers and tables are image/jpeg's own, taken
// from a tiny image it encodes once per quality, so both encoders stay
// byte-compatible.

// jpegTables are the headers, quantizers and Huffman codes for one quality.
type jpegTables struct {
	header []byte // SOI, DQT, SOF0 (height and width to patch), DHT
	sofAt  int
	sos    []byte // the SOS segment
	// quant[t][k] is table t's divisor for the k-th coefficient in natural
	// (row-major) order; scale folds in the DCT's normalization.
	scale [2][64]float32
	dc    [2]huffCodes
	ac    [2]huffCodes
}

// huffCodes maps a symbol to its code (right-aligned) and length.
type huffCodes struct {
	code [256]uint16
	size [256]uint8
}

var (
	tablesMu sync.Mutex
	tablesBy = map[int]*jpegTables{}
)

// tablesFor returns the tables of a quality, built from image/jpeg's output.
func tablesFor(quality int) (*jpegTables, error) {
	tablesMu.Lock()
	defer tablesMu.Unlock()
	if t, ok := tablesBy[quality]; ok {
		return t, nil
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 16, 16)), &jpeg.Options{Quality: quality}); err != nil {
		return nil, err
	}
	t, err := parseTables(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("image/jpeg's tables: %w", err)
	}
	tablesBy[quality] = t
	return t, nil
}

// zigzag[i] is the natural-order index of the i-th zig-zag coefficient.
var zigzag = [64]uint8{
	0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
	12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
	35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
	58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
}

// parseTables reads the DQT, SOF0, DHT and SOS segments of a JPEG.
func parseTables(b []byte) (*jpegTables, error) {
	t := &jpegTables{sofAt: -1}
	for i := 2; i+4 <= len(b); {
		if b[i] != 0xFF {
			return nil, fmt.Errorf("no marker at %d", i)
		}
		n := int(binary.BigEndian.Uint16(b[i+2:]))
		seg := b[i+4 : i+2+n]
		switch b[i+1] {
		case 0xDB: // DQT: (Pq/Tq, 64 bytes in zig-zag order)+
			for len(seg) >= 65 {
				id := seg[0] & 0x0F
				for z := 0; z < 64; z++ {
					t.scale[id&1][zigzag[z]] = float32(seg[1+z])
				}
				seg = seg[65:]
			}
		case markerSOF0:
			t.sofAt = i
		case 0xC4: // DHT: (Tc/Th, 16 counts, values)+
			for len(seg) >= 17 {
				class, id := seg[0]>>4, seg[0]&1
				counts := seg[1:17]
				total := 0
				for _, c := range counts {
					total += int(c)
				}
				if len(seg) < 17+total {
					return nil, fmt.Errorf("short DHT")
				}
				h := &t.dc[id]
				if class == 1 {
					h = &t.ac[id]
				}
				buildHuffman(h, counts, seg[17:17+total])
				seg = seg[17+total:]
			}
		case markerSOS:
			if t.sofAt < 0 {
				return nil, fmt.Errorf("scan before SOF0")
			}
			t.header = append([]byte(nil), b[:i]...)
			t.sos = append([]byte(nil), b[i:i+2+n]...)
			t.finishScale()
			return t, nil
		}
		i += 2 + n
	}
	return nil, fmt.Errorf("no scan (SOS) found")
}

// buildHuffman assigns canonical codes (T.81 Annex C) to values.
func buildHuffman(h *huffCodes, counts, values []byte) {
	code, k := uint16(0), 0
	for length := 1; length <= 16; length++ {
		for n := 0; n < int(counts[length-1]); n++ {
			h.code[values[k]] = code
			h.size[values[k]] = uint8(length)
			code++
			k++
		}
		code <<= 1
	}
}

// finishScale turns quantizer divisors into multipliers that also undo
// the scaling fdct leaves in its output (libjpeg's float AAN convention:
// coefficient (u, v) comes out times 8·aan[u]·aan[v]).
func (t *jpegTables) finishScale() {
	for id := range t.scale {
		for k, q := range t.scale[id] {
			u, v := k%8, k/8
			t.scale[id][k] = float32(1 / (float64(q) * aanScale[u] * aanScale[v] * 8))
		}
	}
}

// aanScale[k] is 1 for k = 0, else cos(kπ/16)·√2.
var aanScale = func() (a [8]float64) {
	a[0] = 1
	for k := 1; k < 8; k++ {
		a[k] = math.Cos(float64(k)*math.Pi/16) * math.Sqrt2
	}
	return a
}()

// fdct is the Arai-Agui-Nakajima forward DCT on 64 level-shifted samples
// (row-major), in place: 5 multiplies per 8-point pass instead of 64. The
// outputs carry the scale finishScale folds into the quantizers.
func fdct(d *[64]float32) {
	for i := 0; i < 8; i++ {
		aan8(d, i*8, 1)
	}
	for i := 0; i < 8; i++ {
		aan8(d, i, 8)
	}
}

// aan8 transforms the 8 values d[o], d[o+step], … d[o+7·step].
func aan8(d *[64]float32, o, step int) {
	d0, d1, d2, d3 := d[o], d[o+step], d[o+2*step], d[o+3*step]
	d4, d5, d6, d7 := d[o+4*step], d[o+5*step], d[o+6*step], d[o+7*step]
	tmp0, tmp7 := d0+d7, d0-d7
	tmp1, tmp6 := d1+d6, d1-d6
	tmp2, tmp5 := d2+d5, d2-d5
	tmp3, tmp4 := d3+d4, d3-d4

	tmp10, tmp13 := tmp0+tmp3, tmp0-tmp3 // even part
	tmp11, tmp12 := tmp1+tmp2, tmp1-tmp2
	d[o] = tmp10 + tmp11
	d[o+4*step] = tmp10 - tmp11
	z1 := (tmp12 + tmp13) * 0.707106781
	d[o+2*step] = tmp13 + z1
	d[o+6*step] = tmp13 - z1

	tmp10 = tmp4 + tmp5 // odd part
	tmp11 = tmp5 + tmp6
	tmp12 = tmp6 + tmp7
	z5 := (tmp10 - tmp12) * 0.382683433
	z2 := 0.541196100*tmp10 + z5
	z4 := 1.306562965*tmp12 + z5
	z3 := tmp11 * 0.707106781
	z11, z13 := tmp7+z3, tmp7-z3
	d[o+5*step] = z13 + z2
	d[o+3*step] = z13 - z2
	d[o+step] = z11 + z4
	d[o+7*step] = z11 - z4
}

// flatBlock reports whether every sample of the 8×8 block at (x0, y0)
// (edges replicated beyond w, h) equals v, comparing eight bytes at a time
// inside the plane.
func flatBlock(plane []uint8, stride, x0, y0, w, h int, v uint8) bool {
	want := uint64(v) * 0x0101010101010101
	for y := 0; y < 8; y++ {
		row := plane[min(y0+y, h-1)*stride:]
		if x0+8 <= w {
			if binary.LittleEndian.Uint64(row[x0:x0+8]) != want {
				return false
			}
			continue
		}
		for x := 0; x < 8; x++ {
			if row[min(x0+x, w-1)] != v {
				return false
			}
		}
	}
	return true
}

// roundInt rounds half away from zero, like image/jpeg's quantizer.
func roundInt(f float32) int32 {
	if f < 0 {
		return int32(f - 0.5)
	}
	return int32(f + 0.5)
}

// bitWriter packs Huffman codes MSB first, stuffing a zero after 0xFF.
type bitWriter struct {
	out   []byte
	acc   uint64
	nbits uint
}

func (w *bitWriter) put(code uint32, size uint8) {
	w.acc = w.acc<<size | uint64(code)
	w.nbits += uint(size)
	for w.nbits >= 8 {
		w.nbits -= 8
		b := byte(w.acc >> w.nbits)
		w.out = append(w.out, b)
		if b == 0xFF {
			w.out = append(w.out, 0)
		}
	}
}

// flush pads the last byte with 1 bits, as T.81 requires before a marker.
func (w *bitWriter) flush() {
	if w.nbits > 0 {
		w.put(1<<(8-w.nbits)-1, uint8(8-w.nbits))
	}
}

// magnitude returns JPEG's (size category, extra bits) of a coefficient.
func magnitude(v int32) (uint8, uint32) {
	a := v
	if a < 0 {
		a = -a
		v--
	}
	n := uint8(0)
	for a > 0 {
		n++
		a >>= 1
	}
	return n, uint32(v) & (1<<n - 1)
}

// blockEncoder encodes blocks of one band, keeping the DC predictors.
type blockEncoder struct {
	t      *jpegTables
	w      bitWriter
	prevDC [3]int32
}

// block encodes one 8×8 block of component comp (0 = Y, 1 = Cb, 2 = Cr),
// samples read from plane at (x, y) with edges replicated beyond (w, h).
func (e *blockEncoder) block(comp int, plane []uint8, stride, x0, y0, w, h int) {
	first := plane[min(y0, h-1)*stride+min(x0, w-1)]
	flat := flatBlock(plane, stride, x0, y0, w, h, first)
	var s [64]float32
	if flat {
		s[0] = float32(first) - 128
	} else {
		for y := 0; y < 8; y++ {
			row := plane[min(y0+y, h-1)*stride:]
			if x0+8 <= w { // interior: no edge to replicate
				for x, p := range row[x0 : x0+8 : x0+8] {
					s[y*8+x] = float32(p) - 128
				}
				continue
			}
			for x := 0; x < 8; x++ {
				s[y*8+x] = float32(row[min(x0+x, w-1)]) - 128
			}
		}
	}
	tab := min(comp, 1)
	scale := &e.t.scale[tab]
	var q [64]int32
	if flat {
		q[0] = roundInt(s[0] * 64 * scale[0])
	} else {
		fdct(&s)
		for k := range s {
			q[k] = roundInt(s[k] * scale[k])
		}
	}
	// DC: difference from the previous block of the component.
	diff := q[0] - e.prevDC[comp]
	e.prevDC[comp] = q[0]
	n, bits := magnitude(diff)
	dc, ac := &e.t.dc[tab], &e.t.ac[tab]
	e.w.put(uint32(dc.code[n]), dc.size[n])
	if n > 0 {
		e.w.put(bits, n)
	}
	// AC in zig-zag order: (run of zeros, size) symbols, ZRL, EOB.
	run := 0
	for z := 1; z < 64; z++ {
		v := q[zigzag[z]]
		if v == 0 {
			run++
			continue
		}
		for run > 15 {
			e.w.put(uint32(ac.code[0xF0]), ac.size[0xF0])
			run -= 16
		}
		n, bits := magnitude(v)
		sym := uint8(run<<4) | n
		e.w.put(uint32(ac.code[sym]), ac.size[sym])
		e.w.put(bits, n)
		run = 0
	}
	if run > 0 {
		e.w.put(uint32(ac.code[0x00]), ac.size[0x00])
	}
}

// encodeMCURows encodes MCU rows [r0, r1) of a 4:2:0 image and returns the
// entropy-coded bytes (padded, without a trailing marker).
func encodeMCURows(t *jpegTables, img *image.YCbCr, r0, r1 int) []byte {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	cw, ch := (w+1)/2, (h+1)/2
	e := &blockEncoder{t: t}
	e.w.out = make([]byte, 0, (r1-r0)*w*2)
	for my := r0; my < r1; my++ {
		for mx := 0; mx*16 < w; mx++ {
			x, y := mx*16, my*16
			e.block(0, img.Y, img.YStride, x, y, w, h)
			e.block(0, img.Y, img.YStride, x+8, y, w, h)
			e.block(0, img.Y, img.YStride, x, y+8, w, h)
			e.block(0, img.Y, img.YStride, x+8, y+8, w, h)
			e.block(1, img.Cb, img.CStride, x/2, y/2, cw, ch)
			e.block(2, img.Cr, img.CStride, x/2, y/2, cw, ch)
		}
	}
	e.w.flush()
	return e.w.out
}
