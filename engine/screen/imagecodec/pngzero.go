package imagecodec

import (
	"bytes"
	"container/heap"
	"errors"
	"math/bits"
	"sort"
	"sync"
)

// Runs of repeated rows are most of a flat screen (84% of the rows of the
// virtual phone's marked Settings screen) and most of what deflate would
// scan: each repeated row is an "Up" filter byte and zeros, which
// compress/flate finds by comparing every byte. EncodeOpaquePNG writes a
// long run as a deflate block of its own instead: the zlib stream is one
// deflate stream of consecutive blocks, so compress/flate's output is
// flushed to a byte boundary (a sync flush), this package writes a block
// coding each row as the literals 2 and 0 and matches at distance 1 (the
// same tokens, with a Huffman table made for them, that deflate would
// choose), ends it on a byte boundary with an empty stored block, and
// compress/flate starts afresh after it (Reset: its matches then never
// reach back across the run).

// zeroRunMin is the shortest run of repeated rows written as a block of
// its own: below it the flush, the new Huffman tables on both sides and the
// matches lost across the run cost more bytes than the scan saves time.
const zeroRunMin = 8

// bitSink packs deflate's bit fields LSB first into a buffer.
type bitSink struct {
	out *bytes.Buffer
	acc uint64
	n   uint
}

func (b *bitSink) put(v uint64, n uint) {
	b.acc |= v << b.n
	b.n += n
	for b.n >= 8 {
		b.out.WriteByte(byte(b.acc))
		b.acc >>= 8
		b.n -= 8
	}
}

// align pads to a byte boundary with zero bits.
func (b *bitSink) align() {
	if b.n > 0 {
		b.put(0, 8-b.n)
	}
}

// hcode is a Huffman code ready to write: the bit-reversed code and its
// length, plus extra bits (value and count) when it is a length symbol.
type hcode struct {
	code  uint16
	n     uint8
	extra uint16
	nx    uint8
}

func (b *bitSink) code(c hcode) {
	b.put(uint64(c.code), uint(c.n))
	if c.nx > 0 {
		b.put(uint64(c.extra), uint(c.nx))
	}
}

// zeroRun is the precomputed block for rows of one length: its header
// (bits to replay) and the tokens of one repeated row.
type zeroRun struct {
	header []hcode
	row    []hcode
	eob    hcode
}

var zeroRuns sync.Map // line length → *zeroRun or error

// zeroRunFor returns the block layout for repeated lines of lineLen bytes
// (the filter byte included).
func zeroRunFor(lineLen int) (*zeroRun, error) {
	if v, ok := zeroRuns.Load(lineLen); ok {
		if err, bad := v.(error); bad {
			return nil, err
		}
		return v.(*zeroRun), nil
	}
	z, err := buildZeroRun(lineLen)
	if err != nil {
		zeroRuns.Store(lineLen, err)
		return nil, err
	}
	zeroRuns.Store(lineLen, z)
	return z, nil
}

// deflate's length symbols: base length and extra bits of 257..285.
var (
	lengthBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	// The order code length code lengths are sent in (RFC 1951 3.2.7).
	clOrder = [19]int{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
)

// lengthSymbol is the symbol, extra-bit value and count of a match length.
func lengthSymbol(l int) (sym int, extra uint16, nx uint8) {
	i := sort.Search(len(lengthBase), func(i int) bool { return int(lengthBase[i]) > l }) - 1
	if l == 258 {
		i = 28
	}
	return 257 + i, uint16(l - int(lengthBase[i])), lengthExtra[i]
}

// symTok is a symbol with its extra bits (value and count).
type symTok struct {
	sym   int
	extra uint16
	nx    uint8
}

// buildZeroRun lays out the block: per row the literal 2 (the Up filter),
// one literal 0, then the row's other zeros as matches at distance 1.
func buildZeroRun(lineLen int) (*zeroRun, error) {
	row := zeroRowTokens(lineLen)
	freq := make([]int, 286)
	for _, t := range row {
		freq[t.sym] += 2 // weigh rows over the single end of block
	}
	freq[256] = 1
	litLens, err := huffmanLengths(freq, 15)
	if err != nil {
		return nil, err
	}
	nlit := 257
	for s, l := range litLens {
		if l > 0 {
			nlit = max(nlit, s+1)
		}
	}
	litCodes := canonical(litLens)
	z := &zeroRun{eob: litCodes[256]}
	for _, t := range row {
		c := litCodes[t.sym]
		c.extra, c.nx = t.extra, t.nx
		z.row = append(z.row, c)
		if t.sym > 256 {
			z.row = append(z.row, hcode{code: 0, n: 1}) // distance code 0: distance 1
		}
	}
	// The header: dynamic Huffman, the literal/length code lengths and one
	// distance code (of length 1).
	z.header, err = dynamicHeader(append(append([]uint8{}, litLens[:nlit]...), 1), nlit)
	if err != nil {
		return nil, err
	}
	return z, nil
}

// zeroRowTokens is one repeated row as deflate symbols: the literal 2,
// one literal 0, then matches (at distance 1) covering the other zeros.
func zeroRowTokens(lineLen int) []symTok {
	row := []symTok{{sym: 2}, {sym: 0}}
	for left := lineLen - 2; left > 0; {
		if left < 3 {
			row = append(row, symTok{sym: 0})
			left--
			continue
		}
		p := min(left, 258)
		if r := left - p; r > 0 && r < 3 {
			p = left - 3
		}
		s, x, nx := lengthSymbol(p)
		row = append(row, symTok{s, x, nx})
		left -= p
	}
	return row
}

// dynamicHeader is the header of a dynamic Huffman block whose code
// lengths are lens (nlit literal/length codes, then one distance code).
func dynamicHeader(lens []uint8, nlit int) ([]hcode, error) {
	seq := codeLengthSymbols(lens)
	clFreq := make([]int, 19)
	for _, s := range seq {
		clFreq[s.sym]++
	}
	clLens, err := huffmanLengths(clFreq, 7)
	if err != nil {
		return nil, err
	}
	clCodes := canonical(clLens)
	hclen := 19
	for hclen > 4 && clLens[clOrder[hclen-1]] == 0 {
		hclen--
	}
	h := []hcode{
		{code: 0, n: 1},                  // BFINAL 0
		{code: 2, n: 2},                  // BTYPE 10: dynamic Huffman
		{code: uint16(nlit - 257), n: 5}, // HLIT
		{code: 0, n: 5},                  // HDIST: one distance code
		{code: uint16(hclen - 4), n: 4},  // HCLEN
	}
	for _, s := range clOrder[:hclen] {
		h = append(h, hcode{code: uint16(clLens[s]), n: 3})
	}
	for _, s := range seq {
		c := clCodes[s.sym]
		c.extra, c.nx = s.extra, s.nx
		h = append(h, c)
	}
	return h, nil
}

// codeLengthSymbols run-length codes lens with the code length alphabet:
// runs of zeros as symbols 17 and 18, other lengths as themselves.
func codeLengthSymbols(lens []uint8) []symTok {
	var seq []symTok
	for i := 0; i < len(lens); {
		if lens[i] != 0 {
			seq = append(seq, symTok{sym: int(lens[i])})
			i++
			continue
		}
		j := i
		for j < len(lens) && lens[j] == 0 && j-i < 138 {
			j++
		}
		switch n := j - i; {
		case n >= 11:
			seq = append(seq, symTok{18, uint16(n - 11), 7})
		case n >= 3:
			seq = append(seq, symTok{17, uint16(n - 3), 3})
		default:
			for range n {
				seq = append(seq, symTok{sym: 0})
			}
		}
		i = j
	}
	return seq
}

// writeZeroRun writes n repeated lines as one deflate block followed by an
// empty stored block (a byte boundary again).
func (z *zeroRun) write(out *bytes.Buffer, n int) {
	b := bitSink{out: out}
	for _, c := range z.header {
		b.code(c)
	}
	for range n {
		for _, c := range z.row {
			b.code(c)
		}
	}
	b.code(z.eob)
	b.put(0, 3) // BFINAL 0, BTYPE 00: stored, empty
	b.align()
	out.Write([]byte{0, 0, 0xFF, 0xFF})
}

// huffmanLengths returns Huffman code lengths for freq (0 for unused
// symbols), at most limit bits; a lone symbol gets length 1.
func huffmanLengths(freq []int, limit int) ([]uint8, error) {
	lens := make([]uint8, len(freq))
	h := &nodeHeap{}
	for s, f := range freq {
		if f > 0 {
			*h = append(*h, &hnode{freq: f, sym: s})
		}
	}
	switch h.Len() {
	case 0:
		return lens, nil
	case 1:
		lens[(*h)[0].sym] = 1
		return lens, nil
	}
	heap.Init(h)
	for h.Len() > 1 {
		a, b := heap.Pop(h).(*hnode), heap.Pop(h).(*hnode)
		heap.Push(h, &hnode{freq: a.freq + b.freq, sym: -1, kids: [2]*hnode{a, b}})
	}
	var walk func(n *hnode, d int) error
	walk = func(n *hnode, d int) error {
		if n.sym >= 0 {
			if d > limit {
				return errors.New("huffman code too long")
			}
			lens[n.sym] = uint8(d)
			return nil
		}
		if err := walk(n.kids[0], d+1); err != nil {
			return err
		}
		return walk(n.kids[1], d+1)
	}
	return lens, walk((*h)[0], 0)
}

type hnode struct {
	freq int
	sym  int
	kids [2]*hnode
}

type nodeHeap []*hnode

func (h nodeHeap) Len() int { return len(h) }
func (h nodeHeap) Less(i, j int) bool {
	if h[i].freq != h[j].freq {
		return h[i].freq < h[j].freq
	}
	return h[i].sym < h[j].sym
}
func (h nodeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *nodeHeap) Push(x any)   { *h = append(*h, x.(*hnode)) }
func (h *nodeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// canonical assigns deflate's canonical codes to code lengths, bit-reversed
// for LSB-first writing.
func canonical(lens []uint8) []hcode {
	var count [16]int
	for _, l := range lens {
		if l > 0 {
			count[l]++
		}
	}
	var next [16]int
	code := 0
	for l := 1; l < 16; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	out := make([]hcode, len(lens))
	for s, l := range lens {
		if l == 0 {
			continue
		}
		c := next[l]
		next[l]++
		out[s] = hcode{code: bits.Reverse16(uint16(c)) >> (16 - l), n: l}
	}
	return out
}
