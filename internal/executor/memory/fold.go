package memory

import (
	"strings"
	"unicode"
)

// accentBase maps a precomposed accented Latin letter to its base letter.
var accentBase = func() map[rune]rune {
	to := []rune(accentTo)
	m := make(map[rune]rune, len(to))
	for i, r := range []rune(accentFrom) {
		m[r] = to[i]
	}
	return m
}()

// Fold is the form queries and windows are compared in: lowercased,
// accents removed from Latin letters, precomposed or combining (café →
// cafe), and hyphens dropped (Wi-Fi → wifi), so
// `wifi` finds a line that says "Wi-Fi" and `resume` one that says
// "résumé". Snippets keep the original text.
func Fold(s string) string {
	if ascii, plain := asciiFold(s); plain {
		return ascii
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if base, ok := accentBase[r]; ok {
			r = base
		}
		switch {
		case unicode.Is(unicode.Mn, r): // a combining accent (decomposed text)
		case isHyphen(r):
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// isHyphen reports the dashes that join a word's parts.
func isHyphen(r rune) bool {
	switch r {
	case '-', '\u00ad', '\u2010', '\u2011':
		return true
	}
	return false
}

// asciiFold folds pure ASCII text without the accent table (the
// common case: most memory lines are ASCII); plain is false for any other
// text.
func asciiFold(s string) (string, bool) {
	changed := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return "", false
		}
		if c == '-' || ('A' <= c && c <= 'Z') {
			changed = true
		}
	}
	if !changed {
		return s, true
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '-':
		case 'A' <= c && c <= 'Z':
			b = append(b, c+'a'-'A')
		default:
			b = append(b, c)
		}
	}
	return string(b), true
}
