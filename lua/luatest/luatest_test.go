package luatest

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/lua"
)

const stringsLua = `
local M = {}
function M.split(s, sep)
  local out = {}
  if s == "" then return out end
  for part in (s .. sep):gmatch("(.-)" .. sep) do out[#out + 1] = part end
  return out
end
function M.trim(s) return (s:gsub("^%s+", ""):gsub("%s+$", "")) end
return M
`

func registry() *lua.Registry {
	return lua.NewRegistry().MustRegisterSource("strings", stringsLua)
}

func TestRunFile(t *testing.T) {
	RunFile(t, registry(), "testdata/helpers_test.lua")
}

// TestRunFileReportsFailures runs failing Lua tests in a child process and
// checks they fail with Lua positions.
func TestRunFileReportsFailures(t *testing.T) {
	if os.Getenv("LUATEST_CHILD") == "1" {
		RunFile(t, registry(), "testdata/failing_test.lua")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRunFileReportsFailures$", "-test.v")
	cmd.Env = append(os.Environ(), "LUATEST_CHILD=1")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "child must fail:\n%s", out)
	s := string(out)
	assert.Contains(t, s, "--- FAIL: TestRunFileReportsFailures/TestFails")
	assert.Contains(t, s, "testdata/failing_test.lua:2: math is broken")
	assert.Contains(t, s, "got:  2")
	assert.Contains(t, s, "testdata/failing_test.lua:3: not ok: falsy")
	assert.Contains(t, s, "testdata/failing_test.lua:4: stop here")
	assert.NotContains(t, s, "unreachable")
	assert.Contains(t, s, "--- FAIL: TestRunFileReportsFailures/TestRaises")
	assert.Contains(t, s, "testdata/failing_test.lua:10: attempt to index a non-table object(nil) with key 'field'")
}
