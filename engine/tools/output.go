package tools

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// TruncatedMarker is appended to output cut by Cap.
const TruncatedMarker = "...[truncated]"

// Cap returns s cut to at most maxChars characters followed by
// TruncatedMarker, or s unchanged when it fits (or maxChars <= 0).
func Cap(s string, maxChars int) string {
	if maxChars <= 0 || utf8.RuneCountInString(s) <= maxChars {
		return s
	}
	n := 0
	for i := range s {
		if n == maxChars {
			return s[:i] + TruncatedMarker
		}
		n++
	}
	return s
}

// CapWriter is an io.Writer that keeps the first characters written to it
// (enough for maxChars characters) and counts the rest, so a chatty process
// cannot exhaust memory. It is safe for concurrent use.
type CapWriter struct {
	mu        sync.Mutex
	maxChars  int
	buf       []byte
	total     int64
	truncated bool
}

// NewCapWriter returns a writer keeping at most maxChars characters.
func NewCapWriter(maxChars int) *CapWriter { return &CapWriter{maxChars: maxChars} }

// Write never fails.
func (w *CapWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.total += int64(len(p))
	limit := w.maxChars*utf8.UTFMax + 1
	if room := limit - len(w.buf); room > 0 {
		if room > len(p) {
			room = len(p)
		}
		w.buf = append(w.buf, p[:room]...)
	}
	if len(w.buf) >= limit {
		w.truncated = true
	}
	return len(p), nil
}

// String returns the kept output, capped with Cap.
func (w *CapWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := Cap(string(w.buf), w.maxChars)
	if w.truncated && !strings.HasSuffix(s, TruncatedMarker) {
		s += TruncatedMarker
	}
	return s
}

// Total is the number of bytes written, kept or not.
func (w *CapWriter) Total() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.total
}
