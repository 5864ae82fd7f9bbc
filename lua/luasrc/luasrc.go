// Package luasrc helps code generators write Lua source text (playbooks
// compile to Lua, skills generate replay scripts). It does not import the
// VM, so a compiler can depend on it without pulling gopher-lua in.
package luasrc

import (
	"fmt"
	"strings"
)

// Quote renders s as a Lua string literal. Bytes ≥ 0x80 pass through so
// UTF-8 stays readable in generated code; control characters are escaped.
func Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, "\\%03d", c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
