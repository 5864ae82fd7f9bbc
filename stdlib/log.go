package stdlib

import (
	"context"
	"log/slog"
	"strings"

	"github.com/openpocket/openpocket/lua"
)

func openLog(vm *lua.VM) (lua.LValue, error) {
	e := HostOf(vm)
	level := func(lv slog.Level) lua.LGFunction {
		return func(L *lua.LState) int {
			msg, attrs := logArgs(L)
			e.Logger().LogAttrs(context.Background(), lv, msg, attrs...)
			return 0
		}
	}
	return vm.NewModule(map[string]lua.LGFunction{
		"debug": level(slog.LevelDebug),
		"info":  level(slog.LevelInfo),
		"warn":  level(slog.LevelWarn),
		"error": level(slog.LevelError),
	}), nil
}

// logArgs reads log.info(msg, ...): the rest are key, value pairs when
// they come in pairs with string keys (log.info("saved", "count", 3)),
// else they are appended to the message separated by spaces.
func logArgs(L *lua.LState) (string, []slog.Attr) {
	top := L.GetTop()
	msg := L.ToStringMeta(L.Get(1)).String()
	rest := top - 1
	attrs := []slog.Attr{slog.String("source", "lua")}
	pairs := rest > 0 && rest%2 == 0
	for i := 2; pairs && i <= top; i += 2 {
		if _, ok := L.Get(i).(lua.LString); !ok {
			pairs = false
		}
	}
	if pairs {
		for i := 2; i <= top; i += 2 {
			attrs = append(attrs, slog.Any(string(L.Get(i).(lua.LString)), lua.ToGo(L.Get(i+1))))
		}
		return msg, attrs
	}
	parts := []string{msg}
	for i := 2; i <= top; i++ {
		parts = append(parts, L.ToStringMeta(L.Get(i)).String())
	}
	return strings.Join(parts, " "), attrs
}
