package cli

import (
	"bytes"
	"io"
	"slices"
	"sync"
	"unicode/utf8"
)

// Pasting into the REPL: readline (github.com/ergochat/readline) handles
// one rune per key and, after each, re-measures the whole line and copies
// it into the history scratch entry, so a paste of n characters costs
// O(n²) (16,000 characters took seconds). pasteInput sits between the
// terminal and readline and turns text that arrives as one burst into a
// single key: a marker rune readline inserts like any typed character,
// which the Listener then swaps for the whole text in one edit and one
// redraw. Bursts are recognised two ways:
//   - bracketed paste: the REPL asks the terminal (\x1b[?2004h) to wrap
//     pastes in \x1b[200~ … \x1b[201~; everything inside is text, tabs
//     included (so a pasted indent never triggers completion), and each
//     newline is Enter, so a multi-line snippet reads line by line as if
//     typed;
//   - otherwise (no terminal support, a pipe): two or more printable
//     characters that one read returns together did not come from a
//     person typing; they are inserted at once. A tab ending such a read
//     stays the Tab key.
//
// Keys, escape sequences (arrows, the cursor-position report readline
// asks for) and control characters pass through unchanged and in order.

// pasteMarker stands in readline's input for one burst of text. U+FFFB
// (interlinear annotation terminator) is a format character nobody types:
// readline gives it zero width, so its cursor arithmetic stays right in
// the moment it sits in the line, and the Painter never draws it.
const pasteMarker = '\uFFFB'

var (
	pasteStart = []byte("\x1b[200~")
	pasteEnd   = []byte("\x1b[201~")
)

// pasteInput is readline's stdin: it reads the terminal and hands readline
// keys, with each burst of text replaced by one pasteMarker whose text
// waits in a queue for the Listener.
type pasteInput struct {
	src  io.Reader
	buf  []byte // read buffer
	raw  []byte // bytes read but not yet translated (an unfinished sequence)
	out  []byte // translated bytes readline has not read yet
	err  error  // src's error, returned once out is drained
	line []byte // bracketed paste: the current line's text so far
	// inPaste is true between \x1b[200~ and \x1b[201~; lastCR remembers
	// a pasted \r so that a following \n does not make a second Enter.
	inPaste, lastCR bool

	mu    sync.Mutex
	queue [][]rune // texts of markers readline has not handled yet, in order
}

func newPasteInput(src io.Reader) *pasteInput {
	return &pasteInput{src: src, buf: make([]byte, 64<<10)}
}

// Read blocks until there is at least one translated byte (or src fails).
func (in *pasteInput) Read(p []byte) (int, error) {
	for len(in.out) == 0 {
		if in.err != nil {
			return 0, in.err
		}
		n, err := in.src.Read(in.buf)
		in.raw = append(in.raw, in.buf[:n]...)
		if err != nil {
			in.err = err
		}
		in.translate(err != nil)
	}
	n := copy(p, in.out)
	in.out = in.out[:copy(in.out, in.out[n:])]
	return n, nil
}

// translate turns in.raw into in.out, keeping back an unfinished escape
// sequence, UTF-8 rune or end-of-paste marker for the next read (unless
// final: src has ended and what is held goes out as it is).
func (in *pasteInput) translate(final bool) {
	raw := in.raw
	i := 0
	for i < len(raw) {
		if in.inPaste {
			n, done := in.pasted(raw[i:], final)
			i += n
			if !done {
				break
			}
			continue
		}
		c := raw[i]
		if c == 0x1b {
			n, ok := escapeLen(raw[i:])
			if !ok && !final {
				break
			}
			if bytes.HasPrefix(raw[i:], pasteStart) {
				in.inPaste = true
			} else {
				in.out = append(in.out, raw[i:i+n]...)
			}
			i += n
			continue
		}
		if !isTextByte(c) {
			in.out = append(in.out, c)
			i++
			continue
		}
		n, held := in.text(raw[i:], final)
		i += n
		if held {
			break
		}
	}
	in.raw = in.raw[:copy(in.raw, raw[i:])]
	if final && in.inPaste {
		in.endPaste()
	}
}

// pasted consumes bracketed-paste content from b: up to the end marker
// (done) or to the end of b, minus a possibly unfinished escape sequence.
// A cursor-position report inside a paste is the terminal answering
// readline's query between two writes of the paste, not pasted text: it
// goes to readline at once, which waits for it before anything else.
func (in *pasteInput) pasted(b []byte, final bool) (n int, done bool) {
	for {
		j := bytes.IndexByte(b[n:], 0x1b)
		if j < 0 {
			in.pasteText(b[n:])
			return len(b), false
		}
		in.pasteText(b[n : n+j])
		n += j
		rest := b[n:]
		if bytes.HasPrefix(rest, pasteEnd) {
			in.endPaste()
			return n + len(pasteEnd), true
		}
		k, ok := escapeLen(rest)
		switch {
		case !ok && !final:
			return n, false // wait for the rest of the sequence
		case ok && rest[1] == '[' && rest[k-1] == 'R':
			in.out = append(in.out, rest[:k]...)
			n += k
		default:
			in.pasteText(rest[:1]) // a pasted ESC is text
			n++
		}
	}
}

// pasteText adds pasted bytes to the current line; each newline (\r, \n
// or \r\n) ends the line: its text becomes one marker, then Enter.
func (in *pasteInput) pasteText(b []byte) {
	for _, c := range b {
		switch {
		case c == '\n' && in.lastCR:
			in.lastCR = false
		case c == '\r' || c == '\n':
			in.flushLine()
			in.out = append(in.out, '\r')
			in.lastCR = c == '\r'
		default:
			in.line = append(in.line, c)
			in.lastCR = false
		}
	}
}

func (in *pasteInput) endPaste() {
	in.flushLine()
	in.inPaste, in.lastCR = false, false
}

func (in *pasteInput) flushLine() {
	if len(in.line) > 0 {
		in.mark([]rune(string(in.line)))
		in.line = in.line[:0]
	}
}

// text handles a run of printable characters (and tabs) outside a
// bracketed paste: two or more characters read together are one burst.
// held reports bytes kept back (an unfinished UTF-8 rune at the end).
func (in *pasteInput) text(b []byte, final bool) (n int, held bool) {
	for n < len(b) && isTextByte(b[n]) {
		n++
	}
	run := b[:n]
	if n == len(b) && !final {
		if cut := partialRune(run); cut > 0 {
			run, held = run[:n-cut], true
		}
	}
	var tabs []byte
	if n == len(b) { // the read ends here: a last Tab is the key
		for len(run) > 0 && run[len(run)-1] == '\t' {
			run, tabs = run[:len(run)-1], append(tabs, '\t')
		}
	}
	rs := []rune(string(run))
	if len(rs) >= 2 || slices.Contains(rs, pasteMarker) {
		in.mark(rs)
	} else {
		in.out = append(in.out, run...)
	}
	in.out = append(in.out, tabs...)
	return len(run) + len(tabs), held
}

// mark queues text and writes its marker.
func (in *pasteInput) mark(text []rune) {
	in.mu.Lock()
	in.queue = append(in.queue, text)
	in.mu.Unlock()
	in.out = utf8.AppendRune(in.out, pasteMarker)
}

// listen is readline's Listener: on a marker key it replaces the marker
// just inserted before the cursor with its queued text, in one edit.
func (in *pasteInput) listen(line []rune, pos int, key rune) ([]rune, int, bool) {
	if key != pasteMarker {
		return nil, 0, false
	}
	in.mu.Lock()
	if len(in.queue) == 0 {
		in.mu.Unlock()
		return nil, 0, false
	}
	text := in.queue[0]
	in.queue[0] = nil
	in.queue = in.queue[1:]
	in.mu.Unlock()
	if pos < 1 || pos > len(line) || line[pos-1] != pasteMarker {
		// Not inserted (readline was in history search): the text is
		// dropped, as a key search mode swallows.
		return nil, 0, false
	}
	out := make([]rune, 0, len(line)-1+len(text))
	out = append(out, line[:pos-1]...)
	out = append(out, text...)
	out = append(out, line[pos:]...)
	return out, pos - 1 + len(text), true
}

// paint is readline's Painter: markers are never drawn.
func paint(line []rune, _ int) []rune {
	if !slices.Contains(line, pasteMarker) {
		return line
	}
	out := make([]rune, 0, len(line))
	for _, r := range line {
		if r != pasteMarker {
			out = append(out, r)
		}
	}
	return out
}

// isTextByte: printable ASCII, tab, or any byte of a multi-byte rune.
func isTextByte(c byte) bool {
	return c == '\t' || c >= 0x20 && c != 0x7f
}

// escapeLen is the length of the escape sequence b starts with, the way
// readline reads it: ESC [ or ESC O, digits and semicolons, one final
// byte; ESC ESC and a sequence (Alt+arrow); ESC and one rune (Alt+key).
// ok is false when b ends before the sequence does.
func escapeLen(b []byte) (n int, ok bool) {
	if len(b) < 2 {
		return len(b), false
	}
	switch b[1] {
	case '[', 'O':
		for n = 2; n < len(b); n++ {
			if c := b[n]; c != ';' && (c < '0' || c > '9') {
				return n + 1, true
			}
		}
		return len(b), false
	case 0x1b:
		n, ok = escapeLen(b[1:])
		return n + 1, ok
	}
	if !utf8.FullRune(b[1:]) {
		return len(b), false
	}
	_, size := utf8.DecodeRune(b[1:])
	return 1 + size, true
}

// partialRune is how many bytes at the end of b start a rune that is not
// complete yet.
func partialRune(b []byte) int {
	for k := 1; k <= utf8.UTFMax-1 && k <= len(b); k++ {
		c := b[len(b)-k]
		if c < 0x80 {
			return 0
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-k:]) {
				return 0
			}
			return k
		}
	}
	return 0
}
