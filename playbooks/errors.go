package playbooks

import (
	"errors"
	"fmt"
	"strings"

	"github.com/openpocket/openpocket/engine/textpos"
)

// Pos is a position in a playbook file (1-based line and column; 0 when
// unknown).
type Pos struct {
	File   string
	Line   int
	Column int
}

func (p Pos) String() string {
	switch {
	case p.Line == 0:
		return p.File
	case p.Column == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
}

// Error is one problem in a playbook: where it is (file, line, column and
// the step path such as "steps[3].tap"), what was expected (Message) and
// the offending source line with a caret under the column (Snippet).
type Error struct {
	File    string
	Line    int
	Column  int
	Step    string // path of the step or header key; "" when not inside one
	Message string
	Snippet string // "  12 |   - tpa: Save\n     |     ^"; "" when unknown
}

// Error formats "file:line:col: step: message" followed by the snippet.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(Pos{e.File, e.Line, e.Column}.String())
	b.WriteString(": ")
	if e.Step != "" {
		b.WriteString(e.Step)
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	if e.Snippet != "" {
		b.WriteString("\n")
		b.WriteString(e.Snippet)
	}
	return b.String()
}

// ErrorList is every error found in one compilation, in source order. It
// unwraps to its elements, so errors.As(err, &*Error) finds the first.
type ErrorList []*Error

func (l ErrorList) Error() string {
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Unwrap returns the errors for errors.Is / errors.As.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// Warning is a problem that does not stop compilation (a fixed sleep, an
// unknown variable in an expression, ...).
type Warning struct {
	File    string
	Line    int
	Column  int
	Step    string
	Message string
}

func (w Warning) String() string {
	s := Pos{w.File, w.Line, w.Column}.String() + ": warning: "
	if w.Step != "" {
		s += w.Step + ": "
	}
	return s + w.Message
}

// maxErrors bounds the errors collected from one file.
const maxErrors = 50

// snippet renders line `line` of src with a caret under column col.
func snippet(src []byte, line, col int) string {
	if line <= 0 || src == nil {
		return ""
	}
	lines := strings.Split(string(src), "\n")
	if line > len(lines) {
		return ""
	}
	text := strings.TrimRight(lines[line-1], "\r")
	if r := []rune(text); len(r) > 200 {
		text = string(r[:200]) + "…" // by runes: a byte cut can split a character
	}
	num := fmt.Sprintf("%4d | ", line)
	pad := strings.Repeat(" ", len(num)-2) + "| "
	caret := ""
	if col > 0 {
		// Columns count characters; keep tabs so the caret lines up.
		var sp strings.Builder
		i := 0
		for _, r := range text {
			if i >= col-1 {
				break
			}
			if r == '\t' {
				sp.WriteRune('\t')
			} else {
				sp.WriteByte(' ')
			}
			i++
		}
		caret = "\n" + pad + sp.String() + "^"
	}
	return num + text + caret
}

// didYouMean is "; did you mean \"x\"?" or "" (textpos.DidYouMean).
func didYouMean(s string, candidates []string) string { return textpos.DidYouMean(s, candidates) }

// asError returns the *Error list inside err, if any.
func asErrorList(err error) (ErrorList, bool) {
	var l ErrorList
	if errors.As(err, &l) {
		return l, true
	}
	var e *Error
	if errors.As(err, &e) {
		return ErrorList{e}, true
	}
	return nil, false
}
