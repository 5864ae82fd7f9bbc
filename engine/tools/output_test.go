package tools

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCap(t *testing.T) {
	assert.Equal(t, "abc", Cap("abc", 3))
	assert.Equal(t, "ab"+TruncatedMarker, Cap("abc", 2))
	w := NewCapWriter(4)
	w.Write([]byte("héllo wörld"))
	assert.Equal(t, "héll"+TruncatedMarker, w.String())
	assert.Equal(t, int64(len("héllo wörld")), w.Total())
}

func TestCapWriterKeepsWhatFits(t *testing.T) {
	w := NewCapWriter(5)
	w.Write([]byte("héllo"))
	assert.Equal(t, "héllo", w.String(), "what fits is kept whole")

	w = NewCapWriter(5)
	for range 100 {
		w.Write([]byte("ab\n"))
	}
	assert.Equal(t, "ab\nab"+TruncatedMarker, w.String())
	assert.LessOrEqual(t, len(w.buf), 5*4+1, "the rest is dropped, not buffered")

	w = NewCapWriter(3)
	w.Write([]byte("ééé"))
	w.Write([]byte(strings.Repeat("x", 20)))
	assert.Equal(t, "ééé"+TruncatedMarker, w.String())
}
