package lua

import (
	"fmt"
	"runtime"
	"strings"

	glua "github.com/yuin/gopher-lua"
)

// Error handlers for every protected call. gopher-lua's PCall without a
// handler builds its traceback with one line per chained tail call, so a
// tail-recursive loop stopped by its timeout would spend minutes and
// gigabytes describing itself. Every place the host or the sandbox calls
// Lua in protected mode passes a handler instead: the host's records a
// bounded traceback (maxTracebackLevels frames; a frame that tail-called
// is one line), the sandbox's pcall and xpcall keep the error value as is.

const maxTracebackLevels = 20

// hostHandler runs where the error was raised, before the stack unwinds:
// it records the traceback (and whether a Go panic caused the error) for
// mapError, and returns the error value unchanged.
func (vm *VM) hostHandler(L *LState) int {
	obj := L.Get(1)
	vm.lastTraceback = boundedTraceback(L)
	vm.lastGoPanic = ""
	if s, ok := obj.(LString); ok {
		if _, _, _, positioned := splitPosition(string(s)); !positioned {
			vm.lastGoPanic = goPanicStack()
		}
	}
	L.SetTop(1)
	return 1
}

// keepError is the sandbox's pcall handler: the error value, untouched.
func keepError(L *LState) int {
	L.SetTop(1)
	return 1
}

// boundedTraceback lists the frames under the handler, Lua's format
// ("\tchunk:line: in function <chunk:n>"), at most maxTracebackLevels.
func boundedTraceback(L *LState) string {
	var b strings.Builder
	b.WriteString("stack traceback:")
	for level := 1; level <= maxTracebackLevels; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			return b.String()
		}
		if _, err := L.GetInfo("Sln", dbg, LNil); err != nil {
			return b.String()
		}
		switch {
		case dbg.What == "G":
			fmt.Fprintf(&b, "\n\t[G]: in %s", funcName(dbg))
		default:
			fmt.Fprintf(&b, "\n\t%s:%d: in %s", dbg.Source, dbg.CurrentLine, funcName(dbg))
		}
		if dbg.What == "tail" {
			// The frame replaced its callers by tail calls; how many is
			// not public, and the callers are gone anyway.
			b.WriteString("\n\t(tail calls)")
			return b.String()
		}
	}
	b.WriteString("\n\t...")
	return b.String()
}

func funcName(dbg *glua.Debug) string {
	switch {
	case dbg.What == "main" || dbg.LineDefined == 0 && dbg.What != "G":
		return "main chunk"
	case dbg.Name != "" && dbg.Name != "?":
		return "function '" + dbg.Name + "'"
	case dbg.What == "G":
		return "?"
	}
	return fmt.Sprintf("function <%s:%d>", dbg.Source, dbg.LineDefined)
}

// goPanicStack returns the Go stack when the error being handled is a Go
// panic rather than a Lua error, "" otherwise. The handler runs inside
// PCall's deferred recovery, on top of the panicking frames: a Lua error
// is panicked by gopher-lua's panic function, anything else is a binding's
// (or the runtime's) panic.
func goPanicStack() string {
	buf := make([]byte, 8<<10)
	buf = buf[:runtime.Stack(buf, false)]
	stack := string(buf)
	i := strings.Index(stack, "\npanic(")
	if i < 0 {
		return ""
	}
	rest := stack[i+1:]
	// "panic({...})\n\t/.../runtime/panic.go:NNN +0x..\n<next function>"
	lines := strings.SplitN(rest, "\n", 4)
	if len(lines) < 3 || strings.HasPrefix(lines[2], "github.com/yuin/gopher-lua.panicWith") {
		return ""
	}
	return stack
}

// pcallBuiltin is the sandbox's pcall: gopher-lua's, with a handler.
func (vm *VM) pcallBuiltin(L *LState) int {
	L.CheckAny(1)
	v := L.Get(1)
	if v.Type() != glua.LTFunction && L.GetMetaField(v, "__call").Type() != glua.LTFunction {
		L.Push(LFalse)
		L.Push(LString("attempt to call a " + v.Type().String() + " value"))
		return 2
	}
	if err := L.PCall(L.GetTop()-1, glua.MultRet, vm.keepErr); err != nil {
		L.Push(LFalse)
		L.Push(errorValue(err))
		return 2
	}
	L.Insert(LTrue, 1)
	return L.GetTop()
}

// xpcallBuiltin is the sandbox's xpcall: the script's handler runs under
// a protected call of its own, so a handler that raises cannot make
// gopher-lua build an unbounded traceback either.
func (vm *VM) xpcallBuiltin(L *LState) int {
	fn := L.CheckFunction(1)
	handler := L.CheckFunction(2)
	top := L.GetTop()
	wrapped := L.NewFunction(func(L *LState) int {
		obj := L.Get(1)
		L.Push(handler)
		L.Push(obj)
		if err := L.PCall(1, 1, vm.keepErr); err != nil {
			L.Push(LString("error in error handling"))
		}
		return 1
	})
	L.Push(fn)
	if err := L.PCall(0, glua.MultRet, wrapped); err != nil {
		L.Push(LFalse)
		L.Push(errorValue(err))
		return 2
	}
	L.Insert(LTrue, top+1)
	return L.GetTop() - top
}

// ProtectedCall is L.PCall for bindings that call back into Lua (hooks,
// callbacks): nargs arguments and the function under them, nret results,
// with the VM's bounded error handling instead of gopher-lua's traceback.
func ProtectedCall(L *LState, nargs, nret int) error {
	if vm := vmOf(L); vm != nil {
		return L.PCall(nargs, nret, vm.keepErr)
	}
	return L.PCall(nargs, nret, L.NewFunction(keepError))
}

func errorValue(err error) LValue {
	if ae, ok := err.(*glua.ApiError); ok {
		return ae.Object
	}
	return LString(err.Error())
}
