package executors

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// truncatedMarker ends output that was cut; it is the executors' marker
// too, so a capped print buffer reads like any capped output.
const truncatedMarker = "...[truncated]"

// capWriter keeps the first maxChars characters written to it and drops
// the rest, so a Lua script that prints in a loop cannot exhaust memory
// before its output is capped to scriptExecutor.maxOutputChars.
type capWriter struct {
	mu        sync.Mutex
	maxChars  int
	buf       []byte
	truncated bool
}

func newCapWriter(maxChars int) *capWriter { return &capWriter{maxChars: maxChars} }

// WriteString keeps what fits: enough bytes for maxChars characters of any
// width, plus one to notice that more came.
func (w *capWriter) WriteString(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	limit := w.maxChars*utf8.UTFMax + 1
	if room := limit - len(w.buf); room > 0 {
		w.buf = append(w.buf, s[:min(room, len(s))]...)
	}
	if len(w.buf) >= limit {
		w.truncated = true
	}
}

// String returns at most maxChars characters, ending with truncatedMarker
// when anything was dropped.
func (w *capWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := capChars(string(w.buf), w.maxChars)
	if w.truncated && !strings.HasSuffix(s, truncatedMarker) {
		s += truncatedMarker
	}
	return s
}

// capChars cuts s to maxChars characters followed by truncatedMarker, or
// returns s when it fits.
func capChars(s string, maxChars int) string {
	if maxChars <= 0 || utf8.RuneCountInString(s) <= maxChars {
		return s
	}
	n := 0
	for i := range s {
		if n == maxChars {
			return s[:i] + truncatedMarker
		}
		n++
	}
	return s
}
