package screen

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// normalize prepares a label for display and matching: no-break and other
// Unicode spaces become a plain space, invisible format characters (BOM,
// bidi marks, zero-width joiners…) are dropped, runs of whitespace (also
// newlines from &#10;) collapse to one space, U+2010/U+2011 hyphens become
// '-' and the result is trimmed. It
// returns s itself, without allocating, when there is nothing to change.
func normalize(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case invisible(r):
			continue
		case unicode.IsSpace(r) || r == '\u00a0' || r == '\u202f' || r == '\u2007':
			space = true
			continue
		}
		if r == '\u2010' || r == '\u2011' {
			r = '-' // hyphen and non-breaking hyphen ("Wi‑Fi" in Settings)
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// isClean reports whether normalize(s) == s: printable ASCII with single
// inner spaces and no space at either end.
func isClean(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	prevSpace := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || c < ' ' || c == 0x7f {
			return false
		}
		if c == ' ' {
			if prevSpace {
				return false
			}
			prevSpace = true
		} else {
			prevSpace = false
		}
	}
	return true
}

// invisible reports format characters that render as nothing: BOM/ZWNBSP,
// zero-width space/joiners, LRM/RLM, bidi embeddings and isolates, word
// joiner, soft hyphen.
func invisible(r rune) bool {
	switch {
	case r == '\ufeff', r == '\u00ad', r == '\u2060':
		return true
	case r >= '\u200b' && r <= '\u200f':
		return true
	case r >= '\u202a' && r <= '\u202e':
		return true
	case r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// simpleClass is the part of a Java class name after the last dot.
func simpleClass(class string) string {
	if i := strings.LastIndexByte(class, '.'); i >= 0 {
		return class[i+1:]
	}
	return class
}

// shortID is the part of a resource-id after ":id/", or the whole id.
func shortID(id string) string {
	if i := strings.Index(id, ":id/"); i >= 0 {
		return id[i+len(":id/"):]
	}
	return id
}
