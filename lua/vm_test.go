package lua

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type deviceError struct{ Serial string }

func (e *deviceError) Error() string { return "device " + e.Serial + " is offline" }

func failingModule() Module {
	return ModuleFunc("dev", func(vm *VM) (LValue, error) {
		return vm.NewModule(map[string]LGFunction{
			"tap": func(L *LState) int {
				return Raise(L, fmt.Errorf("tap: %w", &deviceError{Serial: "emulator-5554"}))
			},
			"read": func(L *LState) int {
				return ReturnErr(L, fs.ErrNotExist)
			},
		}), nil
	})
}

func TestGoErrorChainSurvivesLua(t *testing.T) {
	vm := newTestVM(t, NewRegistry(failingModule()), Options{})
	for name, src := range map[string]string{
		"direct":          "local dev = require 'dev'\n\ndev.tap(1, 2)",
		"rethrown":        "local dev = require 'dev'\nlocal ok, err = pcall(dev.tap)\nerror(err)",
		"rethrown level0": "local dev = require 'dev'\nlocal ok, err = pcall(dev.tap)\nerror(err, 0)",
	} {
		t.Run(name, func(t *testing.T) {
			err := vm.Run("tap.lua", []byte(src))
			var de *deviceError
			require.ErrorAs(t, err, &de)
			assert.Equal(t, "emulator-5554", de.Serial)
			se := scriptErr(t, err)
			assert.Equal(t, "tap.lua", se.Chunk)
			assert.Equal(t, 3, se.Line)
			assert.Contains(t, se.Error(), "tap: device emulator-5554 is offline")
			assert.Contains(t, se.Traceback, "stack traceback:")
		})
	}
	t.Run("returnerr is a value", func(t *testing.T) {
		got, err := vm.Eval("require('dev').read('x')")
		require.NoError(t, err)
		assert.Equal(t, []any{nil, "file does not exist"}, got)
	})
	t.Run("plain error has no cause", func(t *testing.T) {
		se := scriptErr(t, vm.Run("e.lua", []byte("error('boom')")))
		assert.Nil(t, se.Cause)
		assert.Equal(t, "e.lua:1: boom", se.Error())
	})
	t.Run("error object", func(t *testing.T) {
		se := scriptErr(t, vm.Run("e.lua", []byte("error({code = 2})")))
		assert.Equal(t, map[string]any{"code": 2.0}, se.Value)
	})
}

func TestModuleOpenErrorKeepsChain(t *testing.T) {
	reg := NewRegistry(ModuleFunc("broken", func(vm *VM) (LValue, error) {
		return nil, fs.ErrPermission
	}))
	vm := newTestVM(t, reg, Options{})
	err := vm.Run("m.lua", []byte("require 'broken'"))
	assert.ErrorIs(t, err, fs.ErrPermission)
	assert.Contains(t, err.Error(), `m.lua:1: open module "broken": permission denied`)
}

func TestSourceMapRemapsErrorsAndTraceback(t *testing.T) {
	// Pretend flow.yaml compiled to gen.lua with Lua line n coming from YAML line 10n.
	sm := func(chunk string, line int) (string, int, bool) {
		if chunk != "gen.lua" {
			return "", 0, false
		}
		return "flow.yaml", line * 10, true
	}
	vm := newTestVM(t, NewRegistry(failingModule()), Options{SourceMap: sm})
	src := "local dev = require 'dev'\nlocal function step()\n  dev.tap(1, 2)\nend\nstep()\n"
	se := scriptErr(t, vm.Run("gen.lua", []byte(src)))
	assert.Equal(t, "flow.yaml", se.Chunk)
	assert.Equal(t, 30, se.Line)
	assert.Equal(t, "gen.lua", se.LuaChunk)
	assert.Equal(t, 3, se.LuaLine)
	assert.True(t, strings.HasPrefix(se.Error(), "flow.yaml:30: tap: device"), se.Error())
	assert.Contains(t, se.Traceback, "flow.yaml:30:")
	assert.Contains(t, se.Traceback, "flow.yaml:50:")
	assert.NotContains(t, se.Traceback, "gen.lua:")

	syn := scriptErr(t, vm.Run("gen.lua", []byte("local x = 1\nlocal = 2\n")))
	assert.Equal(t, KindSyntax, syn.Kind)
	assert.Equal(t, "flow.yaml", syn.Chunk)
	assert.Equal(t, 20, syn.Line)
}

func TestSyntaxError(t *testing.T) {
	vm := newTestVM(t, nil, Options{})
	se := scriptErr(t, vm.Run("bad.lua", []byte("local a = 1\n\nif a then\n  x = = 2\nend")))
	assert.Equal(t, KindSyntax, se.Kind)
	assert.Equal(t, 4, se.Line)
	assert.Equal(t, "bad.lua:4: syntax error near '=' (column 7)", se.Error())
	se = scriptErr(t, vm.Run("eof.lua", []byte("f(")))
	assert.Equal(t, "eof.lua: syntax error at end of input", se.Error())
}

func TestProtoCacheHit(t *testing.T) {
	cache := NewProtoCache(2)
	src := []byte("x = (x or 0) + 1 return x")
	for range 3 {
		vm := newTestVM(t, nil, Options{Cache: cache})
		require.NoError(t, vm.Run("c.lua", src))
		got, err := vm.Eval("x")
		require.NoError(t, err)
		assert.Equal(t, []any{1.0}, got, "each VM has fresh globals even with a shared proto")
	}
	st := cache.Stats()
	assert.Equal(t, uint64(2), st.Misses, "c.lua and the REPL line 'return x' compile once each")
	assert.Equal(t, uint64(4), st.Hits, "the next two VMs reuse both prototypes")

	// Same source under another chunk name is another entry; LRU bound holds.
	vm := newTestVM(t, nil, Options{Cache: cache})
	require.NoError(t, vm.Run("d.lua", src))
	require.NoError(t, vm.Run("e.lua", src))
	assert.Equal(t, 2, cache.Stats().Entries)
}

func TestEvalAndCall(t *testing.T) {
	vm := newTestVM(t, nil, Options{})
	got, err := vm.Eval("1 + 1")
	require.NoError(t, err)
	assert.Equal(t, []any{2.0}, got)
	got, err = vm.Eval("x = 5")
	require.NoError(t, err)
	assert.Empty(t, got)
	got, err = vm.Eval("x, 'a', nil, {1, 2}")
	require.NoError(t, err)
	assert.Equal(t, []any{5.0, "a", nil, []any{1.0, 2.0}}, got)

	require.NoError(t, vm.Run("lib.lua", []byte(`
agent = {}
function agent.run(task, opts) return "did " .. task, opts.steps * 2 end
function fail() error("nope") end`)))
	got, err = vm.Call("agent.run", "open settings", map[string]any{"steps": 3})
	require.NoError(t, err)
	assert.Equal(t, []any{"did open settings", 6.0}, got)

	_, err = vm.Call("missing.fn")
	assert.EqualError(t, err, `function "missing.fn" is not defined`)
	_, err = vm.Call("fail")
	assert.EqualError(t, err, "lib.lua:4: nope")
}

func TestPrintArgsGlobals(t *testing.T) {
	var lines []string
	vm := newTestVM(t, nil, Options{
		Print:   func(s string) { lines = append(lines, s) },
		Args:    []string{"a", "b"},
		Globals: map[string]any{"answer": 42, "double": LGFunction(func(L *LState) int { L.Push(L.CheckNumber(1) * 2); return 1 })},
	})
	require.NoError(t, vm.Run("p.lua", []byte(`
local x, y = ...
print(x, y, arg[1], arg.n, answer, double(4), nil, setmetatable({}, {__tostring = function() return "T" end}))`)))
	assert.Equal(t, []string{"a\tb\ta\t2\t42\t8\tnil\tT"}, lines)
}

func TestRequireRegisteredModules(t *testing.T) {
	opens := 0
	reg := NewRegistry(ModuleFunc("counter", func(vm *VM) (LValue, error) {
		opens++
		return vm.NewModule(map[string]LGFunction{"n": func(L *LState) int { L.Push(LNumber(opens)); return 1 }}), nil
	}))
	require.NoError(t, reg.RegisterSource("greet", `
local M = {}
local name = ...
function M.hello(who) return "hello " .. who .. " from " .. name end
return M`))
	require.NoError(t, reg.RegisterSource("loopa", `return require "loopb"`))
	require.NoError(t, reg.RegisterSource("loopb", `return require "loopa"`))
	require.NoError(t, reg.RegisterSource("oops", "local t = {}\n\nreturn t.x.y"))
	vm := newTestVM(t, reg, Options{})

	got, err := vm.Eval(`require("greet").hello("bob"), require("counter") == require("counter"), require("counter").n()`)
	require.NoError(t, err)
	assert.Equal(t, []any{"hello bob from greet", true, 1.0}, got)
	assert.Equal(t, 1, opens, "Open runs once per VM")

	err = vm.Run("l.lua", []byte(`require "loopa"`))
	assert.ErrorContains(t, err, `module "loopa" requires itself (require loop)`)

	se := scriptErr(t, vm.Run("o.lua", []byte(`require "oops"`)))
	assert.Equal(t, "oops.lua", se.Chunk, "errors inside a source module point into it")
	assert.Equal(t, 3, se.Line)

	_, err = vm.Eval(`require "nothere"`)
	assert.ErrorContains(t, err, `module "nothere" not found: only registered modules can be required (available: counter, greet, loopa, loopb, oops)`)

	auto := newTestVM(t, reg, Options{AutoRequire: true})
	got, err = auto.Eval(`greet.hello("amy"), undefined_global`)
	require.NoError(t, err)
	assert.Equal(t, []any{"hello amy from greet", nil}, got)
}

func TestRegistryBuilding(t *testing.T) {
	a := ModuleFunc("a", func(vm *VM) (LValue, error) { return LString("real"), nil })
	reg := NewRegistry(a)
	assert.ErrorContains(t, reg.Register(a), `module "a" already registered`)
	assert.ErrorContains(t, reg.Register(ModuleFunc("bad name", nil)), `invalid module name "bad name"`)
	err := reg.RegisterSource("syn", "return {")
	var se *ScriptError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "syn.lua", se.Chunk)

	fake := reg.With(ModuleFunc("a", func(vm *VM) (LValue, error) { return LString("fake"), nil })).WithSource("b", "return 'b'")
	assert.Equal(t, []string{"a", "b"}, fake.Names())
	assert.Equal(t, []string{"a"}, reg.Names(), "With copies")
	without := fake.Without("a")
	assert.Equal(t, []string{"b"}, without.Names())

	vm := newTestVM(t, fake, Options{})
	got, err := vm.Eval(`require "a", require "b"`)
	require.NoError(t, err)
	assert.Equal(t, []any{"fake", "b"}, got)
}

func TestClosedVM(t *testing.T) {
	closed := false
	vm, err := New(context.Background(), nil, Options{})
	require.NoError(t, err)
	vm.OnClose(func() { closed = true })
	vm.Close()
	vm.Close()
	assert.True(t, closed)
	assert.ErrorIs(t, vm.Run("x", []byte("")), ErrClosed)
	_, err = vm.Eval("1")
	assert.True(t, errors.Is(err, ErrClosed))
}

func TestConcurrentVMsShareCache(t *testing.T) {
	cache := NewProtoCache(8)
	reg := NewRegistry().MustRegisterSource("util", "return {inc = function(x) return x + 1 end}")
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			vm, err := New(context.Background(), reg, Options{Cache: cache})
			if err != nil {
				errs <- err
				return
			}
			defer vm.Close()
			got, err := vm.Eval(fmt.Sprintf("require('util').inc(%d)", i))
			if err == nil && got[0] != float64(i+1) {
				err = fmt.Errorf("got %v", got)
			}
			errs <- err
		}()
	}
	for range 8 {
		require.NoError(t, <-errs)
	}
}

func TestEnvIsPerVMAndShared(t *testing.T) {
	newVM := func() *VM {
		vm, err := New(context.Background(), nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(vm.Close)
		return vm
	}
	type key struct{}
	a, b := newVM(), newVM()
	created := 0
	mk := func() any { created++; return &struct{ n int }{n: created} }
	first := a.Env(key{}, mk)
	if again := a.Env(key{}, mk); again != first {
		t.Fatal("the same key in one VM must give the same value")
	}
	if other := b.Env(key{}, mk); other == first {
		t.Fatal("another VM must get its own value")
	}
	if created != 2 {
		t.Fatalf("create called %d times, want once per VM", created)
	}
}
