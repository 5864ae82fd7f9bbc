package stdlib

import (
	"context"
	"fmt"
	"strings"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/lua"
)

func openApp(vm *lua.VM) (lua.LValue, error) {
	e := phoneHostOf(vm)
	return vm.NewModule(map[string]lua.LGFunction{
		// app.launch(pkg, {clear, stop}) → result or nil, err.
		"launch": func(L *lua.LState) int {
			pkg := checkPackage(L, 1, "app.launch")
			o := lua.CheckOptions(L, 2)
			clear, stop := o.Bool("clear", false), o.Bool("stop", false)
			o.Check()
			p, err := e.Phone(L, "app.launch")
			if err != nil {
				return lua.ReturnErr(L, err)
			}
			if stop {
				if err := p.StopApp(lua.Context(L), pkg); err != nil {
					return fail(L, "app.launch", err)
				}
			}
			if clear {
				if err := p.ClearApp(lua.Context(L), pkg); err != nil {
					return fail(L, "app.launch", err)
				}
			}
			res, err := p.LaunchApp(lua.Context(L), pkg)
			if err != nil {
				return fail(L, "app.launch", err)
			}
			return pushStr(L, res)
		},
		// app.stop(pkg) → true or nil, err.
		"stop": func(L *lua.LState) int {
			return e.appCmd(L, "app.stop", (*device.Phone).StopApp)
		},
		// app.clear(pkg) → true or nil, err.
		"clear": func(L *lua.LState) int {
			return e.appCmd(L, "app.clear", (*device.Phone).ClearApp)
		},
		// app.current() → package or nil, err.
		"current": func(L *lua.LState) int {
			p, err := e.Phone(L, "app.current")
			if err != nil {
				return lua.ReturnErr(L, err)
			}
			pkg, err := p.CurrentApp(lua.Context(L))
			if err != nil {
				return fail(L, "app.current", err)
			}
			return pushStr(L, pkg)
		},
		// app.installed(pkg) → boolean (pm path).
		"installed": func(L *lua.LState) int {
			pkg := checkPackage(L, 1, "app.installed")
			p, err := e.Phone(L, "app.installed")
			if err != nil {
				return lua.ReturnErr(L, err)
			}
			ok, err := p.AppInstalled(lua.Context(L), pkg)
			if err != nil {
				return fail(L, "app.installed", err)
			}
			L.Push(lua.LBool(ok))
			return 1
		},
	}), nil
}

func checkPackage(L *lua.LState, idx int, fn string) string {
	pkg := L.CheckString(idx)
	if strings.TrimSpace(pkg) == "" || strings.ContainsAny(pkg, " \t\n/") {
		L.ArgError(idx, fmt.Sprintf("%s: package name expected (like com.android.settings), got %q", fn, pkg))
	}
	return pkg
}

// appCmd is app.stop and app.clear: check → call → convert.
func (e *phoneHost) appCmd(L *lua.LState, fn string, call func(*device.Phone, context.Context, string) error) int {
	pkg := checkPackage(L, 1, fn)
	p, err := e.Phone(L, fn)
	if err != nil {
		return lua.ReturnErr(L, err)
	}
	if err := call(p, lua.Context(L), pkg); err != nil {
		return fail(L, fn, err)
	}
	L.Push(lua.LTrue)
	return 1
}
