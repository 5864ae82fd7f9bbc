package stdlib

import (
	"fmt"
	"time"

	"github.com/openpocket/openpocket/lua"
)

func openWait(vm *lua.VM) (lua.LValue, error) {
	e := phoneHostOf(vm)
	mod := vm.NewModule(map[string]lua.LGFunction{
		// wait.ms(n): sleep, interrupted by cancellation.
		"ms": func(L *lua.LState) int {
			n := L.CheckInt(1)
			if n < 0 {
				L.ArgError(1, fmt.Sprintf("wait.ms: milliseconds must be >= 0, got %d", n))
			}
			if err := lua.Sleep(L, time.Duration(n)*time.Millisecond); err != nil {
				return lua.Raise(L, err)
			}
			return 0
		},
		// wait.idle({timeout_ms}) → screen hash or nil, err: waits until two
		// consecutive screenshots are equal (a timeout is not an error).
		"idle": func(L *lua.LState) int {
			o := lua.CheckOptions(L, 1)
			timeout := o.Duration("timeout", 0)
			o.Check()
			p, err := e.Phone(L, "wait.idle")
			if err != nil {
				return lua.ReturnErr(L, err)
			}
			look, err := p.Settle(lua.Context(L), timeout)
			if err != nil {
				return fail(L, "wait.idle", err)
			}
			return pushStr(L, look.Visual)
		},
		// wait.until(fn, {timeout_ms=5000, interval_ms=200}) → fn's first
		// truthy value or nil, "timeout …".
		"until": func(L *lua.LState) int {
			fn := L.CheckFunction(1)
			o := lua.CheckOptions(L, 2)
			timeout := o.Duration("timeout", DefaultTimeout)
			interval := o.Duration("interval", 200*time.Millisecond)
			o.Check()
			deadline := time.Now().Add(timeout)
			calls := 0
			for {
				L.Push(fn)
				L.Call(0, 1)
				calls++
				v := L.Get(-1)
				L.Pop(1)
				if v != lua.LNil && v != lua.LFalse {
					L.Push(v)
					return 1
				}
				left := time.Until(deadline)
				if left <= 0 {
					return lua.ReturnErr(L, fmt.Errorf("timeout: wait.until: the function stayed falsy for %d ms (%d calls)", timeout.Milliseconds(), calls))
				}
				if err := lua.Sleep(L, min(interval, left)); err != nil {
					return lua.Raise(L, err)
				}
			}
		},
	})
	// until is a Lua keyword (wait.until(...) does not parse): wait.poll is
	// the same function under a callable name.
	mod.RawSetString("poll", mod.RawGetString("until"))
	return mod, nil
}
