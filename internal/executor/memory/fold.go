package memory

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Fold is the form queries and windows are compared in: lowercased,
// accents removed (café → cafe) and hyphens dropped (Wi-Fi → wifi), so
// `wifi` finds a line that says "Wi-Fi" and `resume` one that says
// "résumé". Snippets keep the original text.
func Fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r): // combining accent
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
