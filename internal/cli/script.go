package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/openpocket/openpocket/internal/executor/script"
	"github.com/openpocket/openpocket/stdlib/executors"
)

// ScriptCmd groups the script commands.
type ScriptCmd struct {
	Run ScriptRunCmd `cmd:"" help:"Run a bash script (or Lua with --lua or a first line '-- lua') in the workspace, like the run_script action."`
}

// ScriptRunCmd runs one script through the run_script executor.
type ScriptRunCmd struct {
	File    string        `short:"f" xor:"source" required:"" help:"Script file to run." placeholder:"FILE"`
	Text    string        `short:"t" xor:"source" required:"" help:"Script text to run." placeholder:"SCRIPT"`
	Timeout time.Duration `help:"Time limit (default and maximum: scriptExecutor.timeoutSec, 60s unless configured)." placeholder:"DURATION"`
	Lua     bool          `help:"Run the script as Lua in the sandbox (implied by a first line '-- lua')."`
}

// Run checks and runs the script in OPENPOCKET_HOME/workspace/scripts,
// records it under scripts/runs/, prints the run_script result text and
// fails (exit 1) unless the script exited 0 within its time limit. The
// script's adb reaches only the --device phone (on --adb-server).
func (c *ScriptRunCmd) Run(ctx context.Context, out Streams, g Globals, later OnUse) error {
	ctx = script.WithPhone(ctx, g.Device, g.ADBServer)
	src := c.Text
	if c.File != "" {
		b, err := os.ReadFile(c.File)
		if err != nil {
			return UsageError{fmt.Errorf("script file: %w", err)}
		}
		src = string(b)
	}
	if c.Timeout < 0 {
		return UsageError{fmt.Errorf("--timeout must not be negative, got %s", c.Timeout)}
	}
	set, err := later.NewExecutors()
	if err != nil {
		return err
	}
	defer set.Close()
	if err := os.MkdirAll(set.Script.ScriptsDir(), 0o755); err != nil {
		return err
	}

	var res script.Result
	if c.Lua || script.IsLua(src) {
		run := executors.VMRunner(newScriptRegistry(executors.Modules(set.Tools())...), nil)
		res, err = set.Script.RunLua(ctx, src, c.Timeout, run)
	} else {
		res, err = set.Script.Run(ctx, src, c.Timeout)
	}
	if res.RunDir != "" {
		fmt.Fprintln(out.Stdout, strings.TrimRight(script.Format(res), "\n"))
	}
	if err != nil {
		return err
	}
	if !res.OK {
		return FailedError{Msg: fmt.Sprintf("script failed (exit code %d)", res.ExitCode)}
	}
	return nil
}
