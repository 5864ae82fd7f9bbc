package executors

import (
	"context"
	"time"

	"github.com/openpocket/openpocket/engine/tools"
	"github.com/openpocket/openpocket/lua"
	"github.com/openpocket/openpocket/stdlib"
)

// scriptResult is the Lua view of a script run.
func scriptResult(res tools.ScriptResult) map[string]any {
	m := map[string]any{
		"ok":          res.OK,
		"run_id":      res.RunID,
		"run_dir":     res.RunDir,
		"script_path": res.ScriptPath,
		"exit_code":   res.ExitCode,
		"timed_out":   res.TimedOut,
		"duration_ms": res.DurationMs,
		"stdout":      res.Stdout,
		"stderr":      res.Stderr,
	}
	if res.Rejected != "" {
		m["rejected"] = res.Rejected
		m["rejected_rule"] = res.RejectedRule
	}
	return m
}

// openScript builds the script module:
//
//	script.run(src [, {timeout_ms, language = "sh"|"lua"}]) → result | nil, err
func (b binding) openScript(vm *lua.VM) (lua.LValue, error) {
	return vm.NewModule(map[string]lua.LGFunction{
		"run": func(L *lua.LState) int {
			src := L.CheckString(1)
			o := lua.CheckOptions(L, 2)
			timeout := o.Duration("timeout", 0)
			language := o.String("language", "")
			o.Check()
			switch language {
			case "":
				if tools.IsLua(src) {
					language = "lua"
				}
			case "sh", "lua":
			default:
				L.ArgError(2, `language must be "sh" or "lua", got "`+language+`"`)
			}
			ctx := lua.Context(L)
			var (
				res tools.ScriptResult
				err error
			)
			if language == "lua" {
				reg, sess := vm.Registry(), stdlib.HostOf(vm).Session()
				res, err = b.Scripts.RunLua(ctx, src, timeout, func(ctx context.Context, src string, timeout time.Duration) (string, error) {
					return runLua(ctx, reg, sess, src, timeout)
				})
			} else {
				res, err = b.Scripts.Run(ctx, src, timeout)
			}
			if err != nil {
				return lua.ReturnErr(L, err)
			}
			L.Push(lua.ToLua(L, scriptResult(res)))
			return 1
		},
	}), nil
}
