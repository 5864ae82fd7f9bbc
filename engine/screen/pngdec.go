package screen

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"sync"
)

// DecodePNG decodes a PNG screenshot. What `screencap -p` writes — 8-bit
// RGB or RGBA, not interlaced — takes a fast path straight into a
// premultiplied *image.RGBA: the rows are inflated and unfiltered by one
// goroutine while another converts finished rows to RGBA. Anything else
// goes through image/png.
func DecodePNG(b []byte) (image.Image, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("screen: decode png: empty input")
	}
	img, err := decodeScreenPNG(b)
	if errors.Is(err, errNotFastPNG) {
		var std image.Image
		if std, err = png.Decode(bytes.NewReader(b)); err == nil {
			return std, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("screen: decode png (%d bytes): %w", len(b), err)
	}
	return img, nil
}

// errNotFastPNG sends a PNG the fast path does not handle to image/png.
var errNotFastPNG = errors.New("not an 8-bit RGB/RGBA non-interlaced PNG")

// pngHeader is what the fast path needs from IHDR plus the IDAT payloads.
type pngHeader struct {
	w, h int
	bpp  int // 3 (RGB) or 4 (RGBA)
	idat [][]byte
}

// parsePNGChunks reads the chunk list: IHDR first, IDAT payloads in order,
// IEND last. Chunk CRCs are not checked (the bytes come over adb, which is
// reliable; image/png would check them).
func parsePNGChunks(b []byte) (pngHeader, error) {
	var hd pngHeader
	if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
		return hd, errors.New("not a PNG signature")
	}
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
		switch typ {
		case "IHDR":
			if n != 13 {
				return hd, errors.New("IHDR of the wrong size")
			}
			hd.w = int(binary.BigEndian.Uint32(data[0:]))
			hd.h = int(binary.BigEndian.Uint32(data[4:]))
			depth, color, interlace := data[8], data[9], data[12]
			switch {
			case depth != 8 || interlace != 0 || hd.w <= 0 || hd.h <= 0 || hd.w > maxRawSide || hd.h > maxRawSide:
				return hd, errNotFastPNG
			case color == 2:
				hd.bpp = 3
			case color == 6:
				hd.bpp = 4
			default:
				return hd, errNotFastPNG
			}
		case "IDAT":
			hd.idat = append(hd.idat, data)
		case "IEND":
			if hd.bpp == 0 || len(hd.idat) == 0 {
				return hd, errors.New("missing IHDR or IDAT")
			}
			return hd, nil
		}
		i += 12 + n
	}
}

var inflaters sync.Pool // flate.Resetter readers

// openIDAT parses b's chunks and opens the inflater of its image data
// (give it back to inflaters when done).
func openIDAT(b []byte) (pngHeader, io.ReadCloser, error) {
	hd, err := parsePNGChunks(b)
	if err != nil {
		return hd, nil, err
	}
	z := io.MultiReader(bytesReaders(hd.idat)...)
	var zh [2]byte // zlib header; the Adler-32 trailer is not checked
	if _, err := io.ReadFull(z, zh[:]); err != nil {
		return hd, nil, err
	}
	if zh[0]&0x0F != 8 || (uint16(zh[0])<<8|uint16(zh[1]))%31 != 0 || zh[1]&0x20 != 0 {
		return hd, nil, errors.New("bad zlib header")
	}
	fr, _ := inflaters.Get().(io.ReadCloser)
	if fr == nil {
		fr = flate.NewReader(z)
	} else if err := fr.(flate.Resetter).Reset(z, nil); err != nil {
		return hd, nil, err
	}
	return hd, fr, nil
}

// decodeScreenPNG is DecodePNG's fast path.
func decodeScreenPNG(b []byte) (*image.RGBA, error) {
	hd, fr, err := openIDAT(b)
	if err != nil {
		return nil, err
	}
	defer inflaters.Put(fr)

	img := image.NewRGBA(image.Rect(0, 0, hd.w, hd.h))
	// Two stages run at once: this goroutine inflates chunks of filtered
	// rows, another unfilters them and writes them into img.
	rowLen := hd.w * hd.bpp
	lineLen := 1 + rowLen
	chunkRows, todo, free := rowChunks(lineLen)
	var unfilterErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		prev, cur := make([]byte, rowLen), make([]byte, rowLen)
		zeros := make([]byte, rowLen)
		y := 0
		for c := range todo {
			for off := 0; off < len(c) && unfilterErr == nil; off += lineLen {
				line := c[off : off+lineLen]
				if y > 0 && line[0] == 2 && bytes.Equal(line[1:], zeros) {
					// "Up" with no change: the row repeats the one above
					// (flat screens are full of them).
					copy(img.Pix[y*img.Stride:(y+1)*img.Stride], img.Pix[(y-1)*img.Stride:y*img.Stride])
					y++
					continue
				}
				if err := unfilter(line[0], line[1:], prev, cur, hd.bpp); err != nil {
					unfilterErr = fmt.Errorf("row %d: %w", y, err)
					break
				}
				toRGBA(img, y, cur, hd.bpp)
				prev, cur = cur, prev
				y++
			}
			free <- c[:cap(c)]
		}
	}()
	err = readChunks(fr, hd.h, lineLen, chunkRows, free, todo)
	<-done
	if err == nil {
		err = unfilterErr
	}
	if err != nil {
		return nil, err
	}
	return img, nil
}

func bytesReaders(parts [][]byte) []io.Reader {
	rs := make([]io.Reader, len(parts))
	for i, p := range parts {
		rs[i] = bytes.NewReader(p)
	}
	return rs
}

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

// toRGBA writes one unfiltered RGB or RGBA row into img's row y,
// premultiplying translucent RGBA pixels.
func toRGBA(img *image.RGBA, y int, row []byte, bpp int) {
	toRGBARow(img.Pix[y*img.Stride:y*img.Stride+img.Rect.Dx()*4], row, bpp)
}

// toRGBARow is toRGBA into one row of RGBA bytes.
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
