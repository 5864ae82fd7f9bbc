// Package skillsmod is the Lua module `skills` for the REPL, cron Lua
// payloads and scripts: skills.list() lists the skills the loader finds
// (bundled, OPENPOCKET_HOME/skills, workspace/skills) and
// skills.run(name, params) runs one's replay script on the caller's
// session, in a fresh sandboxed VM, without a model.
//
//	local skills = require("skills")
//	for _, s in ipairs(skills.list()) do print(s.name, s.source, s.location) end
//	local r = assert(skills.run("turn-off-wi-fi"))
//	assert(skills.run("save-a-note", {text_1 = "call mom"}))
package skillsmod

import (
	"context"
	"fmt"

	"github.com/openpocket/openpocket/lua"
	"github.com/openpocket/openpocket/stdlib"
)

// MaxDepth bounds skills calling skills.
const MaxDepth = 4

type depthKey struct{}

// Entry is one skill as skills.list() shows it.
type Entry struct {
	Name, Description, Location, Source string
	Auto                                bool
}

// Library is where the module finds skills: the run service adapts
// internal/skills' loader to it, so this package needs no import of the
// loader (stdlib never imports internal/...).
type Library interface {
	// List is every skill found, in the order skills.list() shows them.
	List() []Entry
	// Script finds a skill by name and returns its canonical name, its
	// runnable Lua and where that came from.
	Script(name string) (canonical string, src []byte, from string, err error)
}

// Module is the root of the `skills` module.
type Module struct {
	lib Library
}

// New returns the module over a skill library.
func New(lib Library) *Module { return &Module{lib: lib} }

// Name implements lua.Module.
func (m *Module) Name() string { return "skills" }

// Open implements lua.Module.
func (m *Module) Open(vm *lua.VM) (lua.LValue, error) {
	return vm.NewModule(map[string]lua.LGFunction{
		// skills.list() → array of {name, description, location, source, auto}.
		"list": func(L *lua.LState) int {
			all := m.lib.List()
			t := L.CreateTable(len(all), 0)
			for i, s := range all {
				e := L.CreateTable(0, 5)
				e.RawSetString("name", lua.LString(s.Name))
				e.RawSetString("description", lua.LString(s.Description))
				e.RawSetString("location", lua.LString(s.Location))
				e.RawSetString("source", lua.LString(s.Source))
				e.RawSetString("auto", lua.LBool(s.Auto))
				t.RawSetInt(i+1, e)
			}
			L.Push(t)
			return 1
		},
		// skills.run(name, params) → {passed, steps} or nil, err.
		"run": func(L *lua.LState) int {
			name := L.CheckString(1)
			params := map[string]string{}
			switch v := L.Get(2).(type) {
			case *lua.LTable:
				v.ForEach(func(k, val lua.LValue) {
					if ks, ok := k.(lua.LString); ok {
						params[string(ks)] = L.ToStringMeta(val).String()
					}
				})
			default:
				if v != lua.LNil {
					L.ArgError(2, "skills.run: params table expected, got "+v.Type().String())
				}
			}
			sess := stdlib.HostOf(vm).MustSession(L, "skills.run")
			ctx := lua.Context(L)
			depth, _ := ctx.Value(depthKey{}).(int)
			if depth >= MaxDepth {
				return lua.ReturnErr(L, fmt.Errorf("skills.run %s: skills nested more than %d deep", name, MaxDepth))
			}
			skill, src, from, err := m.lib.Script(name)
			if err != nil {
				return lua.ReturnErr(L, fmt.Errorf("skills.run: %w", err))
			}
			res, err := Run(context.WithValue(ctx, depthKey{}, depth+1), sess, src, RunOptions{Name: from, Params: params, Registry: vm.Registry()})
			if err != nil {
				if ctx.Err() != nil {
					return lua.Raise(L, context.Cause(ctx))
				}
				return lua.ReturnErr(L, fmt.Errorf("skills.run %s: %w", skill, err))
			}
			t := L.CreateTable(0, 2)
			t.RawSetString("passed", lua.LNumber(res.Passed))
			t.RawSetString("steps", lua.LNumber(len(res.Steps)))
			L.Push(t)
			return 1
		},
	}), nil
}

var _ lua.Module = (*Module)(nil)
