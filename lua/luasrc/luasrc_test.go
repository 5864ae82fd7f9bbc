package luasrc_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	glua "github.com/yuin/gopher-lua"

	"github.com/openpocket/openpocket/lua/luasrc"
)

// TestQuoteRoundTrips checks that Lua reads back exactly the quoted string.
func TestQuoteRoundTrips(t *testing.T) {
	for _, s := range []string{"", "plain", `say "hi"`, `back\slash`, "line\nbreak\r\ttab", "bell\x07del\x7f", "日本語 ✓ café", "\x00nul"} {
		L := glua.NewState()
		require.NoError(t, L.DoString("v = "+luasrc.Quote(s)), s)
		assert.Equal(t, s, L.GetGlobal("v").String())
		L.Close()
	}
	assert.Equal(t, `"a\"b"`, luasrc.Quote(`a"b`))
}
