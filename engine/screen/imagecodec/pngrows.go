package imagecodec

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
)

// PNGRowFunc receives row y of a decoded PNG as premultiplied RGBA bytes
// (4×width, valid only during the call) and whether it equals row y-1.
type PNGRowFunc func(y int, rgba []byte, same bool)

// DecodePNGRows decodes what `screencap -p` writes — an 8-bit RGB or RGBA,
// non-interlaced PNG with its image data in one run of IDAT chunks — row by
// row, so a caller that shrinks or hashes the image never holds it whole:
// begin gets the size once, then the function it returns gets rows 0..h-1
// in order. Two stages run at once: the calling goroutine inflates chunks
// of filtered rows while another unfilters and converts them and calls the
// row function (never concurrently with itself). A row "Up"-filtered to
// zeros (flat screens are full of them) is passed on as the same as the
// last without being converted again.
//
// Any other PNG (other depths or colour types, interlaced, a palette or
// transparency chunk, chunks in an unusual order) returns ErrNotScreenPNG
// before begin is called: decode it with image/png. Otherwise the pixels
// are image/png's, or both fail (FuzzDecodePNGRows), with two differences:
// CRCs and the zlib Adler-32 trailer are not checked (the bytes come over
// adb, which is reliable, and the Adler sum would be a pass over every
// inflated byte), and bytes after the zlib stream in the last IDAT chunk
// are ignored (image/png rejects them only when its read buffer has not
// already swallowed them).
func DecodePNGRows(b []byte, begin func(w, h int) PNGRowFunc) error {
	hd, err := parsePNGChunks(b)
	if err != nil {
		return err
	}
	z := bytes.NewReader(hd.idat)
	var zh [2]byte
	if _, err := io.ReadFull(z, zh[:]); err != nil {
		return fmt.Errorf("zlib header: %w", err)
	}
	if zh[0]&0x0F != 8 || zh[0]>>4 > 7 || (uint16(zh[0])<<8|uint16(zh[1]))%31 != 0 || zh[1]&0x20 != 0 {
		return errors.New("bad zlib header")
	}
	fr, _ := inflaters.Get().(io.ReadCloser)
	if fr == nil {
		fr = flate.NewReader(z)
	} else if err := fr.(flate.Resetter).Reset(z, nil); err != nil {
		return err
	}
	defer inflaters.Put(fr)
	if err := decodeRows(fr, hd, begin(hd.w, hd.h)); err != nil {
		return err
	}
	// As image/png: no deflate data past the rows, and the 4-byte zlib
	// trailer present (not checked).
	var one [1]byte
	if n, err := fr.Read(one[:]); n != 0 || err != io.EOF {
		return errors.New("too much pixel data")
	}
	if z.Len() < 4 {
		return fmt.Errorf("zlib trailer: %w", io.ErrUnexpectedEOF)
	}
	return nil
}

// ErrNotScreenPNG is DecodePNGRows' answer for a PNG it leaves to
// image/png.
var ErrNotScreenPNG = errors.New("imagecodec: not an 8-bit RGB/RGBA non-interlaced PNG in the usual chunk order")

// decodeRows runs the two stages: this goroutine inflates chunks of
// filtered rows from fr, another unfilters and converts them for row.
func decodeRows(fr io.Reader, hd pngHeader, row PNGRowFunc) error {
	rowLen := hd.w * hd.bpp
	lineLen := 1 + rowLen
	chunkRows, todo, free := rowChunks(lineLen)
	var stageErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		bufs := make([]byte, 3*rowLen+8*hd.w)
		prev, cur := bufs[:rowLen], bufs[rowLen:2*rowLen]
		zeros := bufs[2*rowLen : 3*rowLen]
		rgba, rgbaPrev := bufs[3*rowLen:3*rowLen+4*hd.w], bufs[3*rowLen+4*hd.w:]
		y := 0
		for c := range todo {
			for off := 0; off < len(c) && stageErr == nil; off += lineLen {
				line := c[off : off+lineLen]
				same := y > 0 && line[0] == 2 && bytes.Equal(line[1:], zeros)
				if !same {
					if err := unfilter(line[0], line[1:], prev, cur, hd.bpp); err != nil {
						stageErr = fmt.Errorf("row %d: %w", y, err)
						break
					}
					prev, cur = cur, prev
					rgba, rgbaPrev = rgbaPrev, rgba
					toRGBARow(rgba, prev, hd.bpp)
					same = y > 0 && bytes.Equal(rgba, rgbaPrev)
				}
				row(y, rgba, same)
				y++
			}
			free <- c[:cap(c)]
		}
	}()
	err := readChunks(fr, hd.h, lineLen, chunkRows, free, todo)
	<-done
	if err == nil {
		err = stageErr
	}
	return err
}

// maxSide bounds the width and height the row decoder takes on.
const maxSide = 1 << 14

// pngHeader is what the row decoder needs from IHDR plus the image data:
// the IDAT payloads joined (no copy when there is one).
type pngHeader struct {
	w, h int
	bpp  int // 3 (RGB) or 4 (RGBA)
	idat []byte
}

// parsePNGChunks reads the chunk list up to IEND, expecting IHDR first and
// one run of IDAT chunks; ancillary chunks other than tRNS are skipped.
// Chunk CRCs are not checked.
func parsePNGChunks(b []byte) (pngHeader, error) {
	var hd pngHeader
	if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
		return hd, errors.New("not a PNG signature")
	}
	var parts [][]byte
	idatDone := false
	for i := 8; ; {
		if i+8 > len(b) {
			return hd, io.ErrUnexpectedEOF
		}
		n := int(binary.BigEndian.Uint32(b[i:]))
		typ := string(b[i+4 : i+8])
		if n < 0 || i+12+n > len(b) {
			return hd, fmt.Errorf("chunk %q of %d bytes runs past the end", typ, n)
		}
		data := b[i+8 : i+8+n]
		switch {
		case i == 8 && typ != "IHDR", i > 8 && typ == "IHDR":
			return hd, ErrNotScreenPNG
		case typ == "IHDR":
			if err := hd.parseIHDR(data); err != nil {
				return hd, err
			}
		case typ == "IDAT":
			if idatDone {
				return hd, ErrNotScreenPNG
			}
			parts = append(parts, data)
		case typ == "IEND":
			if n != 0 || len(parts) == 0 {
				return hd, ErrNotScreenPNG
			}
			hd.joinIDAT(parts)
			return hd, nil
		case typ == "tRNS" || typ[0]&0x20 == 0: // transparency, or critical (PLTE, unknown)
			return hd, ErrNotScreenPNG
		}
		idatDone = idatDone || len(parts) > 0 && typ != "IDAT"
		i += 12 + n
	}
}

// parseIHDR takes the size and colour type from an IHDR payload.
func (hd *pngHeader) parseIHDR(data []byte) error {
	if len(data) != 13 {
		return errors.New("IHDR of the wrong size")
	}
	w, h := binary.BigEndian.Uint32(data[0:]), binary.BigEndian.Uint32(data[4:])
	if data[8] != 8 || data[10] != 0 || data[11] != 0 || data[12] != 0 || w == 0 || h == 0 || w > maxSide || h > maxSide {
		return ErrNotScreenPNG
	}
	hd.w, hd.h = int(w), int(h)
	switch data[9] {
	case 2:
		hd.bpp = 3
	case 6:
		hd.bpp = 4
	default:
		return ErrNotScreenPNG
	}
	return nil
}

// joinIDAT joins the IDAT payloads.
func (hd *pngHeader) joinIDAT(parts [][]byte) {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if len(parts) == 1 {
		hd.idat = parts[0]
		return
	}
	hd.idat = make([]byte, 0, n)
	for _, p := range parts {
		hd.idat = append(hd.idat, p...)
	}
}

var inflaters sync.Pool // flate.Resetter readers

// unfilter reverses a PNG row filter: cur = reconstruct(filtered, prev).
func unfilter(ft byte, f, prev, cur []byte, bpp int) error {
	n := len(f)
	switch ft {
	case 0:
		copy(cur, f)
	case 1: // Sub
		copy(cur[:bpp], f[:bpp])
		for i := bpp; i < n; i++ {
			cur[i] = f[i] + cur[i-bpp]
		}
	case 2: // Up
		i := 0
		for ; i+8 <= n; i += 8 {
			binary.LittleEndian.PutUint64(cur[i:], addBytes8(binary.LittleEndian.Uint64(f[i:]), binary.LittleEndian.Uint64(prev[i:])))
		}
		for ; i < n; i++ {
			cur[i] = f[i] + prev[i]
		}
	case 3: // Average
		for i := 0; i < bpp; i++ {
			cur[i] = f[i] + prev[i]/2
		}
		for i := bpp; i < n; i++ {
			cur[i] = f[i] + uint8((int(cur[i-bpp])+int(prev[i]))/2)
		}
	case 4: // Paeth
		for i := 0; i < bpp; i++ {
			cur[i] = f[i] + prev[i]
		}
		for i := bpp; i < n; i++ {
			a, b, c := int(cur[i-bpp]), int(prev[i]), int(prev[i-bpp])
			p := b - c
			pc := a - c
			pa, pb := abs(p), abs(pc)
			pcc := abs(p + pc)
			switch {
			case pa <= pb && pa <= pcc:
				cur[i] = f[i] + uint8(a)
			case pb <= pcc:
				cur[i] = f[i] + uint8(b)
			default:
				cur[i] = f[i] + uint8(c)
			}
		}
	default:
		return fmt.Errorf("filter type %d, expected 0-4", ft)
	}
	return nil
}

func abs(x int) int {
	m := x >> 63 // branch-free: Paeth's comparisons are unpredictable
	return (x ^ m) - m
}

// addBytes8 adds eight bytes lane-wise, modulo 256.
func addBytes8(a, b uint64) uint64 {
	const low7 = 0x7F7F7F7F7F7F7F7F
	return ((a & low7) + (b & low7)) ^ ((a ^ b) &^ low7)
}

// toRGBARow writes one unfiltered RGB or RGBA row as RGBA bytes,
// premultiplying translucent RGBA pixels.
func toRGBARow(dst, row []byte, bpp int) {
	if bpp == 4 {
		copy(dst, row)
		for i := 3; i < len(dst); i += 4 {
			if a := uint32(dst[i]); a != 0xFF {
				p := dst[i-3 : i : i]
				p[0], p[1], p[2] = uint8(mul255(uint32(p[0]), a)), uint8(mul255(uint32(p[1]), a)), uint8(mul255(uint32(p[2]), a))
			}
		}
		return
	}
	// Four bytes read per pixel (the fourth belongs to the next pixel and
	// is replaced by opaque alpha); the last pixel is done bytewise.
	n := len(row) / 3
	for x := 0; x < n-1; x++ {
		v := binary.LittleEndian.Uint32(row[3*x : 3*x+4 : 3*x+4])
		binary.LittleEndian.PutUint32(dst[4*x:4*x+4:4*x+4], v|0xFF000000)
	}
	if n > 0 {
		i, d := 3*(n-1), dst[4*(n-1):4*n:4*n]
		d[0], d[1], d[2], d[3] = row[i], row[i+1], row[i+2], 0xFF
	}
}

// rowChunks sets up the decoders' two-stage pipeline for rows of lineLen
// bytes: about 64 KiB of rows per chunk, three buffers circulating from
// free to todo and back.
func rowChunks(lineLen int) (chunkRows int, todo, free chan []byte) {
	chunkRows = max(1, (64<<10)/lineLen)
	todo, free = make(chan []byte, 2), make(chan []byte, 3)
	for range 3 {
		free <- make([]byte, chunkRows*lineLen)
	}
	return chunkRows, todo, free
}

// readChunks reads h rows of lineLen bytes from r, chunkRows at a time,
// into buffers taken from free and handed on to todo (closed at the end):
// the producer half of the decoders' two-stage pipelines.
func readChunks(r io.Reader, h, lineLen, chunkRows int, free <-chan []byte, todo chan<- []byte) error {
	defer close(todo)
	for y := 0; y < h; y += chunkRows {
		buf := <-free
		n := min(chunkRows, h-y) * lineLen
		if _, err := io.ReadFull(r, buf[:n]); err != nil {
			return fmt.Errorf("rows %d-%d of %d: %w", y, y+n/lineLen-1, h, err)
		}
		todo <- buf[:n]
	}
	return nil
}
