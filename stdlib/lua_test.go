package stdlib_test

import (
	"testing"

	"github.com/openpocket/openpocket/lua/luatest"
	"github.com/openpocket/openpocket/stdlib"
)

func TestLuaHelpers(t *testing.T) {
	luatest.RunFile(t, stdlib.Registry(), "lua/stdlib_test.lua")
}
