package screen

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"image"
	"sync"
)

var (
	flatePool sync.Pool // *flate.Writer at BestSpeed
	idatPool  sync.Pool // *bytes.Buffer for the IDAT stream
)

// encodeOpaqueRGBA writes an opaque *image.RGBA as an 8-bit RGB PNG with
// the Up filter on every row (None on the first) and zlib BestSpeed. The
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
	sum := adler{a: 1}
	rowLen := 1 + 3*w
	// One allocation: the current and previous RGB rows (with a spare
	// byte each for the 4-byte stores), the filtered row and a zero row.
	scratch := make([]byte, 4*rowLen+2)
	cur, prev := scratch[:rowLen+1], scratch[rowLen+1:2*rowLen+2]
	out, zeros := scratch[2*rowLen+2:3*rowLen+2], scratch[3*rowLen+2:]
	zeros[0] = 2 // Up: zeros are an unchanged row
	write := func(row []byte) error {
		_, err := zw.Write(row)
		return err
	}
	var above []byte
	for y := 0; y < h; y++ {
		src := img.Pix[img.PixOffset(b.Min.X, b.Min.Y+y):][:4*w]
		if y > 0 && bytes.Equal(src, above) {
			sum.upRow(rowLen - 1)
			if err := write(zeros); err != nil {
				return err
			}
			continue // cur and prev both hold this row's RGB already
		}
		above = src
		rgbRow(cur[1:], src)
		row := out
		if y == 0 {
			cur[0] = 0
			row = cur[:rowLen]
		} else {
			out[0] = 2 // Up
			subBytes(out[1:], cur[1:rowLen], prev[1:rowLen])
		}
		sum.write(row)
		if err := write(row); err != nil {
			return err
		}
		cur, prev = prev, cur
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
		for _, c := range p[:n] {
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

// rgbRow packs RGBA pixels into RGB: dst needs one spare byte past 3×n
// (each pixel is stored as four bytes, the fourth overwritten next).
func rgbRow(dst, src []byte) {
	n := len(src) / 4
	_ = dst[3*n]
	for x := 0; x < n; x++ {
		binary.LittleEndian.PutUint32(dst[3*x:3*x+4:3*x+4], binary.LittleEndian.Uint32(src[4*x:4*x+4:4*x+4]))
	}
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

// opaque reports whether every alpha byte of img is 0xFF, eight bytes at
// a time (image.RGBA.Opaque reads them one by one).
func opaque(img *image.RGBA) bool {
	b := img.Bounds()
	const alpha = 0xFF000000FF000000
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := img.Pix[img.PixOffset(b.Min.X, y):][:4*b.Dx()]
		i := 0
		for ; i+8 <= len(row); i += 8 {
			if binary.LittleEndian.Uint64(row[i:])&alpha != alpha {
				return false
			}
		}
		for ; i < len(row); i += 4 {
			if row[i+3] != 0xFF {
				return false
			}
		}
	}
	return true
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
