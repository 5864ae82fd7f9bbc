package stdlib

import (
	"time"

	"github.com/openpocket/openpocket/lua"
)

func openTime(vm *lua.VM) (lua.LValue, error) {
	return vm.NewModule(map[string]lua.LGFunction{
		// time.now_ms() → Unix milliseconds.
		"now_ms": func(L *lua.LState) int {
			L.Push(lua.LNumber(time.Now().UnixMilli()))
			return 1
		},
		// time.iso([ms]) → RFC 3339 UTC time with milliseconds (now, or the
		// given Unix milliseconds).
		"iso": func(L *lua.LState) int {
			t := time.Now()
			if L.GetTop() >= 1 && L.Get(1) != lua.LNil {
				t = time.UnixMilli(int64(L.CheckNumber(1)))
			}
			return pushStr(L, t.UTC().Format("2006-01-02T15:04:05.000Z07:00"))
		},
	}), nil
}
