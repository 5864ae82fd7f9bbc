// Package luatest runs Lua test files as Go subtests, so embedded pure-Lua
// helpers are tested like Go code. Every global function whose name starts
// with "Test" runs as t.Run(name), in a fresh VM that first ran the file,
// and receives a small test object:
//
//	-- flow_test.lua
//	local flow = require "flow"
//
//	function TestRetry(t)
//	  local n = 0
//	  flow.retry(3, function() n = n + 1 end)
//	  t:eq(n, 1, "ran once")       -- deep equality, continues on failure
//	  t:ok(n > 0, "positive")      -- truthiness
//	  t:error("message")           -- mark failed, continue
//	  t:fatal("message")           -- mark failed, stop this test
//	  t:log("anything", 1, {})     -- t.Log
//	  t:skip("reason")             -- t.Skip
//	end
//
// and from Go:
//
//	func TestFlowLua(t *testing.T) { luatest.RunFile(t, stdlib.Registry(), "testdata/flow_test.lua") }
//
// Failures are reported with the Lua file and line.
package luatest

import (
	"context"
	"errors"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/openpocket/openpocket/lua"
)

// RunFile runs the Lua test file at path against reg.
func RunFile(t *testing.T, reg *lua.Registry, path string) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("luatest: %v", err)
	}
	RunSource(t, reg, path, src)
}

// RunSource runs Lua test source (named chunk in messages) against reg.
func RunSource(t *testing.T, reg *lua.Registry, chunk string, src []byte) {
	t.Helper()
	names := discover(t, reg, chunk, src)
	if len(names) == 0 {
		t.Fatalf("luatest: %s defines no global Test* functions", chunk)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			vm := newVM(t, reg)
			if err := vm.Run(chunk, src); err != nil {
				t.Fatalf("luatest: loading %s: %v", chunk, err)
			}
			fn := vm.L.GetGlobal(name)
			_, err := vm.PCall(fn, newT(vm.L, t))
			var se *lua.ScriptError
			switch {
			case err == nil:
			case errors.As(err, &se) && errors.Is(se.Cause, errStop):
				// t:fatal already reported (t:skip ends the test through
				// t.Skipf and never returns here).
			default:
				t.Fatalf("%v\n%s", err, tracebackOf(err))
			}
		})
	}
}

func tracebackOf(err error) string {
	var se *lua.ScriptError
	if errors.As(err, &se) {
		return se.Traceback
	}
	return ""
}

func newVM(t *testing.T, reg *lua.Registry) *lua.VM {
	vm, err := lua.New(t.Context(), reg, lua.Options{Print: func(s string) { t.Log(s) }})
	if err != nil {
		t.Fatalf("luatest: %v", err)
	}
	t.Cleanup(vm.Close)
	return vm
}

func discover(t *testing.T, reg *lua.Registry, chunk string, src []byte) []string {
	t.Helper()
	vm, err := lua.New(context.Background(), reg, lua.Options{Print: func(string) {}})
	if err != nil {
		t.Fatalf("luatest: %v", err)
	}
	defer vm.Close()
	if err := vm.Run(chunk, src); err != nil {
		t.Fatalf("luatest: loading %s: %v", chunk, err)
	}
	var names []string
	vm.L.G.Global.ForEach(func(k, v lua.LValue) {
		if ks, ok := k.(lua.LString); ok && strings.HasPrefix(string(ks), "Test") {
			if _, isFn := v.(*lua.LFunction); isFn {
				names = append(names, string(ks))
			}
		}
	})
	slices.Sort(names)
	return names
}

var errStop = errors.New("luatest: test stopped")

var tType = &lua.UserDataType[*testing.T]{
	Name: "openpocket.luatest.t",
	Methods: map[string]func(*lua.LState, *testing.T) int{
		"error": func(L *lua.LState, t *testing.T) int {
			t.Errorf("%s %s", where(L), message(L, 2))
			return 0
		},
		"fatal": func(L *lua.LState, t *testing.T) int {
			t.Errorf("%s %s", where(L), message(L, 2))
			return lua.Raise(L, errStop)
		},
		"skip": func(L *lua.LState, t *testing.T) int {
			t.Skipf("%s %s", where(L), message(L, 2))
			return 0
		},
		"log": func(L *lua.LState, t *testing.T) int {
			t.Logf("%s %s", where(L), message(L, 2))
			return 0
		},
		"ok": func(L *lua.LState, t *testing.T) int {
			if !L.ToBool(2) {
				t.Errorf("%s not ok: %s", where(L), message(L, 3))
			}
			return 0
		},
		"eq": func(L *lua.LState, t *testing.T) int {
			got, want := lua.ToGo(L.Get(2)), lua.ToGo(L.Get(3))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s\n\tgot:  %#v\n\twant: %#v", where(L), message(L, 4), got, want)
			}
			return 0
		},
	},
}

func newT(L *lua.LState, t *testing.T) lua.LValue { return tType.New(L, t) }

func where(L *lua.LState) string {
	return strings.TrimSuffix(L.Where(1), ":") + ":"
}

func message(L *lua.LState, from int) string {
	var parts []string
	for i := from; i <= L.GetTop(); i++ {
		parts = append(parts, L.ToStringMeta(L.Get(i)).String())
	}
	if len(parts) == 0 {
		return "(no message)"
	}
	return strings.Join(parts, " ")
}
