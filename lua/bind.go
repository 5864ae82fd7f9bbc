package lua

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	glua "github.com/yuin/gopher-lua"
)

// Raise raises a Lua error carrying err (programmer errors, and failures a
// script should not continue past). The Lua message is "chunk:line: "
// plus err.Error(); when the error leaves the VM (not caught by a Lua
// pcall), the returned *ScriptError's Cause is err, so errors.Is/As work.
// Raise does not return; its int result lets a binding write
// `return lua.Raise(L, err)`.
func Raise(L *LState, err error) int {
	if err == nil {
		err = errors.New("unknown error")
	}
	msg := err.Error()
	if w := L.Where(1); w != "" && !strings.HasPrefix(w, "[G]") {
		msg = w + " " + msg
	}
	if vm := vmOf(L); vm != nil {
		vm.recordRaised(msg, err)
	}
	L.Error(LString(msg), 0)
	return 0
}

// Raisef is Raise(L, fmt.Errorf(format, args...)); %w keeps a chain.
func Raisef(L *LState, format string, args ...any) int {
	return Raise(L, fmt.Errorf(format, args...))
}

// ReturnErr pushes nil and err's message: the convention for operational
// failures a script is expected to handle (`local v, err = fs.read(p)`).
// If the run's context has ended, it raises the cancellation instead so a
// script cannot mistake Ctrl-C or a timeout for an ordinary failure.
func ReturnErr(L *LState, err error) int {
	if cerr := L.Context(); cerr != nil && cerr.Err() != nil {
		return Raise(L, contextCause(L))
	}
	L.Push(LNil)
	L.Push(LString(err.Error()))
	return 2
}

func contextCause(L *LState) error {
	ctx := L.Context()
	if ctx == nil {
		return context.Canceled
	}
	return context.Cause(ctx)
}

// Context returns the context of the running call: the VM's context
// (Options.Timeout included), narrowed by RunContext/EvalContext. Blocking
// bindings must pass it to the engine.
func Context(L *LState) context.Context {
	if ctx := L.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

// Sleep waits d or until the run's context ends, then returns the
// context's cause (errors.Is(err, context.DeadlineExceeded) for a timeout).
func Sleep(L *LState, d time.Duration) error {
	ctx := Context(L)
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// OptionsTable reads an options table argument field by field. Each
// accessor records the key as valid and raises an argument error on a
// wrong type; Check raises if the table has keys no accessor asked for,
// listing the valid ones. Call Check after the last accessor:
//
//	o := lua.CheckOptions(L, 2)
//	timeout := o.Duration("timeout", 10*time.Second) // reads timeout_ms
//	exact := o.Bool("exact", false)
//	o.Check()
type OptionsTable struct {
	L     *LState
	idx   int
	t     *LTable // nil when the argument is absent
	known []string
}

// CheckOptions returns the options table at argument idx; nil or an
// absent argument is an empty table, anything else raises.
func CheckOptions(L *LState, idx int) *OptionsTable {
	o := &OptionsTable{L: L, idx: idx}
	switch v := L.Get(idx).(type) {
	case *LTable:
		o.t = v
	default:
		if v != LNil {
			L.ArgError(idx, "options table expected, got "+v.Type().String())
		}
	}
	return o
}

func (o *OptionsTable) get(key string, want glua.LValueType) LValue {
	o.known = append(o.known, key)
	if o.t == nil {
		return LNil
	}
	v := o.t.RawGetString(key)
	if v != LNil && v.Type() != want {
		o.L.ArgError(o.idx, fmt.Sprintf("option %q: %s expected, got %s", key, want, v.Type()))
	}
	return v
}

// Has reports whether key is set (and marks it valid).
func (o *OptionsTable) Has(key string) bool {
	o.known = append(o.known, key)
	return o.t != nil && o.t.RawGetString(key) != LNil
}

// String reads a string option.
func (o *OptionsTable) String(key, def string) string {
	if v, ok := o.get(key, glua.LTString).(LString); ok {
		return string(v)
	}
	return def
}

// Bool reads a boolean option.
func (o *OptionsTable) Bool(key string, def bool) bool {
	if v, ok := o.get(key, glua.LTBool).(LBool); ok {
		return bool(v)
	}
	return def
}

// Number reads a number option.
func (o *OptionsTable) Number(key string, def float64) float64 {
	if v, ok := o.get(key, glua.LTNumber).(LNumber); ok {
		return float64(v)
	}
	return def
}

// Int reads an integer option; a fractional number raises.
func (o *OptionsTable) Int(key string, def int) int {
	v, ok := o.get(key, glua.LTNumber).(LNumber)
	if !ok {
		return def
	}
	if float64(v) != float64(int(v)) {
		o.L.ArgError(o.idx, fmt.Sprintf("option %q: integer expected, got %v", key, float64(v)))
	}
	return int(v)
}

// Duration reads the integer milliseconds option key+"_ms"
// (Duration("timeout", d) reads timeout_ms). Negative values raise.
func (o *OptionsTable) Duration(key string, def time.Duration) time.Duration {
	name := key + "_ms"
	if !o.Has(name) {
		return def
	}
	ms := o.Int(name, 0)
	if ms < 0 {
		o.L.ArgError(o.idx, fmt.Sprintf("option %q: must be >= 0, got %d", name, ms))
	}
	return time.Duration(ms) * time.Millisecond
}

// Table reads a table option (nil if absent).
func (o *OptionsTable) Table(key string) *LTable {
	v, _ := o.get(key, glua.LTTable).(*LTable)
	return v
}

// Func reads a function option (nil if absent).
func (o *OptionsTable) Func(key string) *LFunction {
	v, _ := o.get(key, glua.LTFunction).(*LFunction)
	return v
}

// Check raises an argument error naming unknown keys and the valid ones.
func (o *OptionsTable) Check() {
	if o.t == nil {
		return
	}
	var unknown []string
	o.t.ForEach(func(k, _ LValue) {
		ks, ok := k.(LString)
		if !ok {
			unknown = append(unknown, k.String())
			return
		}
		if !slices.Contains(o.known, string(ks)) {
			unknown = append(unknown, string(ks))
		}
	})
	if len(unknown) == 0 {
		return
	}
	slices.Sort(unknown)
	valid := slices.Clone(o.known)
	slices.Sort(valid)
	valid = slices.Compact(valid)
	word := "option"
	if len(unknown) > 1 {
		word = "options"
	}
	o.L.ArgError(o.idx, fmt.Sprintf("unknown %s %s (valid: %s)", word, quoteJoin(unknown), strings.Join(valid, ", ")))
}

func quoteJoin(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
