package executors

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/executor/coding"
	"github.com/openpocket/openpocket/internal/executor/memory"
	"github.com/openpocket/openpocket/internal/executor/policy"
	"github.com/openpocket/openpocket/internal/executor/script"
	"github.com/openpocket/openpocket/lua"
	"github.com/openpocket/openpocket/stdlib"
)

// Config bundles the executors' configurations (config.json scriptExecutor,
// codingTools and memoryTools).
type Config struct {
	Script script.Config
	// Coding is the codingTools configuration. A zero Coding means
	// coding.DefaultConfig() (workspace-only paths, background sessions and
	// apply_patch enabled), never "everything off and unconfined".
	Coding coding.Config
	// CodingDisabled (codingTools.enabled=false) leaves the coding actions
	// (read, write, edit, apply_patch, exec, process) out of the action map,
	// so the model is told they are unavailable. The Lua fs, exec and
	// process modules stay available to scripts.
	CodingDisabled bool
	Memory         memory.Config
}

// DefaultConfig returns the executors' defaults.
func DefaultConfig() Config {
	return Config{Coding: coding.DefaultConfig()}
}

// LuaRunner runs Lua source (a run_script whose first line is "-- lua") in
// a sandboxed VM and returns what it printed; see VMRunner.
type LuaRunner = script.LuaFunc

// maxLuaPrintChars bounds what a Lua script's print may buffer before the
// executor caps it to scriptExecutor.maxOutputChars.
const maxLuaPrintChars = 1 << 20

// MaxLuaDepth bounds how deeply Lua scripts may start Lua scripts
// (script.run with language "lua" inside a Lua script), so a script that
// runs itself fails at once instead of piling up VMs until its timeout.
const MaxLuaDepth = 4

type depthKey struct{}

// runLua runs src in a fresh VM built from reg, bound to session.
func runLua(ctx context.Context, reg *lua.Registry, session any, src string, timeout time.Duration) (string, error) {
	depth, _ := ctx.Value(depthKey{}).(int)
	if depth >= MaxLuaDepth {
		return "", fmt.Errorf("Lua scripts nest too deeply (more than %d levels of script.run)", MaxLuaDepth)
	}
	ctx = context.WithValue(ctx, depthKey{}, depth+1)
	out := policy.NewCapWriter(maxLuaPrintChars)
	vm, err := lua.New(ctx, reg, lua.Options{
		Timeout:     timeout,
		Session:     session,
		AutoRequire: true,
		Print:       func(line string) { _, _ = out.Write([]byte(line + "\n")) },
	})
	if err != nil {
		return "", err
	}
	defer vm.Close()
	if err := stdlib.UseAssertModule(vm); err != nil {
		return "", err
	}
	err = vm.Run("script.lua", []byte(src))
	return out.String(), err
}

// VMRunner returns a LuaRunner that runs each script in a new sandboxed VM
// built from reg. sessionOf returns the session the VM is bound to
// (lua.Options.Session, typically the *engine.Session whose Act called the
// executor); it may be nil, and it may return nil for a VM without a
// session (device modules then fail with their own "no session" error).
func VMRunner(reg *lua.Registry, sessionOf func(ctx context.Context) any) LuaRunner {
	return func(ctx context.Context, src string, timeout time.Duration) (string, error) {
		var sess any
		if sessionOf != nil {
			sess = sessionOf(ctx)
		}
		return runLua(ctx, reg, sess, src, timeout)
	}
}

// Set is the executors of one workspace, shared by its Lua modules and its
// action map. It is safe for concurrent use.
type Set struct {
	Script *script.Executor
	Coding *coding.Executor
	Memory *memory.Executor

	cfg Config
}

// New builds the executors for the workspace directory ws.
func New(ws string, cfg Config) *Set {
	if reflect.ValueOf(cfg.Coding).IsZero() {
		cfg.Coding = coding.DefaultConfig()
	}
	return &Set{
		Script: script.New(ws, cfg.Script),
		Coding: coding.New(ws, cfg.Coding),
		Memory: memory.New(ws, cfg.Memory),
		cfg:    cfg,
	}
}

// Close kills the background commands started through exec.
func (s *Set) Close() error { return s.Coding.Close() }

// Modules returns the Lua modules script, fs, exec, process and memory.
func (s *Set) Modules() []lua.Module {
	return []lua.Module{
		lua.ModuleFunc("script", s.openScript),
		lua.ModuleFunc("fs", s.openFS),
		lua.ModuleFunc("exec", s.openExec),
		lua.ModuleFunc("process", s.openProcess),
		lua.ModuleFunc("memory", s.openMemory),
	}
}

// Modules returns the Lua modules of a new Set for ws. Background commands
// started through exec.start live until they end, time out or are killed;
// use New and Set.Close to kill them when the process ends.
func Modules(ws string, cfg Config) []lua.Module { return New(ws, cfg).Modules() }

// ActionTypes are the action types the action map serves.
var ActionTypes = []string{"run_script", "read", "write", "edit", "apply_patch", "exec", "process", "memory_search", "memory_get"}

var codingActions = []string{"read", "write", "edit", "apply_patch", "exec", "process"}

// Actions maps the action types to the executors' Execute (engine.Engine's
// Executors). run_script sends a script whose first line is "-- lua" to
// luaRunner (recorded with script.lua); a nil luaRunner records such a
// script as rejected. With Config.CodingDisabled the coding actions are
// absent.
func (s *Set) Actions(luaRunner LuaRunner) map[string]engine.Executor {
	m := map[string]engine.Executor{
		"run_script":    s.Script.WithLua(luaRunner),
		"memory_search": s.Memory,
		"memory_get":    s.Memory,
	}
	if !s.cfg.CodingDisabled {
		for _, t := range codingActions {
			m[t] = s.Coding
		}
	}
	return m
}

// Executors returns the action map of a new Set for ws (see Set.Actions).
func Executors(ws string, cfg Config, luaRunner LuaRunner) map[string]engine.Executor {
	return New(ws, cfg).Actions(luaRunner)
}
