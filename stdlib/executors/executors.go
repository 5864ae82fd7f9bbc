package executors

import (
	"context"
	"fmt"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/tools"
	"github.com/openpocket/openpocket/lua"
	"github.com/openpocket/openpocket/stdlib"
)

// Set is a workspace's executors as a run needs them: the tools its Lua
// modules bind and the engine's executor map for the non-device actions.
// internal/executor/execset implements it (the composition root builds
// one per process and closes it).
type Set interface {
	Tools() tools.Tools
	// Actions maps action types to executors; run_script sends "-- lua"
	// scripts to luaRunner (nil: such scripts are recorded as rejected).
	Actions(luaRunner LuaRunner) map[string]engine.Executor
}

// LuaRunner runs Lua source (a run_script whose first line is "-- lua") in
// a sandboxed VM and returns what it printed; see VMRunner.
type LuaRunner = tools.LuaFunc

// maxLuaPrintChars bounds what a Lua script's print may buffer before the
// executor caps it to scriptExecutor.maxOutputChars.
const maxLuaPrintChars = 1 << 20

// MaxLuaDepth bounds how deeply Lua scripts may start Lua scripts
// (script.run with language "lua" inside a Lua script), so a script that
// runs itself fails at once instead of piling up VMs until its timeout.
const MaxLuaDepth = 4

type depthKey struct{}

// runLua runs src in a fresh VM built from reg, bound to session (nil: a
// VM without one, whose device modules fail with their own error).
func runLua(ctx context.Context, reg *lua.Registry, session *engine.Session, src string, timeout time.Duration) (string, error) {
	depth, _ := ctx.Value(depthKey{}).(int)
	if depth >= MaxLuaDepth {
		return "", fmt.Errorf("Lua scripts nest too deeply (more than %d levels of script.run)", MaxLuaDepth)
	}
	ctx = context.WithValue(ctx, depthKey{}, depth+1)
	out := tools.NewCapWriter(maxLuaPrintChars)
	vm, err := lua.New(ctx, reg, lua.Options{
		Timeout:     timeout,
		AutoRequire: true,
		Print:       func(line string) { _, _ = out.Write([]byte(line + "\n")) },
	})
	if err != nil {
		return "", err
	}
	defer vm.Close()
	stdlib.Bind(vm, session)
	if err := stdlib.UseAssertModule(vm); err != nil {
		return "", err
	}
	err = vm.Run("script.lua", []byte(src))
	return out.String(), err
}

// VMRunner returns a LuaRunner that runs each script in a new sandboxed VM
// built from reg. sessionOf returns the session the VM is bound to
// (stdlib.Bind; typically the session whose Act called the executor); it
// may be nil, and it may return nil for a VM without a session (device
// modules then fail with their own "no session" error).
func VMRunner(reg *lua.Registry, sessionOf func(ctx context.Context) *engine.Session) LuaRunner {
	return func(ctx context.Context, src string, timeout time.Duration) (string, error) {
		var sess *engine.Session
		if sessionOf != nil {
			sess = sessionOf(ctx)
		}
		return runLua(ctx, reg, sess, src, timeout)
	}
}

// binding is the Lua modules' view of one workspace's tools.
type binding struct{ tools.Tools }

// Modules returns the Lua modules script, fs, exec, process and memory
// over t (see Set.Tools). Modules built from the same tools share them: a
// background command started by one VM's exec.start is in another's
// process.list().
func Modules(t tools.Tools) []lua.Module {
	b := binding{t}
	return []lua.Module{
		lua.ModuleFunc("script", b.openScript),
		lua.ModuleFunc("fs", b.openFS),
		lua.ModuleFunc("exec", b.openExec),
		lua.ModuleFunc("process", b.openProcess),
		lua.ModuleFunc("memory", b.openMemory),
	}
}
