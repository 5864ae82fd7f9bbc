// Package textpos places errors in text for people: a byte offset as a
// 1-based line and column (columns count characters, not bytes), the
// offset of an encoding/json syntax error, and the "did you mean" of a
// misspelt name. Every place that reports a position in a file (config,
// jobs, playbooks, Lua's json.decode) uses these, so they agree.
package textpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// LineCol converts a byte offset into a 1-based line and column; the
// column counts characters (runes). Offsets outside data are clamped.
func LineCol(data []byte, off int64) (line, col int) {
	off = max(0, min(off, int64(len(data))))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCount(before[lineStart:]) + 1
}

// JSONSyntaxOffset is the offset of the byte an encoding/json syntax error
// is about: the offending byte, or the end of the content for a document
// that ends too early. ok is false when err is not a *json.SyntaxError.
func JSONSyntaxOffset(data []byte, err error) (off int64, ok bool) {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return 0, false
	}
	if se.Error() == "unexpected end of JSON input" {
		return int64(len(bytes.TrimRight(data, " \t\r\n"))), true
	}
	return max(0, se.Offset-1), true // Offset is just after the offending byte
}

// Distance is the edit distance between a and b in runes, counting a
// transposition of two neighbours as one edit (optimal string alignment),
// so "tpa" is closer to "tap" than to "lua". Very long strings are never
// close.
func Distance(a, b string) int {
	if a == b {
		return 0
	}
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		return 1 << 20
	}
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// Nearest returns the candidate closest to s (ignoring case; ties go to
// the alphabetically first) when it is close enough to be a plausible typo
// — at most max(2, len(s)/3) edits — or "".
func Nearest(s string, candidates []string) string {
	best, bestD := "", 1<<30
	ls := strings.ToLower(s)
	for _, c := range candidates {
		d := Distance(ls, strings.ToLower(c))
		if d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	if best == "" || bestD > max(2, utf8.RuneCountInString(s)/3) {
		return ""
	}
	return best
}

// DidYouMean is "; did you mean \"x\"?" for the nearest candidate, or "".
func DidYouMean(s string, candidates []string) string {
	if n := Nearest(s, candidates); n != "" {
		return fmt.Sprintf("; did you mean %q?", n)
	}
	return ""
}
