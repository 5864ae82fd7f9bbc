package screen

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"image"
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
// takes a streaming path in which each row is inflated, unfiltered, hashed
// and shrunk as it arrives, so no full-size image is ever held — a
// 1080×2400 frame's 10 MiB are neither allocated nor written and read
// back. Other PNGs are decoded whole and then scaled.
func DecodeScaledPNG(b []byte, style ModelStyle) (ScaledFrame, error) {
	if len(b) == 0 {
		return ScaledFrame{}, fmt.Errorf("screen: decode png: empty input")
	}
	f, err := decodeScaledFast(b, style)
	if errors.Is(err, errNotFastPNG) {
		var full image.Image
		if full, err = DecodePNG(b); err == nil {
			r := full.Bounds()
			sw, sh := ScaledSize(r.Dx(), r.Dy(), style)
			return ScaledFrame{Scaled: Resize(full, sw, sh), Width: r.Dx(), Height: r.Dy(), Content: ContentHash(full), Bands: BandsHash(full)}, nil
		}
		return ScaledFrame{}, err
	}
	if err != nil {
		return ScaledFrame{}, fmt.Errorf("screen: decode png (%d bytes): %w", len(b), err)
	}
	return f, nil
}

// decodeScaledFast is DecodeScaledPNG's streaming path.
func decodeScaledFast(b []byte, style ModelStyle) (ScaledFrame, error) {
	hd, fr, err := openIDAT(b)
	if err != nil {
		return ScaledFrame{}, err
	}
	defer inflaters.Put(fr)
	sw, sh := ScaledSize(hd.w, hd.h, style)
	s := newStreamResizer(hd.w, hd.h, sw, sh)
	top, bottom := contentRows(hd.h)
	var h, hb maphash.Hash
	h.SetSeed(contentSeed)
	hb.SetSeed(contentSeed)

	rowLen := hd.w * hd.bpp
	lineLen := 1 + rowLen
	// Two stages run at once, as in decodeScreenPNG: this goroutine
	// inflates chunks of filtered rows, another unfilters, hashes and
	// shrinks them.
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
				if y >= top && y < bottom {
					h.Write(rgba)
				} else {
					hb.Write(rgba)
				}
				s.push(y, rgba, same)
				y++
			}
			free <- c[:cap(c)]
		}
	}()
	err = readChunks(fr, hd.h, lineLen, chunkRows, free, todo)
	<-done
	if err == nil {
		err = stageErr
	}
	if err != nil {
		return ScaledFrame{}, err
	}
	return ScaledFrame{Scaled: s.dst, Width: hd.w, Height: hd.h, Content: fmt.Sprintf("%016x", h.Sum64()),
		Bands: fmt.Sprintf("%016x", hb.Sum64())}, nil
}

// streamResizer is Resize fed one source row at a time, top to bottom:
// each row is shrunk horizontally into a ring as it arrives, and every
// output row whose source rows have all arrived is written at once.
type streamResizer struct {
	resizer
	ring    [][]uint64
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
	backing := make([]uint64, (len(s.ring)+1)*sw+w)
	for i := range s.ring {
		s.ring[i] = backing[i*sw : (i+1)*sw : (i+1)*sw]
	}
	s.acc = backing[len(s.ring)*sw : (len(s.ring)+1)*sw]
	s.scratch = backing[(len(s.ring)+1)*sw:]
	return s
}

// push takes source row y (RGBA bytes; same: equal to row y-1) and
// writes the output rows it completes.
func (s *streamResizer) push(y int, rgba []byte, same bool) {
	n := len(s.ring)
	slot := y % n
	if same {
		above := (y - 1 + n) % n
		copy(s.ring[slot], s.ring[above])
		s.ringRun[slot] = s.ringRun[above]
	} else {
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
