package executors

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/tools"
	"github.com/openpocket/openpocket/lua"
)

// The bindings over fake tools: what the Lua side itself decides (argument
// checks, error texts, which runner a script goes to). The modules over the
// real executors are tested in internal/executor/execset.

type fakeScripts struct{ ran, ranLua []string }

func (f *fakeScripts) Run(_ context.Context, src string, _ time.Duration) (tools.ScriptResult, error) {
	f.ran = append(f.ran, src)
	return tools.ScriptResult{OK: true, RunID: "r1"}, nil
}

func (f *fakeScripts) RunLua(ctx context.Context, src string, timeout time.Duration, run tools.LuaFunc) (tools.ScriptResult, error) {
	f.ranLua = append(f.ranLua, src)
	out, err := run(ctx, src, timeout)
	res := tools.ScriptResult{OK: err == nil, Stdout: out}
	if err != nil {
		res.Stderr = err.Error()
	}
	return res, nil
}

type fakeCommands struct {
	background bool
	err        error
}

func (f fakeCommands) Exec(context.Context, tools.ExecRequest) (tools.ExecResult, error) {
	return tools.ExecResult{}, f.err
}

func (f fakeCommands) Process(context.Context, tools.ProcessRequest) (tools.ProcessResult, error) {
	return tools.ProcessResult{Sessions: []tools.SessionInfo{{ID: "s1", Running: false, ExitCode: 3, Status: "exited exitCode=3"}}}, nil
}

func (f fakeCommands) AllowBackground() bool { return f.background }

func newVM(t *testing.T, tl tools.Tools) *lua.VM {
	t.Helper()
	vm, err := lua.New(context.Background(), lua.NewRegistry(Modules(tl)...), lua.Options{})
	require.NoError(t, err)
	t.Cleanup(vm.Close)
	return vm
}

func TestModulesRegistersAll(t *testing.T) {
	reg := lua.NewRegistry(Modules(tools.Tools{})...)
	assert.Equal(t, []string{"exec", "fs", "memory", "process", "script"}, reg.Names())
}

// script.run sends "-- lua" sources and language="lua" to RunLua with a
// runner over the caller's registry, everything else to Run.
func TestScriptRunChoosesTheRunner(t *testing.T) {
	sc := &fakeScripts{}
	vm := newVM(t, tools.Tools{Scripts: sc})
	got, err := vm.Eval(`local s = require("script")
		return s.run("echo hi").run_id, s.run("-- lua\nprint(1 + 1)").stdout, s.run("print('x')", {language = "lua"}).stdout`)
	require.NoError(t, err)
	assert.Equal(t, []any{"r1", "2\n", "x\n"}, got)
	assert.Equal(t, []string{"echo hi"}, sc.ran)
	assert.Len(t, sc.ranLua, 2)

	_, err = vm.Eval(`return require("script").run("x", {language = "py"})`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `language must be "sh" or "lua", got "py"`)
}

// A refusal names its rule; any other failure keeps its text.
func TestExecErrors(t *testing.T) {
	refused := &tools.Rejection{Rule: "deny:sudo", Reason: "sudo is not allowed", Err: errors.New("sudo is not allowed")}
	vm := newVM(t, tools.Tools{Commands: fakeCommands{err: refused}})
	got, err := vm.Eval(`return require("exec").run("sudo ls")`)
	require.NoError(t, err)
	assert.Equal(t, []any{nil, "rejected (deny:sudo): sudo is not allowed"}, got)

	vm = newVM(t, tools.Tools{Commands: fakeCommands{err: errors.New("workdir missing")}})
	got, err = vm.Eval(`return require("exec").run("ls")`)
	require.NoError(t, err)
	assert.Equal(t, []any{nil, "workdir missing"}, got)

	got, err = vm.Eval(`return require("exec").start("sleep 1")`)
	require.NoError(t, err)
	assert.Equal(t, []any{nil, "exec.start: background sessions are disabled (codingTools.allowBackground=false)"}, got)
}

func TestProcessListShowsTheAdaptersStatus(t *testing.T) {
	vm := newVM(t, tools.Tools{Commands: fakeCommands{}})
	got, err := vm.Eval(`local s = require("process").list()[1]; return s.id, s.status, s.exit_code`)
	require.NoError(t, err)
	assert.Equal(t, []any{"s1", "exited exitCode=3", float64(3)}, got)
}

// Lua scripts starting Lua scripts stop at MaxLuaDepth levels (each level
// prints what its child printed and its error).
func TestLuaScriptsNestAtMostMaxLuaDepth(t *testing.T) {
	vm := newVM(t, tools.Tools{Scripts: &fakeScripts{}})
	got, err := vm.Eval(`local chain = "-- lua\nprint('bottom')"
		for _ = 1, 6 do
			chain = "-- lua\nlocal r = require('script').run(" .. string.format("%q", chain) .. ")\nprint(r.stdout .. r.stderr)"
		end
		return require("script").run(chain).stdout`)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Contains(t, got[0], "nest too deeply (more than 4 levels")
	assert.NotContains(t, got[0], "bottom")
}
