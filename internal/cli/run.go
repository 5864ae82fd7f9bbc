package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/lua"
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
func (c *RunCmd) Run(ctx context.Context, out Streams, g Globals, phones *Phones, svc *run.Service) error {
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
	_, runErr := svc.Script(ctx, run.ScriptOptions{Name: c.Script, Source: src, Args: args, Timeout: c.Timeout,
		Print: func(line string) { fmt.Fprintln(out.Stdout, line) }})
	if runErr == nil {
		return nil
	}
	return scriptError(out.Stderr, g.Verbose, phones, runErr)
}

// scriptError reports a failed script: syntax errors are bad input
// (exit 2), cancellation and device failures keep their own exit codes,
// any other runtime error is printed as file:line: message (with the Lua
// traceback under --verbose) and fails the run (exit 1).
func scriptError(stderr io.Writer, verbose bool, phones *Phones, err error) error {
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
	fmt.Fprintln(stderr, se.Error())
	if verbose && se.Traceback != "" {
		fmt.Fprintln(stderr, se.Traceback)
	}
	return phones.failedRun(se.Error())
}

// skillOn replays a skill on svc's target for a chat: args are its
// KEY=VALUE parameters.
func skillOn(ctx context.Context, svc *run.Service, t run.Target, name string, args []string, events func(run.Event)) (engine.RunResult, error) {
	params, err := run.SkillParams(args)
	if err != nil {
		return engine.RunResult{}, UsageError{err}
	}
	return svc.ReplaySkill(ctx, run.SkillRun{Target: t, Name: name, Params: params, Events: events})
}
