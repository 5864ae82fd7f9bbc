package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/skills"
	"github.com/openpocket/openpocket/lua"
	"github.com/openpocket/openpocket/stdlib"
)

// RunCmd runs a Lua script against the device.
type RunCmd struct {
	Script  string        `arg:"" help:"Lua script to run." placeholder:"SCRIPT.lua"`
	Args    []string      `arg:"" optional:"" passthrough:"" help:"Arguments for the script: arg[1]..arg[n] and the chunk's varargs (...)."`
	Timeout time.Duration `help:"Stop the script after this long (0 = no limit)." default:"0s"`
}

// Run executes the script in a sandboxed VM bound to a fresh session. The
// device is opened on first use, so a script that never touches it runs
// without one. Registered modules resolve as globals on first use (a
// script may still require them). Script errors are printed as
// file:line: message.
func (c *RunCmd) Run(app *App) error {
	src, err := os.ReadFile(c.Script)
	if err != nil {
		return UsageError{fmt.Errorf("run: %w", err)}
	}
	if c.Timeout < 0 {
		return UsageError{fmt.Errorf("--timeout must not be negative, got %s", c.Timeout)}
	}
	args := c.Args
	if len(args) > 0 && args[0] == "--" {
		// `run script.lua -- -x y`: the separator only ends openpocket's
		// flags; the script never sees it.
		args = args[1:]
	}
	sess, reg, done, err := app.newLuaSession("run " + filepath.Base(c.Script))
	if err != nil {
		return err
	}
	defer done()
	vm, err := stdlib.NewVMWith(app.Ctx, reg, sess, lua.Options{
		Timeout:     c.Timeout,
		Args:        args,
		AutoRequire: true, // ui.tap(...) works without require, as in the REPL
		Print:       func(line string) { fmt.Fprintln(app.Stdout, line) },
	})
	if err != nil {
		sess.Finish(false, err.Error())
		return err
	}
	defer vm.Close()
	runErr := vm.Run(c.Script, src)
	if runErr == nil {
		sess.Finish(true, "script finished")
		return nil
	}
	sess.Finish(false, runErr.Error())
	return app.scriptError(runErr)
}

// newLuaSession composes what a Lua run needs: the engine of the CLI's
// device selection and config (OPENPOCKET_HOME), a throwaway (not
// persisted) session bound to ctx, and the registry of the whole library
// plus the workspace's executor modules (fs, exec, process, memory,
// script). done finalizes nothing; the executors close with the command.
func (a *App) newLuaSession(task string) (*engine.Session, *lua.Registry, func(), error) {
	return a.newLuaSessionCtx(a.Ctx, task)
}

func (a *App) newLuaSessionCtx(ctx context.Context, task string) (*engine.Session, *lua.Registry, func(), error) {
	eng, err := a.newEngine(engineOptions{})
	if err != nil {
		return nil, nil, nil, err
	}
	set, err := a.executorSet()
	if err != nil {
		return nil, nil, nil, err
	}
	sess, err := eng.NewSession(ctx, engine.SessionOptions{Task: task})
	if err != nil {
		return nil, nil, nil, err
	}
	return sess, a.luaRegistry(set), func() {}, nil
}

// runLuaFile runs a Lua script for the scheduler: no terminal output, the
// result as a RunResult. A path that is not a .lua file names a skill (its
// .md file or its name); the skill's replay runs with args as KEY=VALUE
// parameters.
func (a *App) runLuaFile(ctx context.Context, path string, args []string) (engine.RunResult, error) {
	if !strings.HasSuffix(path, ".lua") {
		return a.runSkill(ctx, path, args)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return engine.RunResult{Message: err.Error()}, UsageError{fmt.Errorf("lua job: %w", err)}
	}
	sess, reg, done, err := a.newLuaSessionCtx(ctx, "lua "+filepath.Base(path))
	if err != nil {
		return engine.RunResult{Message: err.Error()}, err
	}
	defer done()
	vm, err := stdlib.NewVMWith(sess.Context(), reg, sess, lua.Options{Args: args, AutoRequire: true})
	if err != nil {
		return sess.Finish(false, err.Error()), err
	}
	defer vm.Close()
	if err := vm.Run(path, src); err != nil {
		return sess.Finish(false, err.Error()), nil
	}
	return sess.Finish(true, "script finished"), nil
}

// scriptError reports a failed script: syntax errors are bad input
// (exit 2), cancellation and device failures keep their own exit codes,
// any other runtime error is printed as file:line: message (with the Lua
// traceback under --verbose) and fails the run (exit 1).
func (a *App) scriptError(err error) error {
	var se *lua.ScriptError
	if !errors.As(err, &se) {
		return err
	}
	switch {
	case se.Kind == lua.KindSyntax:
		return UsageError{se}
	case se.Kind == lua.KindCanceled:
		return se
	case se.Cause != nil && ExitCode(se.Cause) != ExitFailed:
		return se // device lost, no device…: Main prints it and maps the code
	}
	fmt.Fprintln(a.Stderr, se.Error())
	if a.Verbose && se.Traceback != "" {
		fmt.Fprintln(a.Stderr, se.Traceback)
	}
	return a.failedRun(se.Error())
}

// runSkill replays a skill for the scheduler.
func (a *App) runSkill(ctx context.Context, name string, args []string) (engine.RunResult, error) {
	l, err := a.skillsLoader()
	if err != nil {
		return engine.RunResult{}, err
	}
	skillName, _, src, from, err := (&SkillsRunCmd{Name: name}).resolve(l)
	if err != nil {
		return engine.RunResult{Message: err.Error()}, err
	}
	params := map[string]string{}
	for _, kv := range args {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return engine.RunResult{}, UsageError{fmt.Errorf("lua job: skill parameter %q: expected KEY=VALUE", kv)}
		}
		params[k] = v
	}
	sess, reg, done, err := a.newLuaSessionCtx(ctx, "skill "+skillName)
	if err != nil {
		return engine.RunResult{Message: err.Error()}, err
	}
	defer done()
	if res, err := a.readyDevice(sess); err != nil {
		return res, nil
	}
	if _, err := skills.Run(sess.Context(), sess, src, skills.RunOptions{Name: from, Params: params, Registry: reg}); err != nil {
		return sess.Finish(false, err.Error()), nil
	}
	return sess.Finish(true, "skill replayed"), nil
}
