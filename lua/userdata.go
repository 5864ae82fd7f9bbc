package lua

import (
	"fmt"

	glua "github.com/yuin/gopher-lua"
)

// UserDataType describes a Go type exposed to Lua as userdata with a
// namespaced metatable, replacing the checkX/pushX boilerplate of
// gopher-lua-libs. Declare it once per process; metatables are created
// lazily per VM:
//
//	var snapshotType = &lua.UserDataType[*screen.Snapshot]{
//		Name:    "openpocket.screen.snapshot",
//		Methods: map[string]func(*lua.LState, *screen.Snapshot) int{
//			"size": func(L *lua.LState, s *screen.Snapshot) int { // snap:size()
//				L.Push(lua.LNumber(s.Width))
//				return 1
//			},
//		},
//	}
//
//	// in a binding: return snapshotType.Push(L, snap)
//	// reading an argument: snap := snapshotType.Check(L, 1)
//	//   "bad argument #1 to f (openpocket.screen.snapshot expected, got string)"
type UserDataType[T any] struct {
	// Name is the metatable's registry key; namespace it
	// ("openpocket.<module>.<type>").
	Name string
	// Methods are reachable with obj:method(...) through __index; the
	// receiver is checked (Check(L, 1)) before the method runs, so
	// arguments start at index 2.
	Methods map[string]func(L *LState, self T) int
	// Meta are extra metamethods (__tostring, __eq, __len, ...). An
	// __index here replaces the Methods table.
	Meta map[string]LGFunction
}

// Metatable returns (creating on first use) the type's metatable in L.
func (u *UserDataType[T]) Metatable(L *LState) *LTable {
	reg := L.Get(glua.RegistryIndex).(*LTable)
	if mt, ok := reg.RawGetString(u.Name).(*LTable); ok {
		return mt
	}
	mt := L.NewTypeMetatable(u.Name)
	methods := L.CreateTable(0, len(u.Methods))
	for k, fn := range u.Methods {
		methods.RawSetString(k, L.NewFunction(func(L *LState) int { return fn(L, u.Check(L, 1)) }))
	}
	mt.RawSetString("__index", methods)
	mt.RawSetString("__name", LString(u.Name))
	mt.RawSetString("__metatable", LString(u.Name)) // getmetatable() cannot replace it
	for k, fn := range u.Meta {
		mt.RawSetString(k, L.NewFunction(fn))
	}
	if _, ok := u.Meta["__tostring"]; !ok {
		name := u.Name
		mt.RawSetString("__tostring", L.NewFunction(func(L *LState) int {
			L.Push(LString(fmt.Sprintf("%s: %p", name, L.CheckUserData(1))))
			return 1
		}))
	}
	return mt
}

// New wraps v in a userdata with the type's metatable.
func (u *UserDataType[T]) New(L *LState, v T) *LUserData {
	ud := L.NewUserData()
	ud.Value = v
	ud.Metatable = u.Metatable(L)
	return ud
}

// Push pushes a new userdata for v and returns 1 (a binding's result
// count).
func (u *UserDataType[T]) Push(L *LState, v T) int {
	L.Push(u.New(L, v))
	return 1
}

// Test returns the value at idx if it is this type's userdata.
func (u *UserDataType[T]) Test(L *LState, idx int) (T, bool) {
	return u.Is(L, L.Get(idx))
}

// Is returns lv's Go value if lv is this type's userdata.
func (u *UserDataType[T]) Is(L *LState, lv LValue) (T, bool) {
	var zero T
	ud, ok := lv.(*LUserData)
	if !ok || ud.Metatable != u.Metatable(L) {
		return zero, false
	}
	v, ok := ud.Value.(T)
	return v, ok
}

// Check returns the value at idx or raises an argument error naming the
// expected type.
func (u *UserDataType[T]) Check(L *LState, idx int) T {
	v, ok := u.Test(L, idx)
	if !ok {
		got := L.Get(idx).Type().String()
		if ud, isUD := L.Get(idx).(*LUserData); isUD {
			if mt, ok := ud.Metatable.(*LTable); ok {
				if n, ok := mt.RawGetString("__name").(LString); ok {
					got = string(n)
				}
			}
		}
		L.ArgError(idx, fmt.Sprintf("%s expected, got %s", u.Name, got))
	}
	return v
}
