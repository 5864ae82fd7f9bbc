// Package script implements the run_script executor: a model- or
// user-written bash script is parsed and run by mvdan.cc/sh/v3's
// interpreter (policy.RunShell) in <workspace>/scripts under a timeout;
// every command actually executed is checked against the allowlist after
// expansion and every program runs inside the OS sandbox (package sandbox:
// the workspace read-write, no home, no other processes, an allowlisted
// environment, no network, adb only to the run's own phone through the
// run's sandbox.ADBGate, resource limits). Each run
// is recorded as a run artifact (docs/formats.md#script-runs):
//
//	<workspace>/scripts/runs/run-<runId>/{script.sh,stdout.log,stderr.log,result.json}
//
// Artifacts are written for rejected scripts too, so every attempt can be
// audited. The typed API (Run) serves the Lua `script` module and the CLI;
// Execute serves the run_script action.
package script

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"mvdan.cc/sh/v3/interp"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/hostfs"
	"github.com/openpocket/openpocket/engine/tools"
	"github.com/openpocket/openpocket/internal/executor/policy"
	"github.com/openpocket/openpocket/internal/sandbox"
)

// DefaultAllowedCommands is the allowlist used when Config.AllowedCommands
// is empty. Programs that run other programs (shells, env, xargs, awk, sed,
// find, setsid, nohup, timeout) are never in it (see policy.NeverImplicit).
var DefaultAllowedCommands = []string{"adb", "echo", "pwd", "ls", "cat", "grep", "rg", "head", "tail", "wc", "sort", "uniq", "cut", "tr", "date", "sleep"}

// Config is the scriptExecutor configuration. Zero values take the defaults.
type Config struct {
	// AllowedCommands are the command words a segment may start with;
	// "*" allows all. Default DefaultAllowedCommands.
	AllowedCommands []string
	// TimeoutSec is the default and the maximum run time (default 60).
	TimeoutSec int
	// MaxOutputChars caps stdout and stderr each (default 6000).
	MaxOutputChars int
	// MaxScriptChars caps the script length (default 12000).
	MaxScriptChars int
	// Sandbox confines every program the script starts (default: bubblewrap,
	// refusing to run when it is unavailable).
	Sandbox *sandbox.Sandbox
	// Limits are the resource limits of the script's processes.
	Limits sandbox.Limits
	// ADBServer is the adb server ("host:port") of a run without a phone
	// of its own ("": as adb picks it from the environment). A script's
	// adb reaches it only through the run's gate (sandbox.ADBGate).
	ADBServer string
}

func (c Config) withDefaults() Config {
	if len(c.AllowedCommands) == 0 {
		c.AllowedCommands = DefaultAllowedCommands
	}
	if c.TimeoutSec <= 0 {
		c.TimeoutSec = 60
	}
	if c.MaxOutputChars <= 0 {
		c.MaxOutputChars = 6000
	}
	if c.MaxScriptChars <= 0 {
		c.MaxScriptChars = 12000
	}
	if c.Sandbox == nil {
		c.Sandbox = sandbox.New(sandbox.ModeAuto, nil)
	}
	return c
}

// Result is one run, exactly the result.json fields of docs/formats.md#script-runs plus Rejected.
type Result struct {
	OK         bool   `json:"ok"`
	RunID      string `json:"runId"`
	RunDir     string `json:"runDir"`
	ScriptPath string `json:"scriptPath"`
	// ExitCode is the bash exit status; 128+signal when killed (137 after a
	// timeout); -1 when the script was rejected and never ran.
	ExitCode   int    `json:"exitCode"`
	TimedOut   bool   `json:"timedOut"`
	DurationMs int64  `json:"durationMs"`
	Stdout     string `json:"stdout"`
	Stderr     string `json:"stderr"`
	// Rejected is the policy reason when the script was refused ("" when it
	// ran); RejectedRule is the short rule name ("deny:sudo", "allowlist").
	Rejected     string `json:"rejected,omitempty"`
	RejectedRule string `json:"rejectedRule,omitempty"`
}

// Executor runs scripts for one workspace. It is safe for concurrent use.
type Executor struct {
	workspace string
	cfg       Config
	allow     policy.Allowlist
	now       func() time.Time
}

var _ engine.Executor = (*Executor)(nil)

// New returns an executor for workspaceDir.
func New(workspaceDir string, cfg Config) *Executor {
	cfg = cfg.withDefaults()
	return &Executor{workspace: workspaceDir, cfg: cfg, allow: policy.NewAllowlist(cfg.AllowedCommands), now: time.Now}
}

// Config returns the effective configuration (defaults applied).
func (e *Executor) Config() Config { return e.cfg }

// IsLua reports whether script is Lua rather than bash: its first line is
// "-- lua" (surrounding blanks ignored). The rule is the tools port's, so
// the Lua script module and run_script agree.
func IsLua(script string) bool { return tools.IsLua(script) }

// ScriptsDir is <workspace>/scripts, the working directory of every run.
func (e *Executor) ScriptsDir() string { return filepath.Join(e.workspace, "scripts") }

// Run checks and runs script. timeout <= 0 means Config.TimeoutSec; longer
// timeouts are cut to Config.TimeoutSec. A rejected script is a Result with
// Rejected set, not an error. The error is non-nil when the artifacts cannot
// be written or ctx was cancelled (the group is killed and the partial
// Result is still returned and recorded).
func (e *Executor) Run(ctx context.Context, script string, timeout time.Duration) (Result, error) {
	timeout = e.clampTimeout(timeout)
	res, err := e.newRun("script.sh", script)
	if err != nil {
		return res, err
	}
	if v := policy.Check(script, e.cfg.MaxScriptChars, e.allow); v != nil {
		return e.reject(res, v.Rule, v.Reason)
	}
	stdout := tools.NewCapWriter(e.cfg.MaxOutputChars)
	stderr := tools.NewCapWriter(e.cfg.MaxOutputChars)
	gate, err := sandbox.NewADBGate(e.phoneOf(ctx))
	if err != nil {
		return res, err
	}
	defer gate.Close()
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	err = policy.RunShell(runCtx, script, policy.ShellOptions{
		Allow:     e.allow,
		Workspace: e.workspace,
		Dir:       e.ScriptsDir(),
		Sandbox:   e.cfg.Sandbox,
		ADBGate:   gate,
		Limits:    e.limits(timeout),
		Env:       scriptEnv(e.workspace),
		Stdout:    stdout,
		Stderr:    stderr,
	})
	res.DurationMs = time.Since(start).Milliseconds()
	res.Stdout = stdout.String()
	res.Stderr = stderr.String()
	var refused *policy.Violation
	var status interp.ExitStatus
	ctxErr := ctx.Err()
	switch {
	case ctxErr != nil:
		res.ExitCode = 137
	case runCtx.Err() != nil:
		res.TimedOut, res.ExitCode = true, 137
	case errors.As(err, &refused):
		return e.reject(res, refused.Rule, refused.Reason)
	case errors.As(err, &status):
		res.ExitCode = int(status)
	case err != nil:
		res.ExitCode = -1
		res.Stderr = strings.TrimRight(res.Stderr+"\n"+err.Error(), "\n")
	}
	res.OK = res.ExitCode == 0 && !res.TimedOut && ctxErr == nil
	werr := e.writeArtifacts(res)
	if ctxErr != nil {
		return res, errors.Join(fmt.Errorf("run_script cancelled: %w", ctxErr), werr)
	}
	return res, werr
}

// limits are the configured limits, with CPU time bounded by the timeout.
func (e *Executor) limits(timeout time.Duration) sandbox.Limits {
	l := e.cfg.Limits
	if cpu := uint64(timeout/time.Second) + 1; l.CPUSeconds == 0 || l.CPUSeconds > cpu {
		l.CPUSeconds = cpu
	}
	return l
}

// clampTimeout maps timeout <= 0 to Config.TimeoutSec and cuts longer
// timeouts to it.
func (e *Executor) clampTimeout(timeout time.Duration) time.Duration {
	limit := time.Duration(e.cfg.TimeoutSec) * time.Second
	if timeout <= 0 || timeout > limit {
		return limit
	}
	return timeout
}

// reject records a refused script or command: exit code -1; output the
// script produced before a refused command is kept.
func (e *Executor) reject(res Result, rule, reason string) (Result, error) {
	res.ExitCode = -1
	res.Rejected = reason
	res.RejectedRule = rule
	res.Stderr = strings.TrimLeft(res.Stderr+"\nrejected: "+reason, "\n")
	return res, e.writeArtifacts(res)
}

// newRun creates a fresh run directory with a unique run id and records the
// script in it as scriptName before anything is checked, so rejected
// attempts are audited too. On a write failure the returned Result still
// names the run directory.
func (e *Executor) newRun(scriptName, script string) (Result, error) {
	res, err := e.newRunDir()
	if err != nil {
		return res, err
	}
	res.ScriptPath = filepath.Join(res.RunDir, scriptName)
	if err := hostfs.WriteFile(e.workspace, res.ScriptPath, []byte(script), 0o644); err != nil {
		return res, fmt.Errorf("run_script: %w", err)
	}
	return res, nil
}

// newRunDir makes scripts/runs/run-<id> inside the workspace through
// engine/hostfs: scripts may have made scripts/runs a link out (say to a
// directory whose *.sh a login shell sources), and the host must not
// write the script and its output there.
func (e *Executor) newRunDir() (Result, error) {
	runs := filepath.Join(e.ScriptsDir(), "runs")
	if err := os.MkdirAll(e.workspace, 0o755); err != nil { // the configured root itself
		return Result{}, fmt.Errorf("run_script: %w", err)
	}
	if err := hostfs.MkdirAll(e.workspace, runs, 0o755); err != nil {
		return Result{}, fmt.Errorf("run_script: %w", err)
	}
	for range 10 {
		var b [3]byte
		if _, err := rand.Read(b[:]); err != nil {
			return Result{}, fmt.Errorf("run_script: run id: %w", err)
		}
		id := e.now().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
		dir := filepath.Join(runs, "run-"+id)
		if err := hostfs.Mkdir(e.workspace, dir, 0o755); err != nil {
			if errors.Is(err, os.ErrExist) {
				continue
			}
			return Result{}, fmt.Errorf("run_script: %w", err)
		}
		return Result{RunID: id, RunDir: dir}, nil
	}
	return Result{}, errors.New("run_script: could not allocate a unique run directory")
}

func (e *Executor) writeArtifacts(res Result) error {
	js, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("run_script: %w", err)
	}
	return errors.Join(
		hostfs.WriteFile(e.workspace, filepath.Join(res.RunDir, "stdout.log"), []byte(res.Stdout), 0o644),
		hostfs.WriteFile(e.workspace, filepath.Join(res.RunDir, "stderr.log"), []byte(res.Stderr), 0o644),
		hostfs.WriteFile(e.workspace, filepath.Join(res.RunDir, "result.json"), append(js, '\n'), 0o644),
	)
}

// Execute runs a run_script action (params script, timeoutSec) and returns
// the model-facing text:
//
//	run_script exitCode=<n> timedOut=<bool>
//	runDir=<dir>
//	stdout:
//	<stdout>
//	stderr:
//	<stderr>
//
// or, for a refused script, "run_script rejected: <reason>" and runDir.
// Only cancellation of ctx is returned as an error.
func (e *Executor) Execute(ctx context.Context, a action.Action) (string, error) {
	if a.Type != "run_script" {
		return "", fmt.Errorf("script executor: unsupported action %q", a.Type)
	}
	res, err := e.Run(ctx, a.Str("script"), time.Duration(a.Int("timeoutSec"))*time.Second)
	return actionResult(ctx, res, err)
}

// actionResult turns a Run or RunLua outcome into Execute's return values:
// cancellation is the only error, everything else is text for the model.
func actionResult(ctx context.Context, res Result, err error) (string, error) {
	if ctxErr := ctx.Err(); ctxErr != nil {
		if err == nil { // the run finished just before ctx ended
			err = fmt.Errorf("run_script cancelled: %w", ctxErr)
		}
		return "", err
	}
	if res.RunDir == "" { // nothing ran, nothing recorded
		return "run_script failed: " + err.Error(), nil
	}
	text := Format(res)
	if err != nil {
		text += "\nerror: " + err.Error()
	}
	return text, nil
}

// Format renders a Result as the run_script action result text.
func Format(res Result) string {
	var b strings.Builder
	if res.Rejected != "" {
		fmt.Fprintf(&b, "run_script rejected: %s\nrunDir=%s", res.Rejected, res.RunDir)
		return b.String()
	}
	fmt.Fprintf(&b, "run_script exitCode=%d timedOut=%t\nrunDir=%s\nstdout:\n%s", res.ExitCode, res.TimedOut, res.RunDir, res.Stdout)
	if res.Stdout != "" && !strings.HasSuffix(res.Stdout, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString("stderr:\n")
	b.WriteString(strings.TrimRight(res.Stderr, "\n"))
	return strings.TrimRight(b.String(), "\n")
}
