package screen

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"image"
	"image/png"

	"github.com/openpocket/openpocket/engine/screen/imagecodec"
)

// ScaledFrame is a screenshot as the runtime keeps it: scaled to the
// model's size, with the full size and ContentHash and BandsHash of the
// full image.
type ScaledFrame struct {
	Scaled  *image.RGBA
	Width   int
	Height  int
	Content string
	Bands   string
}

// DecodeScaledPNG decodes a PNG screenshot straight to its model size
// (ScaledSize for style), hashing the full image's content on the way
// (ContentHash of the full image, bit for bit): what `screencap -p` sends
// takes a streaming path (imagecodec.DecodePNGRows) in which each row is
// inflated, unfiltered, hashed and shrunk as it arrives, so no full-size
// image is ever held — a 1080×2400 frame's 10 MiB are neither allocated
// nor written and read back. Other PNGs are decoded whole by image/png and
// then scaled.
//
// Why not image/png plus Resize for every PNG (the standard decoder unless
// a benchmark shows the difference where it matters)? This is where it
// matters, and it does: BenchmarkScreencapPNGPath (engine/device) on the
// virtual phone's Settings frames, process CPU per new frame up to the
// model-size image and hashes, 2 cores, 2026-11-28:
//
//	                       rows (this)   image/png + Resize   ratio
//	sim (BestSpeed)        9.1 ms        27.6 ms              0.33×
//	phone (zlib default)   7.2 ms        24.1 ms              0.30×
//	allocated per frame    5.4 MiB       15.2 MiB
//
// go test -run '^$' -bench ScreencapPNGPath -benchtime 30x ./engine/device/
func DecodeScaledPNG(b []byte, style ModelStyle) (ScaledFrame, error) {
	if len(b) == 0 {
		return ScaledFrame{}, fmt.Errorf("screen: decode png: empty input")
	}
	var s *streamResizer
	var h, hb maphash.Hash
	var fullW, fullH, top, bottom int
	err := imagecodec.DecodePNGRows(b, func(w, ht int) imagecodec.PNGRowFunc {
		fullW, fullH = w, ht
		sw, sh := ScaledSize(w, ht, style)
		s = newStreamResizer(w, ht, sw, sh)
		top, bottom = contentRows(ht)
		h.SetSeed(contentSeed)
		hb.SetSeed(contentSeed)
		return func(y int, rgba []byte, same bool) {
			hh := &hb
			if y >= top && y < bottom {
				hh = &h
			}
			// As hashRows: a repeat of the row above within the same
			// rectangle (the bands are two: above top, from bottom on).
			if same && y != top && y != bottom {
				hh.WriteByte(1)
			} else {
				hh.WriteByte(0)
				hh.Write(rgba)
			}
			s.push(y, rgba, same)
		}
	})
	if errors.Is(err, imagecodec.ErrNotScreenPNG) {
		var full image.Image
		if full, err = DecodePNG(b); err != nil {
			return ScaledFrame{}, err
		}
		r := full.Bounds()
		sw, sh := ScaledSize(r.Dx(), r.Dy(), style)
		return ScaledFrame{Scaled: Resize(full, sw, sh), Width: r.Dx(), Height: r.Dy(), Content: ContentHash(full), Bands: BandsHash(full)}, nil
	}
	if err != nil {
		return ScaledFrame{}, fmt.Errorf("screen: decode png (%d bytes): %w", len(b), err)
	}
	return ScaledFrame{Scaled: s.dst, Width: fullW, Height: fullH, Content: fmt.Sprintf("%016x", h.Sum64()),
		Bands: fmt.Sprintf("%016x", hb.Sum64())}, nil
}

// DecodePNG decodes a whole PNG with image/png (the capture path is
// DecodeScaledPNG). 8-bit RGBA comes back premultiplied, as *image.RGBA
// rounded as the streaming path rounds it, so ContentHash agrees with
// DecodeScaledPNG's; other kinds as image/png decodes them.
func DecodePNG(b []byte) (image.Image, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("screen: decode png: empty input")
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("screen: decode png (%d bytes): %w", len(b), err)
	}
	if n, ok := img.(*image.NRGBA); ok {
		out := &image.RGBA{Pix: n.Pix, Stride: n.Stride, Rect: n.Rect}
		for i := 0; i+3 < len(n.Pix); i += 4 {
			binary.LittleEndian.PutUint32(n.Pix[i:], premultiply(binary.LittleEndian.Uint32(n.Pix[i:])))
		}
		return out, nil
	}
	return img, nil
}

// streamResizer is Resize fed one source row at a time, top to bottom:
// each row is shrunk horizontally into a ring as it arrives, and every
// output row whose source rows have all arrived is written at once.
//
// A row equal to the one above shares its slot's buffer instead of being
// copied (most rows of a screen are): slots index into bufs, one more
// buffer than slots so a free one is always at hand for a new row.
type streamResizer struct {
	resizer
	ring    [][]uint64
	ringBuf []int // per slot: its index in bufs
	bufs    [][]uint64
	ringRun []int // per slot: the first row of the run of equal rows it belongs to
	scratch []uint64
	acc     []uint64
	dy      int // the next output row
	prevRun int
}

func newStreamResizer(w, h, sw, sh int) *streamResizer {
	dst := image.NewRGBA(image.Rect(0, 0, sw, sh))
	s := &streamResizer{resizer: resizer{sw: w, xs: boxWeights(w, sw), ys: boxWeights(h, sh), dst: dst}, prevRun: -1}
	s.x3 = threeTaps(s.xs, w)
	taps := 1
	for _, c := range s.ys {
		taps = max(taps, len(c.weights))
	}
	s.ring = make([][]uint64, taps+1)
	s.ringRun = make([]int, len(s.ring))
	s.ringBuf = make([]int, len(s.ring))
	s.bufs = make([][]uint64, len(s.ring)+1)
	backing := make([]uint64, (len(s.bufs)+1)*sw+w)
	for i := range s.bufs {
		s.bufs[i] = backing[i*sw : (i+1)*sw : (i+1)*sw]
	}
	for i := range s.ring {
		s.ring[i], s.ringBuf[i] = s.bufs[i], i
	}
	s.acc = backing[len(s.bufs)*sw : (len(s.bufs)+1)*sw]
	s.scratch = backing[(len(s.bufs)+1)*sw:]
	return s
}

// freeBuf is the index of one of nbufs row buffers that no slot of a
// ring but slot refers to (ringBuf: per slot, its buffer); with more
// buffers than slots there is always one.
func freeBuf(ringBuf []int, nbufs, slot int) int {
next:
	for b := range nbufs {
		for j, r := range ringBuf {
			if j != slot && r == b {
				continue next
			}
		}
		return b
	}
	panic("screen: no free row buffer")
}

// push takes source row y (RGBA bytes; same: equal to row y-1) and
// writes the output rows it completes.
func (s *streamResizer) push(y int, rgba []byte, same bool) {
	n := len(s.ring)
	slot := y % n
	if same {
		above := (y - 1 + n) % n
		s.ring[slot], s.ringBuf[slot] = s.ring[above], s.ringBuf[above]
		s.ringRun[slot] = s.ringRun[above]
	} else {
		b := freeBuf(s.ringBuf, len(s.bufs), slot)
		s.ring[slot], s.ringBuf[slot] = s.bufs[b], b
		s.horizontalRow(s.ring[slot], rgba, s.scratch)
		s.ringRun[slot] = y
	}
	w := s.dst.Rect.Dx()
	for s.dy < len(s.ys) {
		cy := s.ys[s.dy]
		if cy.start+len(cy.weights)-1 > y {
			return // waits for more rows
		}
		var rows [8][]uint64
		srcRows := rows[:0]
		run := -1
		for k := range cy.weights {
			sl := (cy.start + k) % n
			if k == 0 || s.ringRun[sl] == run {
				run = s.ringRun[sl]
			} else {
				run = -1
			}
			srcRows = append(srcRows, s.ring[sl])
		}
		out := s.dst.Pix[s.dy*s.dst.Stride : s.dy*s.dst.Stride+w*4]
		switch {
		case run >= 0 && run == s.prevRun:
			copy(out, s.dst.Pix[(s.dy-1)*s.dst.Stride:])
		case run >= 0:
			unpackRow(out, srcRows[0])
		default:
			verticalRow(out, srcRows, cy.weights, s.acc)
		}
		s.prevRun = run
		s.dy++
	}
}
