package executors

import (
	"errors"
	"time"

	"github.com/openpocket/openpocket/engine/tools"
	"github.com/openpocket/openpocket/lua"
)

// seconds rounds a positive duration up to whole seconds (the coding
// executor's timeout unit); 0 stays 0 (the configured default).
func seconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int((d + time.Second - 1) / time.Second)
}

// execErr returns an exec failure as nil, err; a policy refusal reads
// "rejected (<rule>): <reason>".
func execErr(L *lua.LState, err error) int {
	var v *tools.Rejection
	if errors.As(err, &v) {
		return lua.ReturnErr(L, errors.New("rejected ("+v.Rule+"): "+v.Reason))
	}
	return lua.ReturnErr(L, err)
}

func sessionTable(i tools.SessionInfo) map[string]any {
	m := map[string]any{
		"id":            i.ID,
		"command":       i.Command,
		"workdir":       i.Workdir,
		"pid":           i.PID,
		"running":       i.Running,
		"timed_out":     i.TimedOut,
		"started_at_ms": i.StartedAt.UnixMilli(),
		"duration_ms":   i.DurationMs,
		"status":        i.Status,
	}
	if !i.Running {
		m["exit_code"] = i.ExitCode
	}
	return m
}

// openExec builds the exec module over the host commands:
//
//	exec.run(cmd [, {timeout_ms, workdir}])             → {exit_code, output, timed_out, duration_ms} | nil, err
//	exec.start(cmd [, {yield_ms, timeout_ms, workdir}]) → {id, running, pid, output, exit_code?} | nil, err
//
// start without yield_ms returns at once with the session id; with
// yield_ms it waits that long and returns the output so far (a command
// that finished by then has no id and carries its exit_code).
func (b binding) openExec(vm *lua.VM) (lua.LValue, error) {
	return vm.NewModule(map[string]lua.LGFunction{
		"run": func(L *lua.LState) int {
			cmd := L.CheckString(1)
			o := lua.CheckOptions(L, 2)
			timeout := o.Duration("timeout", 0)
			workdir := o.String("workdir", "")
			o.Check()
			r, err := b.Commands.Exec(lua.Context(L), tools.ExecRequest{Command: cmd, Workdir: workdir, TimeoutSec: seconds(timeout)})
			if err != nil {
				return execErr(L, err)
			}
			L.Push(lua.ToLua(L, map[string]any{"exit_code": r.ExitCode, "output": r.Output, "timed_out": r.TimedOut, "duration_ms": r.DurationMs}))
			return 1
		},
		"start": func(L *lua.LState) int {
			cmd := L.CheckString(1)
			o := lua.CheckOptions(L, 2)
			yield := o.Duration("yield", 0)
			timeout := o.Duration("timeout", 0)
			workdir := o.String("workdir", "")
			o.Check()
			req := tools.ExecRequest{Command: cmd, Workdir: workdir, TimeoutSec: seconds(timeout), YieldMs: int(yield / time.Millisecond)}
			if req.YieldMs == 0 {
				req.Background = true
			}
			if !b.Commands.AllowBackground() {
				return lua.ReturnErr(L, errors.New("exec.start: background sessions are disabled (codingTools.allowBackground=false)"))
			}
			r, err := b.Commands.Exec(lua.Context(L), req)
			if err != nil {
				return execErr(L, err)
			}
			m := map[string]any{"running": r.Running, "pid": r.PID, "output": r.Output}
			if r.SessionID != "" {
				m["id"] = r.SessionID
			}
			if !r.Running {
				m["exit_code"] = r.ExitCode
				m["timed_out"] = r.TimedOut
				m["duration_ms"] = r.DurationMs
			}
			L.Push(lua.ToLua(L, m))
			return 1
		},
	}), nil
}

// openProcess builds the process module over exec sessions:
//
//	process.list()                    → array of sessions (oldest first)
//	process.poll(id [, {timeout_ms}]) → session + {output = new output} | nil, err
//	process.log(id [, {offset, limit}]) → text, {from_line, to_line, total_lines} | nil, err
//	process.write(id, input)          → bytes written | nil, err
//	process.kill(id)                  → session + {was_running, forced} | nil, err
//
// A session table has id, command, workdir, pid, running, timed_out,
// started_at_ms, duration_ms, status and, once ended, exit_code.
func (b binding) openProcess(vm *lua.VM) (lua.LValue, error) {
	do := func(L *lua.LState, req tools.ProcessRequest) (tools.ProcessResult, error) {
		return b.Commands.Process(lua.Context(L), req)
	}
	return vm.NewModule(map[string]lua.LGFunction{
		"list": func(L *lua.LState) int {
			r, err := do(L, tools.ProcessRequest{Action: "list"})
			if err != nil {
				return lua.ReturnErr(L, err)
			}
			list := make([]any, 0, len(r.Sessions))
			for _, i := range r.Sessions {
				list = append(list, sessionTable(i))
			}
			L.Push(lua.ToLua(L, list))
			return 1
		},
		"poll": func(L *lua.LState) int {
			id := L.CheckString(1)
			o := lua.CheckOptions(L, 2)
			timeout := o.Duration("timeout", 0)
			o.Check()
			r, err := do(L, tools.ProcessRequest{Action: "poll", SessionID: id, TimeoutMs: int(timeout / time.Millisecond)})
			if err != nil {
				return lua.ReturnErr(L, err)
			}
			m := sessionTable(r.Session)
			m["output"] = r.Output
			L.Push(lua.ToLua(L, m))
			return 1
		},
		"log": func(L *lua.LState) int {
			id := L.CheckString(1)
			o := lua.CheckOptions(L, 2)
			offset := o.Int("offset", 0)
			limit := o.Int("limit", 0)
			o.Check()
			r, err := do(L, tools.ProcessRequest{Action: "log", SessionID: id, Offset: offset, Limit: limit})
			if err != nil {
				return lua.ReturnErr(L, err)
			}
			L.Push(lua.LString(r.Output))
			L.Push(lua.ToLua(L, map[string]any{"from_line": r.FromLine, "to_line": r.ToLine, "total_lines": r.TotalLines, "running": r.Session.Running}))
			return 2
		},
		"write": func(L *lua.LState) int {
			id := L.CheckString(1)
			input := L.CheckString(2)
			r, err := do(L, tools.ProcessRequest{Action: "write", SessionID: id, Input: input})
			if err != nil {
				return lua.ReturnErr(L, err)
			}
			L.Push(lua.LNumber(r.Written))
			return 1
		},
		"kill": func(L *lua.LState) int {
			id := L.CheckString(1)
			r, err := do(L, tools.ProcessRequest{Action: "kill", SessionID: id})
			if err != nil {
				return lua.ReturnErr(L, err)
			}
			m := sessionTable(r.Session)
			m["was_running"] = r.WasRunning
			m["forced"] = r.Forced
			L.Push(lua.ToLua(L, m))
			return 1
		},
	}), nil
}
