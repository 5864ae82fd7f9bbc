package lua_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/openpocket/openpocket/lua"
)

type Clock struct{ now func() time.Time }

func (c *Clock) Name() string { return "clock" }

func (c *Clock) Open(vm *lua.VM) (lua.LValue, error) {
	return vm.NewModule(map[string]lua.LGFunction{
		"now_ms": func(L *lua.LState) int {
			L.Push(lua.LNumber(c.now().UnixMilli()))
			return 1
		},
		"sleep": func(L *lua.LState) int {
			ms := L.CheckInt(1)
			o := lua.CheckOptions(L, 2)
			jitter := o.Duration("jitter", 0)
			o.Check()
			if err := lua.Sleep(L, time.Duration(ms)*time.Millisecond+jitter); err != nil {
				return lua.Raise(L, err)
			}
			return 0
		},
	}), nil
}

var _ lua.Module = (*Clock)(nil)

func Example() {
	reg := lua.NewRegistry(&Clock{now: func() time.Time { return time.UnixMilli(42) }})
	vm, err := lua.New(context.Background(), reg, lua.Options{
		Timeout: 50 * time.Millisecond,
		Print:   func(line string) { fmt.Println("lua:", line) },
	})
	if err != nil {
		panic(err)
	}
	defer vm.Close()

	err = vm.Run("demo.lua", []byte(`
local clock = require "clock"
print("now " .. clock.now_ms())
clock.sleep(10, {jiter_ms = 5})`))
	fmt.Println(err)

	err = vm.Run("demo.lua", []byte(`require("clock").sleep(60000)`))
	fmt.Println(err, errors.Is(err, context.DeadlineExceeded))
	// Output:
	// lua: now 42
	// demo.lua:4: bad argument #2 to sleep (unknown option "jiter_ms" (valid: jitter_ms))
	// demo.lua:1: run exceeded its timeout of 50ms true
}
