package lua

import (
	"context"
	"errors"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The sandbox escape suite: every attempt fails with a clear error and the
// VM (and process) stays usable afterwards.

func TestSandboxDangerousGlobalsAbsent(t *testing.T) {
	vm := newTestVM(t, nil, Options{})
	for _, name := range []string{
		"os", "io", "debug", "coroutine", "channel",
		"dofile", "loadfile", "load", "loadstring", "collectgarbage", "module", "_printregs", "newproxy",
		"string.dump", "package.loadlib", "package.loaders", "package.preload", "package.path", "package.cpath", "package.seeall",
	} {
		t.Run(name, func(t *testing.T) {
			got, err := vm.Eval(name)
			require.NoError(t, err)
			assert.Equal(t, []any{nil}, got, "%s must be nil in the sandbox", name)
		})
	}
	for _, lib := range []string{"string", "table", "math", "package", "require", "pcall", "print"} {
		got, err := vm.Eval("type(" + lib + ")")
		require.NoError(t, err)
		assert.NotEqual(t, "nil", got[0], lib)
	}
}

func TestSandboxEscapesFailClearly(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"os.execute", `os.execute("rm -rf /")`, "attempt to index a non-table object(nil) with key 'execute'"},
		{"io.open", `io.open("/etc/passwd")`, "attempt to index a non-table object(nil) with key 'open'"},
		{"debug.getregistry", `debug.getregistry()`, "attempt to index a non-table object(nil) with key 'getregistry'"},
		{"dofile", `dofile("/etc/passwd")`, "attempt to call a non-function object"},
		{"loadstring", `loadstring("return 1")()`, "attempt to call a non-function object"},
		{"load bytecode", `load("\27Lua\81\0")`, "attempt to call a non-function object"},
		{"string.dump", `string.dump(print)`, "attempt to call a non-function object"},
		{"coroutine", `coroutine.create(print)`, "attempt to index a non-table object(nil) with key 'create'"},
		{"require file", `require "./evil.lua"`, `require "./evil.lua": file paths cannot be required; only registered modules can (available: none)`},
		{"require abs path", `require "/tmp/evil"`, "file paths cannot be required"},
		{"require unknown", `require "socket"`, `module "socket" not found: only registered modules can be required (available: none)`},
		{"string.rep bomb", `local s = string.rep("x", 2^40)`, "string.rep: result of 1099511627776 bytes exceeds the string size limit of 16777216 bytes"},
		{"rep method bomb", `local s = ("ab"):rep(1e8)`, "string.rep: result of 200000000 bytes exceeds the string size limit"},
		{"format width bomb", `string.format("%099999999d", 1)`, "string.format: result of"},
		{"format args bomb", `local s = string.rep("x", 1e7); string.format("%s%s", s, s)`, "exceeds the string size limit"},
		{"concat bomb", `local s = string.rep("x", 1e7); table.concat({s, s, s})`, "table.concat: result of"},
		{"gsub bomb", `local s = string.rep("x", 1e4); s:gsub("x", string.rep("y", 1e4))`, "string.gsub: result of"},
		{"gsub func bomb", `local big = string.rep("y", 1e4); string.rep("x", 1e4):gsub("x", function() return big end)`, "string.gsub: result of"},
		{"unpack bomb", `unpack({}, 1, 1e9)`, "too many results to unpack (1000000000, limit 65536)"},
		{"unpack overflowing range", `unpack({}, -5e18, 5e18)`, "too many results to unpack (10000000000000000000, limit 65536)"},
		{"deep recursion", "local function f(n) return 1 + f(n + 1) end\nf(1)", "stack overflow (call depth exceeds 512)"},
		{"metamethod recursion", "local t = setmetatable({}, {__index = function(t, k) return t[k] end})\nreturn t.x", "stack overflow"},
	}
	vm := newTestVM(t, nil, Options{})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			se := scriptErr(t, vm.Run("escape.lua", []byte(c.src)))
			assert.Contains(t, se.Error(), c.want)
			assert.Equal(t, "escape.lua", se.Chunk)
			assert.NotEqual(t, KindPanic, se.Kind)
			// The VM is still healthy.
			got, err := vm.Eval("1 + 1")
			require.NoError(t, err)
			assert.Equal(t, []any{2.0}, got)
		})
	}
}

func TestMaxStringBytesOption(t *testing.T) {
	vm := newTestVM(t, nil, Options{MaxStringBytes: 100})
	assert.Equal(t, 100, vm.MaxStringBytes())
	assert.Equal(t, DefaultMaxStringBytes, newTestVM(t, nil, Options{}).MaxStringBytes())
	_, err := vm.Eval(`("x"):rep(100)`)
	require.NoError(t, err)
	se := scriptErr(t, vm.Run("c", []byte(`local s = ("x"):rep(101)`)))
	assert.Equal(t, "string.rep: result of 101 bytes exceeds the string size limit of 100 bytes", se.Message)
}

func TestGsubKeepsSemantics(t *testing.T) {
	vm := newTestVM(t, nil, Options{})
	cases := map[string][]any{
		`("hello world"):gsub("o", "0")`:                            {"hell0 w0rld", 2.0},
		`("hello world"):gsub("(o)", "[%1]")`:                       {"hell[o] w[o]rld", 2.0},
		`("abc"):gsub("%w", "%0%0")`:                                {"aabbcc", 3.0},
		`("abc"):gsub("%w", "%%")`:                                  {"%%%", 3.0},
		`("abc"):gsub("b", "%x")`:                                   {"a%xc", 1.0},
		`("hello world"):gsub("o", {o = "0"})`:                      {"hell0 w0rld", 2.0},
		`("hello world"):gsub("(l+)", function(s) return #s end)`:   {"he2o wor1d", 2.0},
		`("abc"):gsub("b", function() return nil end)`:              {"abc", 1.0},
		`("abc"):gsub("x", "y")`:                                    {"abc", 0.0},
		`("a,b,c"):gsub(",", ";", 1)`:                               {"a;b,c", 1.0},
		`("abc"):gsub("()b", "%1")`:                                 {"a2c", 1.0},
		`("abc"):gsub("", "-")`:                                     {"-a-b-c-", 4.0},
		`("$name is $age"):gsub("%$(%w+)", {name = "Bo", age = 7})`: {"Bo is 7", 2.0},
	}
	for src, want := range cases {
		got, err := vm.Eval(src)
		require.NoError(t, err, src)
		assert.Equal(t, want, got, src)
	}
}

func TestInfiniteLoopStopsAtTimeout(t *testing.T) {
	for name, src := range map[string]string{
		"loop":                 "while true do end",
		"pcall cannot swallow": "while true do pcall(function() while true do end end) end",
		"concat loop bomb":     `local s = "x" while true do s = s .. "x" end`,
		"error loop":           `while true do pcall(error, "x") end`,
	} {
		t.Run(name, func(t *testing.T) {
			vm := newTestVM(t, nil, Options{Timeout: 100 * time.Millisecond})
			start := time.Now()
			se := scriptErr(t, vm.Run("loop.lua", []byte(src)))
			assert.Less(t, time.Since(start), 5*time.Second)
			assert.Equal(t, KindCanceled, se.Kind)
			assert.ErrorIs(t, se, context.DeadlineExceeded)
			var te *TimeoutError
			require.ErrorAs(t, se, &te)
			assert.Equal(t, "loop.lua", se.Chunk)
			assert.Equal(t, 1, se.Line)
			assert.Equal(t, "run exceeded its timeout of 100ms", se.Message)
		})
	}
}

func TestInfiniteLoopStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	vm, err := New(ctx, nil, Options{Cache: NewProtoCache(4)})
	require.NoError(t, err)
	defer vm.Close()
	time.AfterFunc(50*time.Millisecond, cancel)
	err = vm.Run("loop.lua", []byte("local i = 0\nwhile true do i = i + 1 end"))
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, KindCanceled, scriptErr(t, err).Kind)
	// A canceled VM refuses further work with the same error.
	_, err = vm.Eval("1")
	assert.ErrorIs(t, err, context.Canceled)
}

func TestRunContextCancelsOneCallOnly(t *testing.T) {
	vm := newTestVM(t, nil, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := vm.RunContext(ctx, "line", []byte("x = 1 while true do end"))
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	got, err := vm.Eval("x")
	require.NoError(t, err, "the REPL VM survives an interrupted line")
	assert.Equal(t, []any{1.0}, got)
}

func sleepModule() Module {
	return ModuleFunc("clock", func(vm *VM) (LValue, error) {
		return vm.NewModule(map[string]LGFunction{
			"sleep": func(L *LState) int {
				ms := L.CheckInt(1)
				if err := Sleep(L, time.Duration(ms)*time.Millisecond); err != nil {
					return Raise(L, err)
				}
				return 0
			},
			"try_sleep": func(L *LState) int {
				if err := Sleep(L, time.Duration(L.CheckInt(1))*time.Millisecond); err != nil {
					return ReturnErr(L, err)
				}
				L.Push(LTrue)
				return 1
			},
		}), nil
	})
}

func TestSleepLongerThanTimeoutReturnsPromptly(t *testing.T) {
	for name, src := range map[string]string{
		"raise":     `require("clock").sleep(60000)`,
		"pcall'd":   `local ok, err = pcall(require("clock").sleep, 60000) while true do end`,
		"returnerr": `local ok, err = require("clock").try_sleep(60000) return ok, err`,
	} {
		t.Run(name, func(t *testing.T) {
			vm := newTestVM(t, NewRegistry(sleepModule()), Options{Timeout: 50 * time.Millisecond})
			start := time.Now()
			err := vm.Run("sleep.lua", []byte(src))
			assert.Less(t, time.Since(start), 2*time.Second)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.Equal(t, KindCanceled, scriptErr(t, err).Kind)
		})
	}
}

func TestVMHealthyAfterPanickingBinding(t *testing.T) {
	reg := NewRegistry(ModuleFunc("bad", func(vm *VM) (LValue, error) {
		return vm.NewModule(map[string]LGFunction{"boom": func(L *LState) int {
			var m map[string]int
			m["x"] = 1 // nil map write: a Go runtime panic
			return 0
		}}), nil
	}))
	vm := newTestVM(t, reg, Options{})
	se := scriptErr(t, vm.Run("p.lua", []byte("\nrequire('bad').boom()")))
	assert.Equal(t, KindPanic, se.Kind)
	assert.Contains(t, se.Message, "Go panic in a binding: assignment to entry in nil map")
	assert.Equal(t, 2, se.Line)
	got, err := vm.Eval("'still alive'")
	require.NoError(t, err)
	assert.Equal(t, []any{"still alive"}, got)
}

func TestCoroutineNotOpened(t *testing.T) {
	vm := newTestVM(t, nil, Options{})
	se := scriptErr(t, vm.Run("co.lua", []byte("local co = coroutine.wrap(function() end)")))
	assert.True(t, strings.Contains(se.Message, "non-table object(nil)"), se.Message)
	assert.False(t, errors.Is(se, context.Canceled))
}

// TestLuaHostReadsNoPrivateState: the package meets its limits with
// gopher-lua's public API; importing unsafe would mean reading its private
// frames again (and tying the VM to one gopher-lua layout).
func TestLuaHostReadsNoPrivateState(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range parsed.Imports {
			assert.NotEqual(t, `"unsafe"`, imp.Path.Value, "%s imports unsafe", f)
		}
	}
}
