package policy

import (
	"fmt"
	"strings"
)

// Segment is one simple command of a shell script: the words between two
// command separators (&&, ||, ;, |, |&, a lone &, newline), with quotes and
// backslash escapes removed.
type Segment struct {
	Words []string
}

// Command returns the command word of the segment: the first word after any
// leading VAR=value assignments, with its directory stripped
// ("/usr/bin/ls" → "ls"). It is "" for a segment that only assigns.
func (s Segment) Command() string {
	for _, w := range s.Words {
		if isAssignment(w) {
			continue
		}
		if i := strings.LastIndexByte(w, '/'); i >= 0 && i < len(w)-1 {
			return w[i+1:]
		}
		return w
	}
	return ""
}

// isAssignment reports whether w looks like NAME=value or NAME+=value.
func isAssignment(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	name := strings.TrimSuffix(w[:eq], "+")
	if name == "" {
		return false
	}
	for i, c := range name {
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// Segments splits a bash script into simple commands. It is quote-aware
// (separators inside '…', "…" and $'…' do not split), honours backslash
// escapes and line continuations, skips # comments and here-document bodies,
// and keeps redirections such as 2>&1 and &>file inside their word. An
// unterminated quote is an error, since the split would be unreliable.
//
// The lexer is deliberately conservative: constructs it does not model
// (subshell parentheses, keywords such as if/then, case patterns) end up as
// command words that no allowlist contains, so they are rejected rather than
// waved through.
func Segments(script string) ([]Segment, error) {
	l := lexer{src: script}
	return l.run()
}

type heredoc struct {
	delim     string
	stripTabs bool
}

type lexer struct {
	src      string
	pos      int
	segs     []Segment
	words    []string
	word     strings.Builder
	inWord   bool
	heredocs []heredoc
	// pendingHeredoc is set after "<<" until its delimiter word ends.
	pendingHeredoc *heredoc
}

func (l *lexer) endWord() {
	if !l.inWord {
		return
	}
	w := l.word.String()
	l.word.Reset()
	l.inWord = false
	if l.pendingHeredoc != nil {
		l.pendingHeredoc.delim = w
		l.heredocs = append(l.heredocs, *l.pendingHeredoc)
		l.pendingHeredoc = nil
	}
	l.words = append(l.words, w)
}

func (l *lexer) endSegment() {
	l.endWord()
	if len(l.words) > 0 {
		l.segs = append(l.segs, Segment{Words: l.words})
	}
	l.words = nil
}

func (l *lexer) peek(off int) byte {
	if l.pos+off < len(l.src) {
		return l.src[l.pos+off]
	}
	return 0
}

func (l *lexer) add(c byte) {
	l.word.WriteByte(c)
	l.inWord = true
}

func (l *lexer) run() ([]Segment, error) {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == '\\':
			if l.peek(1) == '\n' { // line continuation
				l.pos += 2
				continue
			}
			if l.pos+1 < len(l.src) {
				l.add(l.src[l.pos+1])
				l.pos += 2
				continue
			}
			l.add(c)
			l.pos++
		case c == '\'':
			if err := l.quoted('\'', false); err != nil {
				return nil, err
			}
		case c == '"':
			if err := l.quoted('"', true); err != nil {
				return nil, err
			}
		case c == '$' && l.peek(1) == '\'':
			// ANSI-C quoting: backslash escapes everything, including '.
			l.pos++
			if err := l.quoted('\'', true); err != nil {
				return nil, err
			}
		case c == '#' && !l.inWord:
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.pos++
			}
		case c == ' ' || c == '\t' || c == '\r':
			l.endWord()
			l.pos++
		case c == '\n':
			l.endSegment()
			l.pos++
			l.skipHeredocs()
		case c == ';':
			l.endSegment()
			l.pos++
		case c == '|':
			l.endSegment()
			l.pos++
			if n := l.peek(0); n == '|' || n == '&' {
				l.pos++
			}
		case c == '&':
			prev := byte(0)
			if w := l.word.String(); l.inWord && w != "" {
				prev = w[len(w)-1]
			}
			switch {
			case l.peek(1) == '&':
				l.endSegment()
				l.pos += 2
			case l.peek(1) == '>' || prev == '>' || prev == '<':
				l.add(c) // &>file, 2>&1, <&3
				l.pos++
			default: // background operator
				l.endSegment()
				l.pos++
			}
		case c == '<' && l.peek(1) == '<' && l.peek(2) == '<': // here-string
			l.word.WriteString("<<<")
			l.inWord = true
			l.pos += 3
		case c == '<' && l.peek(1) == '<':
			l.endWord()
			l.add('<')
			l.add('<')
			l.pos += 2
			h := &heredoc{}
			if l.peek(0) == '-' {
				h.stripTabs = true
				l.add('-')
				l.pos++
			}
			// The delimiter may follow directly (<<EOF) or after blanks.
			l.endWord()
			for l.peek(0) == ' ' || l.peek(0) == '\t' {
				l.pos++
			}
			l.pendingHeredoc = h
		default:
			l.add(c)
			l.pos++
		}
	}
	l.endSegment()
	return l.segs, nil
}

// quoted consumes a quoted string starting at l.pos (the opening quote).
// escapes enables backslash escapes inside it.
func (l *lexer) quoted(q byte, escapes bool) error {
	start := l.pos
	l.pos++
	l.inWord = true
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if c == q {
			l.pos++
			return nil
		}
		if escapes && c == '\\' && l.pos+1 < len(l.src) {
			l.word.WriteByte(l.src[l.pos+1])
			l.pos += 2
			continue
		}
		l.word.WriteByte(c)
		l.pos++
	}
	line := 1 + strings.Count(l.src[:start], "\n")
	return fmt.Errorf("unterminated %c quote starting on line %d", q, line)
}

// skipHeredocs skips the bodies of here-documents opened on the line just
// ended: their lines are data, not commands.
func (l *lexer) skipHeredocs() {
	if l.pendingHeredoc != nil { // "<<" with no delimiter: let bash complain
		l.pendingHeredoc = nil
	}
	for _, h := range l.heredocs {
		for l.pos < len(l.src) {
			end := strings.IndexByte(l.src[l.pos:], '\n')
			var line string
			if end < 0 {
				line = l.src[l.pos:]
				l.pos = len(l.src)
			} else {
				line = l.src[l.pos : l.pos+end]
				l.pos += end + 1
			}
			line = strings.TrimSuffix(line, "\r")
			if h.stripTabs {
				line = strings.TrimLeft(line, "\t")
			}
			if line == h.delim {
				break
			}
		}
	}
	l.heredocs = nil
}
