package script

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/tools"
)

// LuaFunc runs Lua source in a sandboxed VM bound to the caller's session
// and returns what the script printed (see tools.LuaFunc, the port's type).
// The script package does not know the Lua host: the Lua side supplies the
// function.
type LuaFunc = tools.LuaFunc

// Exit codes of a recorded Lua run (a Lua script has no process status).
const (
	// LuaExitError is the exit code of a Lua script that raised an error.
	LuaExitError = 1
	// LuaExitTimeout is the exit code of a Lua script stopped by its
	// timeout, the status a shell script killed by its timeout has.
	LuaExitTimeout = 137
)

// RunLua runs a Lua script (see IsLua) through run and records it like a
// shell script, with script.lua instead of script.sh:
//
//	<workspace>/scripts/runs/run-<runId>/{script.lua,stdout.log,stderr.log,result.json}
//
// The shell policy does not apply (the Lua sandbox is the policy); only the
// length limit does. stdout is what the script printed, stderr the error
// message of a failed run; both are capped at MaxOutputChars. A script that
// raises exits 1, one stopped by its timeout exits 137 with TimedOut set.
// timeout is clamped like Run's. A nil run rejects the script (rule
// "lua-unavailable") so the attempt is still recorded. The error is
// non-nil when the artifacts cannot be written or ctx was cancelled.
func (e *Executor) RunLua(ctx context.Context, src string, timeout time.Duration, run LuaFunc) (Result, error) {
	timeout = e.clampTimeout(timeout)
	res, err := e.newRun("script.lua", src)
	if err != nil {
		return res, err
	}
	if n := utf8.RuneCountInString(src); n > e.cfg.MaxScriptChars {
		return e.reject(res, "max-length", fmt.Sprintf("script is %d chars, the limit is %d", n, e.cfg.MaxScriptChars))
	}
	if run == nil {
		return e.reject(res, "lua-unavailable", "Lua scripts (first line \"-- lua\") cannot run here: no Lua VM is configured for this runtime; send a bash script instead")
	}

	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	stdout, runErr := run(runCtx, src, timeout)
	res.DurationMs = time.Since(start).Milliseconds()
	res.Stdout = tools.Cap(stdout, e.cfg.MaxOutputChars)
	var ctxErr error
	switch {
	case runErr == nil:
		res.ExitCode = 0
	case ctx.Err() != nil:
		ctxErr = ctx.Err()
		res.ExitCode = LuaExitError
		res.Stderr = tools.Cap(runErr.Error(), e.cfg.MaxOutputChars)
	case errors.Is(runErr, context.DeadlineExceeded):
		res.TimedOut = true
		res.ExitCode = LuaExitTimeout
		res.Stderr = tools.Cap(fmt.Sprintf("timed out after %s: %v", timeout, runErr), e.cfg.MaxOutputChars)
	default:
		res.ExitCode = LuaExitError
		res.Stderr = tools.Cap(runErr.Error(), e.cfg.MaxOutputChars)
	}
	res.OK = res.ExitCode == 0
	werr := e.writeArtifacts(res)
	if ctxErr != nil {
		return res, errors.Join(fmt.Errorf("run_script cancelled: %w", ctxErr), werr)
	}
	return res, werr
}

// WithLua returns the run_script executor that sends Lua scripts (IsLua)
// to run through RunLua and everything else to Execute. With a nil run, Lua
// scripts are recorded as rejected ("lua-unavailable").
func (e *Executor) WithLua(run LuaFunc) engine.Executor {
	return luaDispatch{e: e, run: run}
}

type luaDispatch struct {
	e   *Executor
	run LuaFunc
}

var _ engine.Executor = luaDispatch{}

func (d luaDispatch) Execute(ctx context.Context, a action.Action) (string, error) {
	if a.Type != "run_script" || !IsLua(a.Str("script")) {
		return d.e.Execute(ctx, a)
	}
	res, err := d.e.RunLua(ctx, a.Str("script"), time.Duration(a.Int("timeoutSec"))*time.Second, d.run)
	return actionResult(ctx, res, err)
}
