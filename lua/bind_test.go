package lua

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type waitOpts struct {
	Timeout  time.Duration
	Interval time.Duration
	Text     string
	Exact    bool
	Retries  int
}

func TestCheckOptions(t *testing.T) {
	var got waitOpts
	reg := NewRegistry(ModuleFunc("ui", func(vm *VM) (LValue, error) {
		return vm.NewModule(map[string]LGFunction{"wait": func(L *LState) int {
			o := CheckOptions(L, 1)
			got = waitOpts{
				Timeout:  o.Duration("timeout", 10*time.Second),
				Interval: o.Duration("interval", 500*time.Millisecond),
				Text:     o.String("text", ""),
				Exact:    o.Bool("exact", false),
				Retries:  o.Int("retries", 3),
			}
			o.Check()
			return 0
		}}), nil
	}))
	vm := newTestVM(t, reg, Options{})
	_, err := vm.Eval(`require("ui").wait({timeout_ms = 1500, text = "OK", exact = true})`)
	require.NoError(t, err)
	assert.Equal(t, waitOpts{Timeout: 1500 * time.Millisecond, Interval: 500 * time.Millisecond, Text: "OK", Exact: true, Retries: 3}, got)

	_, err = vm.Eval(`require("ui").wait()`)
	require.NoError(t, err)
	assert.Equal(t, 10*time.Second, got.Timeout)

	for src, want := range map[string]string{
		`require("ui").wait({timeout = 5})`:              `bad argument #1 to wait (unknown option "timeout" (valid: exact, interval_ms, retries, text, timeout_ms))`,
		`require("ui").wait({timout_ms = 5, txt = "x"})`: `unknown options "timout_ms", "txt" (valid:`,
		`require("ui").wait({timeout_ms = "5"})`:         `bad argument #1 to wait (option "timeout_ms": number expected, got string)`,
		`require("ui").wait({retries = 1.5})`:            `option "retries": integer expected, got 1.5`,
		`require("ui").wait({timeout_ms = -1})`:          `option "timeout_ms": must be >= 0, got -1`,
		`require("ui").wait("fast")`:                     `bad argument #1 to wait (options table expected, got string)`,
		`require("ui").wait({exact = "yes", [1] = "x"})`: `option "exact": boolean expected, got string`,
	} {
		se := scriptErr(t, vm.Run("w.lua", []byte(src)))
		assert.Contains(t, se.Error(), want, src)
		assert.Equal(t, 1, se.Line)
	}
}

type point struct{ X, Y int }

var pointType = &UserDataType[*point]{
	Name: "openpocket.test.point",
	Methods: map[string]func(*LState, *point) int{
		"sum": func(L *LState, p *point) int {
			L.Push(LNumber(p.X + p.Y + L.OptInt(2, 0)))
			return 1
		},
	},
}

var otherType = &UserDataType[*point]{Name: "openpocket.test.other"}

func TestUserDataType(t *testing.T) {
	reg := NewRegistry(ModuleFunc("geo", func(vm *VM) (LValue, error) {
		return vm.NewModule(map[string]LGFunction{
			"point": func(L *LState) int { return pointType.Push(L, &point{L.CheckInt(1), L.CheckInt(2)}) },
			"other": func(L *LState) int { return otherType.Push(L, &point{}) },
		}), nil
	}))
	vm := newTestVM(t, reg, Options{})
	got, err := vm.Eval(`require("geo").point(3, 4):sum(), require("geo").point(3, 4):sum(10)`)
	require.NoError(t, err)
	assert.Equal(t, []any{7.0, 17.0}, got)

	got, err = vm.Eval(`tostring(require("geo").point(1, 2)):match("^openpocket.test.point: ") ~= nil, getmetatable(require("geo").point(1, 2))`)
	require.NoError(t, err)
	assert.Equal(t, []any{true, "openpocket.test.point"}, got, "metatable is protected")

	se := scriptErr(t, vm.Run("u.lua", []byte(`local geo = require "geo"; local p = geo.point(1, 2); p.sum(geo.other())`)))
	assert.Contains(t, se.Message, "bad argument #1 to sum (openpocket.test.point expected, got openpocket.test.other)")
	se = scriptErr(t, vm.Run("u.lua", []byte(`local p = require("geo").point(1, 2); p.sum("x")`)))
	assert.Contains(t, se.Message, "(openpocket.test.point expected, got string)")

	p, ok := pointType.Is(vm.L, pointType.New(vm.L, &point{5, 6}))
	assert.True(t, ok)
	assert.Equal(t, 5, p.X)
}
