package imagecodec

import (
	"bytes"
	"hash/adler32"
	"math/rand"
	"testing"
)

// TestAdlerMatchesHashAdler32: the running Adler-32 the encoder writes
// (eight bytes a step, blocks up to the overflow bound, unchanged rows by
// multiplication) is hash/adler32's for every length around the step and
// block sizes, on bytes of 255 (the largest sums) and on random bytes.
func TestAdlerMatchesHashAdler32(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 5551, 5552, 5553, 11104, 11105, 40000} {
		for _, fill := range []string{"ff", "rand"} {
			p := make([]byte, n)
			for i := range p {
				p[i] = 255
				if fill == "rand" {
					p[i] = byte(r.Intn(256))
				}
			}
			s := adler{a: 1}
			// In two uneven pieces, as rows arrive.
			s.write(p[:n/3])
			s.write(p[n/3:])
			if got, want := s.sum32(), adler32.Checksum(p); got != want {
				t.Errorf("%d bytes of %s: adler %08x, hash/adler32 %08x", n, fill, got, want)
			}
		}
	}
	s, row := adler{a: 1}, make([]byte, 3241)
	row[0] = 2
	for range 5 {
		s.upRow(len(row) - 1)
	}
	if got, want := s.sum32(), adler32.Checksum(bytes.Repeat(row, 5)); got != want {
		t.Errorf("upRow: %08x, hash/adler32 %08x", got, want)
	}
}
