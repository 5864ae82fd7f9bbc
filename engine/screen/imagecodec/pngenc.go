package imagecodec

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"sync"
)

var (
	flatePool sync.Pool // *flate.Writer at BestSpeed
	idatPool  sync.Pool // *bytes.Buffer for the IDAT stream
)

// encodeOpaqueRGBA writes an opaque *image.RGBA as an 8-bit RGB PNG with
// the Up filter on every row (None on the first) and zlib BestSpeed, or
// returns ErrTranslucent at the first pixel that is not opaque (checked
// as rows are packed; a repeated row has the alpha of the one above). The
// standard encoder tries five filters per row; for screenshots Up compresses
// about as well at a fraction of the cost. A row equal to the one above
// (screens are full of them) filters to zeros without being looked at
// pixel by pixel; other rows are converted and differenced eight bytes at
// a time.
func encodeOpaqueRGBA(buf *bytes.Buffer, img *image.RGBA) error {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	buf.Write([]byte("\x89PNG\r\n\x1a\n"))

	writeRGBHeader(buf, w, h)

	// IDAT: zlib stream of filtered rows, written into a scratch buffer.
	idat, _ := idatPool.Get().(*bytes.Buffer)
	if idat == nil {
		idat = new(bytes.Buffer)
	}
	idat.Reset()
	defer idatPool.Put(idat)
	// The zlib wrapper is written here, not by compress/zlib: the
	// checksum of an unchanged row (a filter byte and zeros) is then a
	// multiplication instead of a pass over its bytes.
	idat.Write([]byte{0x78, 0x01}) // deflate, 32K window, fastest
	zw, err := pooledFlate(idat)
	if err != nil {
		return err
	}
	defer flatePool.Put(zw)
	sum, err := writeUpRows(idat, zw, img)
	if err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	var trailer [4]byte
	binary.BigEndian.PutUint32(trailer[:], sum.sum32())
	idat.Write(trailer[:])
	writeChunk(buf, "IDAT", idat.Bytes())
	writeChunk(buf, "IEND", nil)
	return nil
}

// writeUpRows filters img's rows (None on the first, Up on the others)
// into zw, or as zero-run blocks straight into idat, and returns the
// Adler-32 of the filtered bytes.
func writeUpRows(idat *bytes.Buffer, zw *flate.Writer, img *image.RGBA) (adler, error) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	sum := adler{a: 1}
	rowLen := 1 + 3*w
	// One allocation: the current and previous RGB rows (with a spare
	// byte each for the 4-byte stores), the filtered row and a zero row.
	scratch := make([]byte, 4*rowLen+2)
	cur, prev := scratch[:rowLen+1], scratch[rowLen+1:2*rowLen+2]
	out, zeros := scratch[2*rowLen+2:3*rowLen+2], scratch[3*rowLen+2:]
	zeros[0] = 2 // Up: zeros are an unchanged row
	pix := func(y int) []byte { return img.Pix[img.PixOffset(b.Min.X, b.Min.Y+y):][:4*w] }
	var above []byte
	for y := 0; y < h; y++ {
		src := pix(y)
		if y > 0 && bytes.Equal(src, above) {
			n := 1
			for y+n < h && bytes.Equal(pix(y+n), above) {
				n++
			}
			if err := writeRepeatedRows(idat, zw, zeros, n); err != nil {
				return sum, err
			}
			for range n {
				sum.upRow(rowLen - 1)
			}
			y += n - 1
			continue // cur and prev both hold this row's RGB already
		}
		above = src
		if !rgbRow(cur[1:], src) {
			return sum, ErrTranslucent
		}
		row := out
		if y == 0 {
			cur[0] = 0
			row = cur[:rowLen]
		} else {
			out[0] = 2 // Up
			subBytes(out[1:], cur[1:rowLen], prev[1:rowLen])
		}
		sum.write(row)
		if _, err := zw.Write(row); err != nil {
			return sum, err
		}
		cur, prev = prev, cur
	}
	return sum, nil
}

// writeRepeatedRows writes n rows equal to the one above (each the Up
// filtered row zeros). A long run is a deflate block of its own
// (pngzero.go); a short one is left to compress/flate.
func writeRepeatedRows(idat *bytes.Buffer, zw *flate.Writer, zeros []byte, n int) error {
	if n >= zeroRunMin {
		if zr, err := zeroRunFor(len(zeros)); err == nil {
			if err := zw.Flush(); err != nil {
				return err
			}
			zr.write(idat, n)
			zw.Reset(idat)
			return nil
		}
	}
	for range n {
		if _, err := zw.Write(zeros); err != nil {
			return err
		}
	}
	return nil
}

// writeRGBHeader writes the IHDR chunk of an 8-bit RGB image.
func writeRGBHeader(buf *bytes.Buffer, w, h int) {
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8] = 8  // bit depth
	ihdr[9] = 2  // colour type: truecolour (RGB)
	ihdr[10] = 0 // compression
	ihdr[11] = 0 // filter method
	ihdr[12] = 0 // no interlace
	writeChunk(buf, "IHDR", ihdr[:])
}

// pooledFlate is a fastest-level deflate writer onto dst, reused across
// frames (its tables are most of a PNG encode's allocations).
func pooledFlate(dst *bytes.Buffer) (*flate.Writer, error) {
	if zw, _ := flatePool.Get().(*flate.Writer); zw != nil {
		zw.Reset(dst)
		return zw, nil
	}
	return flate.NewWriter(dst, flate.BestSpeed)
}

// adler is a running Adler-32 (RFC 1950) of the zlib stream's data.
type adler struct{ a, b uint32 }

const adlerMod = 65521

func (s *adler) write(p []byte) {
	// adler32.Checksum of p, combined: a and b of a block continue from
	// the sums so far.
	for len(p) > 0 {
		n := min(len(p), 5552) // the most bytes before the sums can overflow
		a, b := s.a, s.b
		q := p[:n]
		// Eight bytes a step: b gains 8a plus the bytes weighted 8..1,
		// which breaks the byte-by-byte chain through a (the same sums,
		// so the same bound against overflow).
		for ; len(q) >= 8; q = q[8:] {
			c0, c1, c2, c3 := uint32(q[0]), uint32(q[1]), uint32(q[2]), uint32(q[3])
			c4, c5, c6, c7 := uint32(q[4]), uint32(q[5]), uint32(q[6]), uint32(q[7])
			b += 8*a + 8*c0 + 7*c1 + 6*c2 + 5*c3 + 4*c4 + 3*c5 + 2*c6 + c7
			a += c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7
		}
		for _, c := range q {
			a += uint32(c)
			b += a
		}
		s.a, s.b = a%adlerMod, b%adlerMod
		p = p[n:]
	}
}

// upRow adds an unchanged Up-filtered row: the filter byte 2 and n zeros
// (zeros leave a alone and add a to b once each).
func (s *adler) upRow(n int) {
	s.a = (s.a + 2) % adlerMod
	s.b = (s.b + s.a) % adlerMod
	s.b = uint32((uint64(s.b) + uint64(n)%adlerMod*uint64(s.a)) % adlerMod)
}

func (s *adler) sum32() uint32 { return s.b<<16 | s.a }

// rgbRow packs RGBA pixels into RGB and reports whether they were all
// opaque: dst needs one spare byte past 3×n (each pixel is stored as four
// bytes, the fourth overwritten next).
func rgbRow(dst, src []byte) bool {
	n := len(src) / 4
	_ = dst[3*n]
	all := uint32(0xFF000000)
	for x := 0; x < n; x++ {
		v := binary.LittleEndian.Uint32(src[4*x : 4*x+4 : 4*x+4])
		all &= v
		binary.LittleEndian.PutUint32(dst[3*x:3*x+4:3*x+4], v)
	}
	return all == 0xFF000000
}

// ErrTranslucent is EncodeOpaquePNG's answer for an image with a pixel
// that is not opaque: encode it with image/png, which keeps alpha.
var ErrTranslucent = errors.New("imagecodec: encode png: not opaque")

// EncodeOpaquePNG encodes an opaque *image.RGBA (what engine/screen's
// Resize and SetOfMark return) as an 8-bit RGB PNG, favouring speed (screenshots are sent every
// step): Up filter, zlib at BestSpeed, long runs of repeated rows as
// deflate blocks of their own (pngzero.go). FuzzEncodePNG holds it to
// image/png's decoding.
func EncodeOpaquePNG(img *image.RGBA) ([]byte, error) {
	if img.Rect.Empty() {
		return nil, errors.New("imagecodec: encode png: empty image")
	}
	var buf bytes.Buffer
	if err := encodeOpaqueRGBA(&buf, img); err != nil {
		if errors.Is(err, ErrTranslucent) {
			return nil, err
		}
		return nil, fmt.Errorf("imagecodec: encode png: %w", err)
	}
	return buf.Bytes(), nil
}

// subBytes is out = a - b bytewise, modulo 256, eight bytes at a time.
func subBytes(out, a, b []byte) {
	n := len(out)
	i := 0
	for ; i+8 <= n; i += 8 {
		x, y := binary.LittleEndian.Uint64(a[i:]), binary.LittleEndian.Uint64(b[i:])
		// Lane-wise subtraction: borrow-free on the high bits, then fix.
		const high = 0x8080808080808080
		binary.LittleEndian.PutUint64(out[i:], ((x|high)-(y&^high))^((x^^y)&high))
	}
	for ; i < n; i++ {
		out[i] = a[i] - b[i]
	}
}

func writeChunk(buf *bytes.Buffer, typ string, data []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(data)))
	buf.Write(n[:])
	crc := crc32.NewIEEE()
	crc.Write([]byte(typ))
	crc.Write(data)
	buf.WriteString(typ)
	buf.Write(data)
	binary.BigEndian.PutUint32(n[:], crc.Sum32())
	buf.Write(n[:])
}
