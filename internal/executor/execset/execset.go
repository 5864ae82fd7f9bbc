// Package execset builds the executors of one workspace — the script,
// coding and memory executors (internal/executor/...) — and hands them to
// the engine and the Lua side: Actions is the engine's executor map for the
// run_script, read, write, edit, apply_patch, exec, process, memory_search
// and memory_get actions, and Tools is the same executors behind the
// engine/tools port the Lua modules (stdlib/executors) bind.
//
// One [Set] owns the executors of a workspace; its action map and its tools
// share them, so a background command started by the agent's exec action is
// visible to a script's process.list(). Close the set when the process ends
// (it kills background commands). The package knows no Lua: the runner for
// "-- lua" scripts arrives as a tools.LuaFunc.
//
//	set := execset.New(ws, execset.DefaultConfig())
//	defer set.Close()
//	reg := stdlib.Registry(executors.Modules(set.Tools())...)
//	eng.Executors = set.Actions(executors.VMRunner(reg, sessionOf))
package execset

import (
	"reflect"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/tools"
	"github.com/openpocket/openpocket/internal/executor/coding"
	"github.com/openpocket/openpocket/internal/executor/memory"
	"github.com/openpocket/openpocket/internal/executor/script"
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
	// so the model is told they are unavailable. The tools behind the Lua
	// fs, exec and process modules stay available to scripts.
	CodingDisabled bool
	Memory         memory.Config
}

// DefaultConfig returns the executors' defaults.
func DefaultConfig() Config {
	return Config{Coding: coding.DefaultConfig()}
}

// Set is the executors of one workspace, shared by its action map and its
// tools. It is safe for concurrent use.
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

// Tools returns the executors behind the engine/tools port (the Lua modules
// script, fs, exec, process and memory).
func (s *Set) Tools() tools.Tools {
	return tools.Tools{
		Scripts:  scripts{s.Script},
		Files:    files{s.Coding},
		Commands: commands{s.Coding},
		Memory:   memories{s.Memory},
	}
}

// ActionTypes are the action types the action map serves.
var ActionTypes = []string{"run_script", "read", "write", "edit", "apply_patch", "exec", "process", "memory_search", "memory_get"}

var codingActions = []string{"read", "write", "edit", "apply_patch", "exec", "process"}

// Actions maps the action types to the executors' Execute (engine.Engine's
// Executors). run_script sends a script whose first line is "-- lua" to
// luaRunner (recorded with script.lua); a nil luaRunner records such a
// script as rejected. With Config.CodingDisabled the coding actions are
// absent.
func (s *Set) Actions(luaRunner tools.LuaFunc) map[string]engine.Executor {
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
func Executors(ws string, cfg Config, luaRunner tools.LuaFunc) map[string]engine.Executor {
	return New(ws, cfg).Actions(luaRunner)
}
