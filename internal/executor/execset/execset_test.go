package execset_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/internal/executor/coding"
	"github.com/openpocket/openpocket/internal/executor/execset"
	"github.com/openpocket/openpocket/lua"
	"github.com/openpocket/openpocket/lua/luatest"
	"github.com/openpocket/openpocket/stdlib"
	"github.com/openpocket/openpocket/stdlib/executors"
)

// These tests run the Lua modules (stdlib/executors) over a real Set: the
// bindings and the executors together, as a run sees them. They live here,
// outside the standard library, because only a test may compose the two.

// modules are the Lua modules over set's tools.
func modules(set *execset.Set) []lua.Module { return executors.Modules(set.Tools()) }

// testConfig allows sleep (not in the default exec allowlist) so
// background sessions can be exercised.
func testConfig() execset.Config {
	cfg := execset.DefaultConfig()
	cfg.Coding.AllowedCommands = append(append([]string(nil), coding.DefaultAllowedCommands...), "sleep")
	return cfg
}

// newWorkspace returns a temp workspace holding the memory fixtures.
func newWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "memory"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "notes"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "MEMORY.md"), []byte("# Memory\nUser likes coffee.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "memory", "2026-01-02.md"),
		[]byte("# Memory 2026-01-02\n- [08:00:00] [OK] [default] task: place the coffee order | result: done\n- [09:00:00] [OK] [default] task: check mail | result: 2 new\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "notes", "secret.md"), []byte("coffee order\n"), 0o644))
	return ws
}

// fixture gives Lua tests the workspace path and a few host helpers.
func fixture(ws string) lua.Module {
	return lua.ModuleFunc("fixture", func(vm *lua.VM) (lua.LValue, error) {
		mod := vm.NewModule(map[string]lua.LGFunction{
			"exists": func(L *lua.LState) int {
				_, err := os.Stat(L.CheckString(1))
				L.Push(lua.LBool(err == nil))
				return 1
			},
			"read": func(L *lua.LState) int {
				b, err := os.ReadFile(L.CheckString(1))
				if err != nil {
					return lua.ReturnErr(L, err)
				}
				L.Push(lua.LString(b))
				return 1
			},
			"greet": func(L *lua.LState) int {
				L.Push(lua.LString("hello " + L.CheckString(1)))
				return 1
			},
			"session": func(L *lua.LState) int {
				// The task of the session bound to this VM ("" without one).
				task := ""
				if s := stdlib.HostOf(vm).Session(); s != nil {
					task = s.Task()
				}
				L.Push(lua.LString(task))
				return 1
			},
		})
		mod.RawSetString("ws", lua.LString(ws))
		return mod, nil
	})
}

func TestModulesLua(t *testing.T) {
	ws := newWorkspace(t)
	set := execset.New(ws, testConfig())
	t.Cleanup(func() { _ = set.Close() })
	reg := lua.NewRegistry(append(modules(set), fixture(ws))...)
	luatest.RunFile(t, reg, "testdata/modules_test.lua")
}

func TestModulesFunctionRegistersAll(t *testing.T) {
	reg := lua.NewRegistry(modules(execset.New(t.TempDir(), execset.DefaultConfig()))...)
	assert.Equal(t, []string{"exec", "fs", "memory", "process", "script"}, reg.Names())
}

// A Lua script.run inherits the caller VM's session and registry.
func TestScriptLuaInheritsSession(t *testing.T) {
	ws := newWorkspace(t)
	set := execset.New(ws, testConfig())
	reg := lua.NewRegistry(append(modules(set), fixture(ws))...)
	vm, err := lua.New(context.Background(), reg, lua.Options{})
	require.NoError(t, err)
	defer vm.Close()
	stdlib.Bind(vm, newSession(t, "session-42"))
	got, err := vm.Eval(`require("script").run("-- lua\nprint(require('fixture').session())").stdout`)
	require.NoError(t, err)
	assert.Equal(t, []any{"session-42\n"}, got)
}

// The caller VM's timeout stops a nested Lua script (whose own timeout is
// longer) promptly, and ends the caller as a cancellation.
func TestScriptLuaStopsWithCaller(t *testing.T) {
	set := execset.New(t.TempDir(), execset.DefaultConfig())
	vm, err := lua.New(context.Background(), lua.NewRegistry(modules(set)...), lua.Options{Timeout: 300 * time.Millisecond})
	require.NoError(t, err)
	defer vm.Close()
	start := time.Now()
	err = vm.Run("outer.lua", []byte(`local r, err = require("script").run("-- lua\nwhile true do end", {timeout_ms = 10000}); outcome = "returned"`))
	var se *lua.ScriptError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, lua.KindCanceled, se.Kind, "raised as a cancellation, not returned as nil, err: %v", err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 5*time.Second, "the nested VM follows the caller's context")
}

func TestVMRunner(t *testing.T) {
	ws := newWorkspace(t)
	reg := lua.NewRegistry(append(modules(execset.New(ws, testConfig())), fixture(ws))...)
	type key struct{}
	run := executors.VMRunner(reg, func(ctx context.Context) *engine.Session {
		s, _ := ctx.Value(key{}).(*engine.Session)
		return s
	})
	ctx := context.WithValue(context.Background(), key{}, newSession(t, "from-ctx"))
	out, err := run(ctx, "print(fixture.session())", time.Second)
	require.NoError(t, err)
	assert.Equal(t, "from-ctx\n", out)

	_, err = run(ctx, "while true do end", 100*time.Millisecond)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

// A script started with script.run (or run_script) in Lua sees the same
// assert as every other run: the assert module, callable like the builtin.
func TestVMRunnerScriptsGetTheAssertModule(t *testing.T) {
	ws := newWorkspace(t)
	run := executors.VMRunner(stdlib.Registry(modules(execset.New(ws, testConfig()))...), nil)
	out, err := run(context.Background(), "print(type(assert), type(assert.eq)); assert(true); assert.eq(1, 1)", time.Second)
	require.NoError(t, err)
	assert.Equal(t, "table\tfunction\n", out)
	_, err = run(context.Background(), "assert.eq(1, 2, 'one is not two')", time.Second)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "one is not two")
}

func act(typ string, params map[string]any) action.Action {
	return action.Action{Type: typ, Params: params}
}

func TestActions(t *testing.T) {
	ws := newWorkspace(t)
	set := execset.New(ws, testConfig())
	t.Cleanup(func() { _ = set.Close() })
	reg := lua.NewRegistry(append(modules(set), fixture(ws))...)
	m := set.Actions(executors.VMRunner(reg, nil))
	assert.ElementsMatch(t, execset.ActionTypes, keys(m))
	ctx := context.Background()

	cases := []struct {
		name   string
		a      action.Action
		prefix string
		has    string
	}{
		{"run_script bash", act("run_script", map[string]any{"script": "echo hi", "timeoutSec": 10}), "run_script exitCode=0 timedOut=false\nrunDir=", "stdout:\nhi\n"},
		{"run_script lua", act("run_script", map[string]any{"script": "-- lua\nprint(fixture.greet('agent'))"}), "run_script exitCode=0 timedOut=false\nrunDir=", "stdout:\nhello agent\n"},
		{"run_script lua error", act("run_script", map[string]any{"script": "-- lua\nerror('nope')"}), "run_script exitCode=1 timedOut=false\n", "nope"},
		{"run_script rejected", act("run_script", map[string]any{"script": "sudo ls"}), "run_script rejected: ", "runDir="},
		{"write", act("write", map[string]any{"path": "a.txt", "content": "alpha\nbeta\n"}), "write path=a.txt bytes=11", ""},
		{"read", act("read", map[string]any{"path": "a.txt"}), "read path=a.txt from=1 lines=2 totalLines=2\n", "alpha\nbeta"},
		{"edit", act("edit", map[string]any{"path": "a.txt", "find": "beta", "replace": "gamma"}), "edit path=a.txt replacements=1", ""},
		{"apply_patch", act("apply_patch", map[string]any{"input": "*** Begin Patch\n*** Add File: b.txt\n+bee\n*** End Patch"}), "apply_patch ok files=1", "A b.txt"},
		{"read escape", act("read", map[string]any{"path": "../x"}), "read failed: ", "outside the workspace"},
		{"exec", act("exec", map[string]any{"command": "cat a.txt"}), "exec exitCode=0 timedOut=false", "gamma"},
		{"exec rejected", act("exec", map[string]any{"command": "wget x"}), "exec rejected: ", "wget"},
		{"process", act("process", map[string]any{"action": "list"}), "process list", ""},
		{"memory_search", act("memory_search", map[string]any{"query": "coffee order", "maxResults": 5}), `{"query":"coffee order"`, `"citation":"memory/2026-01-02.md#L1-L3"`},
		{"memory_get", act("memory_get", map[string]any{"path": "MEMORY.md"}), `{"path":"MEMORY.md"`, "User likes coffee."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text, err := m[c.a.Type].Execute(ctx, c.a)
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(text, c.prefix), "want prefix %q, got:\n%s", c.prefix, text)
			assert.Contains(t, text, c.has)
		})
	}
}

func TestActionsLuaRecordedAndNilRunner(t *testing.T) {
	ws := t.TempDir()
	text, err := execset.Executors(ws, execset.DefaultConfig(), nil)["run_script"].Execute(context.Background(),
		act("run_script", map[string]any{"script": "-- lua\nprint(1)"}))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(text, "run_script rejected: Lua scripts"), text)
	runs, err := filepath.Glob(filepath.Join(ws, "scripts", "runs", "run-*", "script.lua"))
	require.NoError(t, err)
	assert.Len(t, runs, 1, "the rejected Lua script is recorded")
}

func TestActionsCodingDisabled(t *testing.T) {
	cfg := execset.DefaultConfig()
	cfg.CodingDisabled = true
	m := execset.Executors(t.TempDir(), cfg, nil)
	assert.ElementsMatch(t, []string{"run_script", "memory_search", "memory_get"}, keys(m))
}

func TestZeroCodingConfigIsConfined(t *testing.T) {
	set := execset.New(t.TempDir(), execset.Config{})
	assert.True(t, set.Coding.Config().WorkspaceOnly, "a zero Config must not unconfine paths")
	_, err := set.Coding.Read("/etc/hostname", 1, 1)
	assert.ErrorIs(t, err, coding.ErrOutsideWorkspace)
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// newSession is an engine session (no device) whose task names it.
func newSession(t *testing.T, task string) *engine.Session {
	t.Helper()
	sess, err := (&engine.Engine{}).NewSession(t.Context(), engine.SessionOptions{Task: task})
	require.NoError(t, err)
	return sess
}
