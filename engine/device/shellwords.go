package device

import (
	"fmt"
	"strings"
)

// SplitCommand tokenizes a command line the way a POSIX shell splits words:
// single quotes are literal, double quotes allow \" \\ \$ \`, a backslash
// outside quotes escapes the next character. An unterminated quote is an
// error naming its position.
func SplitCommand(s string) ([]string, error) {
	var (
		words   []string
		cur     strings.Builder
		inWord  bool
		quote   byte
		quoteAt int
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case quote == '"':
			switch {
			case c == '"':
				quote = 0
			case c == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0:
				i++
				cur.WriteByte(s[i])
			default:
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, quoteAt, inWord = c, i, true
		case c == '\\':
			if i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			}
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote at column %d", quote, quoteAt+1)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// Quote returns s quoted for the device's /system/bin/sh so it arrives as one
// word: plain words stay as they are, anything else is single-quoted.
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("@%+=:,./_-", c) >= 0) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// JoinCommand quotes each word and joins them into one command line.
func JoinCommand(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = Quote(w)
	}
	return strings.Join(q, " ")
}

// JoinShellWords builds the device command line from host-tokenized words
// the way `adb shell` does: joined with single spaces, unescaped (adb, like
// ssh, leaves the line to the device's sh). The one exception is the script
// of a leading `sh [-flags] -c SCRIPT [ARG0 ARGS…]` (also `-lc`, `-ec`:
// any flag cluster holding c, and bash, mksh, su): the shell takes it as one
// argument, so it and its arguments are quoted to reach the shell whole, as
// upstream passes them as separate adb arguments.
func JoinShellWords(words []string) string {
	if len(words) >= 3 && isShell(words[0]) {
		for i := 1; i < len(words)-1; i++ {
			w := words[i]
			if len(w) < 2 || w[0] != '-' {
				break
			}
			if strings.ContainsRune(w[1:], 'c') {
				return strings.Join(words[:i+1], " ") + " " + JoinCommand(words[i+1:])
			}
		}
	}
	return strings.Join(words, " ")
}

func isShell(w string) bool {
	switch w {
	case "sh", "/system/bin/sh", "/bin/sh", "bash", "mksh", "su":
		return true
	}
	return false
}

// inputTextMeta are the characters the device shell would interpret in an
// `input text` argument; they are backslash-escaped.
const inputTextMeta = "\\\"'`$&|;<>()[]{}*?!~#^"

// EscapeInputText prepares ASCII text for `input text`: spaces become %s (the
// input tool's own encoding) and shell metacharacters are backslash-escaped.
func EscapeInputText(text string) string {
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == ' ':
			b.WriteString("%s")
		case strings.IndexByte(inputTextMeta, c) >= 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// isPlainASCII reports whether `input text` can type s: printable ASCII only
// (newlines and tabs are not typeable through it).
func isPlainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// TruncateMiddle cuts s to at most max characters keeping 70 % head and 30 %
// tail, so both the start of an output and its final lines survive.
func TruncateMiddle(s string, max int) string {
	r := []rune(s)
	if max <= 0 || len(r) <= max {
		return s
	}
	const marker = "\n...[truncated]...\n"
	keep := max - len([]rune(marker))
	if keep < 2 {
		return string(r[:max])
	}
	head := keep * 7 / 10
	tail := keep - head
	return string(r[:head]) + marker + string(r[len(r)-tail:])
}
