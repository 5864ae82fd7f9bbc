package cli

import (
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chunkReader returns one chunk per Read, as a terminal delivers reads.
type chunkReader struct{ chunks []string }

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	if n < len(c.chunks[0]) {
		c.chunks[0] = c.chunks[0][n:]
	} else {
		c.chunks = c.chunks[1:]
	}
	return n, nil
}

// translated is what readline reads from pasteInput over chunks, each
// marker shown as «its queued text».
func translated(t *testing.T, chunks ...string) string {
	t.Helper()
	in := newPasteInput(&chunkReader{chunks: chunks})
	b, err := io.ReadAll(in)
	require.NoError(t, err)
	var out strings.Builder
	for _, r := range string(b) {
		if r != pasteMarker {
			out.WriteRune(r)
			continue
		}
		require.NotEmpty(t, in.queue, "a marker without text")
		out.WriteString("«" + string(in.queue[0]) + "»")
		in.queue = in.queue[1:]
	}
	assert.Empty(t, in.queue, "text without a marker")
	return out.String()
}

func TestReplPasteInput(t *testing.T) {
	for _, c := range []struct {
		name   string
		chunks []string
		want   string
	}{
		{"typed keys pass", []string{"a", "b", "\t", "\r"}, "ab\t\r"},
		{"a burst is one marker", []string{"hello world\r"}, "«hello world»\r"},
		{"a tab inside a burst is text", []string{"a\tb\r"}, "«a\tb»\r"},
		{"a tab ending the read is the key", []string{"dev\t"}, "«dev»\t"},
		{"controls and escapes pass in order", []string{"x\x1b[Dyz\x03\x1b[1;1R"}, "x\x1b[D«yz»\x03\x1b[1;1R"},
		{"alt keys pass", []string{"\x1bf\x1b\x1b[C"}, "\x1bf\x1b\x1b[C"},
		{"an escape split across reads", []string{"ab\x1b[", "1;1", "R"}, "«ab»\x1b[1;1R"},
		{"bracketed paste: lines, tabs, CRLF", []string{"\x1b[200~line one\r\n\tline two\x1b[201~"}, "«line one»\r«\tline two»"},
		{"bracketed paste: empty lines and \\n", []string{"\x1b[200~a\n\nb\n\x1b[201~"}, "«a»\r\r«b»\r"},
		{"bracketed paste split anywhere", []string{"\x1b[20", "0~abc", "def\x1b[2", "01~x"}, "«abcdef»x"},
		{"bracketed paste keeps control text", []string{"\x1b[200~a\x03b\x1b[201~"}, "«a\x03b»"},
		{"a cursor report inside a paste is not text", []string{"\x1b[200~ab\x1b[1;1Rc\x1bd\x1b[201~"}, "\x1b[1;1R«abc\x1bd»"},
		{"a cursor report split inside a paste", []string{"\x1b[200~ab\x1b[1;", "1Rcd\x1b[201", "~"}, "\x1b[1;1R«abcd»"},
		{"a rune split across reads", []string{"h\xc3", "\xa9llo"}, "h«éllo»"},
		{"a typed marker rune still has its text", []string{"\uFFFB"}, "«\uFFFB»"},
		{"end of input flushes what was held", []string{"abc\x1b"}, "«abc»\x1b"},
		{"end of input inside a paste", []string{"\x1b[200~abc"}, "«abc»"},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, translated(t, c.chunks...))
		})
	}
}

func TestReplPasteListener(t *testing.T) {
	in := newPasteInput(strings.NewReader(""))
	in.queue = [][]rune{[]rune("pasted"), []rune("lost")}
	// readline's first call, and ordinary keys, change nothing.
	_, _, ok := in.listen(nil, 0, 0)
	assert.False(t, ok)
	_, _, ok = in.listen([]rune("ab"), 1, 'a')
	assert.False(t, ok)
	// the marker typed between a and b becomes the text, cursor after it.
	line, pos, ok := in.listen([]rune("a\uFFFBb"), 2, pasteMarker)
	require.True(t, ok)
	assert.Equal(t, "apastedb", string(line))
	assert.Equal(t, 7, pos)
	// a marker readline did not insert (history search) uses up its text.
	_, _, ok = in.listen([]rune("ab"), 1, pasteMarker)
	assert.False(t, ok)
	assert.Empty(t, in.queue)
	assert.Equal(t, "ab", string(paint([]rune("a\uFFFBb"), 0)))
}
