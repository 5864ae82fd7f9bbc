// Package coding implements the coding executor: the read, write, edit,
// apply_patch, exec and process actions over one workspace directory.
//
// With WorkspaceOnly (the default) every path is confined to the workspace:
// relative paths are taken from the workspace root, and a path that leaves
// it — through "..", as an absolute path elsewhere, or through a symlink
// (the file itself or any parent, dangling or not) — is refused. Operations
// always act on the resolved path that was checked.
//
// exec runs `bash --noprofile --norc -c <command>` (not a login shell, so no
// profile can undo the scrubbed environment) after the same deny patterns as
// run_script and this executor's own command allowlist. Commands run in
// their own process group; a timeout or kill takes the whole group.
// Background sessions (exec background=true, or yieldMs when the command
// outlives it) are managed with the process action.
//
// The typed methods (Read, Write, Edit, ApplyPatch, Exec, Process) return
// operational failures as errors for the Lua modules; Execute turns them into
// "<action> failed: …" result text for the model.
package coding

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/internal/executor/policy"
	"github.com/openpocket/openpocket/internal/sandbox"
)

// DefaultAllowedCommands is the exec allowlist used when
// Config.AllowedCommands is empty.
//
// Interpreters (go, python3, node, git) run code by design: exec is
// confined by the OS sandbox, which is what holds them.
var DefaultAllowedCommands = []string{"ls", "cat", "grep", "rg", "head", "tail", "wc", "echo", "pwd", "mkdir", "cp", "mv", "touch", "diff", "sort", "uniq", "git", "go", "python3", "node"}

// Config is the codingTools configuration. Use DefaultConfig for the
// defaults: the booleans default to true, which a zero Config cannot say.
type Config struct {
	// WorkspaceOnly confines every path to the workspace.
	WorkspaceOnly bool
	// TimeoutSec is the default and maximum exec run time (default 1800).
	TimeoutSec int
	// MaxOutputChars caps every output returned (default 12000).
	MaxOutputChars int
	// AllowBackground enables background exec sessions and yieldMs.
	AllowBackground bool
	// ApplyPatchEnabled enables apply_patch.
	ApplyPatchEnabled bool
	// AllowedCommands is the exec allowlist; "*" allows all. Default
	// DefaultAllowedCommands.
	AllowedCommands []string
	// Sandbox confines exec (default: bubblewrap, refusing to run when it
	// is unavailable); Limits are its resource limits.
	Sandbox *sandbox.Sandbox
	Limits  sandbox.Limits
}

// DefaultConfig returns the upstream defaults.
func DefaultConfig() Config {
	return Config{WorkspaceOnly: true, TimeoutSec: 1800, MaxOutputChars: 12000, AllowBackground: true, ApplyPatchEnabled: true}
}

const (
	maxReadLines     = 1000
	defaultReadLines = 200
	maxPollMs        = 120000
	defaultLogLines  = 200
	maxLogLines      = 2000
	// MaxSessions is how many exec sessions are kept; finished ones are
	// evicted oldest first to make room.
	MaxSessions = 80
	// sessionLogBytes is how much output a session keeps (its tail).
	sessionLogBytes = 1 << 20
)

// Executor runs coding actions for one workspace. It is safe for concurrent
// use. Close kills background sessions.
type Executor struct {
	workspace string
	cfg       Config
	allow     policy.Allowlist

	mu          sync.Mutex
	sessions    map[string]*session
	order       []string // session ids, oldest first
	maxSessions int
	killGrace   time.Duration
}

var _ engine.Executor = (*Executor)(nil)

// New returns an executor for workspaceDir. Zero numeric fields of cfg take
// their defaults; booleans are taken as given (start from DefaultConfig).
func New(workspaceDir string, cfg Config) *Executor {
	if cfg.TimeoutSec <= 0 {
		cfg.TimeoutSec = 1800
	}
	if cfg.MaxOutputChars <= 0 {
		cfg.MaxOutputChars = 12000
	}
	if len(cfg.AllowedCommands) == 0 {
		cfg.AllowedCommands = DefaultAllowedCommands
	}
	if cfg.Sandbox == nil {
		cfg.Sandbox = sandbox.New(sandbox.ModeAuto, nil)
	}
	return &Executor{
		workspace:   workspaceDir,
		cfg:         cfg,
		allow:       policy.NewAllowlist(cfg.AllowedCommands),
		sessions:    map[string]*session{},
		maxSessions: MaxSessions,
		killGrace:   2 * time.Second,
	}
}

// Config returns the effective configuration.
func (e *Executor) Config() Config { return e.cfg }

// Execute runs one coding action and returns the model-facing text. Only
// cancellation of ctx and unsupported action types are errors.
func (e *Executor) Execute(ctx context.Context, a action.Action) (string, error) {
	var (
		text string
		err  error
	)
	switch a.Type {
	case "read":
		var r ReadResult
		if r, err = e.Read(a.Str("path"), a.Int("from"), a.Int("lines")); err == nil {
			text = r.String()
		}
	case "write":
		var r WriteResult
		if r, err = e.Write(a.Str("path"), a.Str("content"), a.Bool("append")); err == nil {
			text = r.String()
		}
	case "edit":
		var r EditResult
		if r, err = e.Edit(a.Str("path"), a.Str("find"), a.Str("replace"), a.Bool("replaceAll")); err == nil {
			text = r.String()
		}
	case "apply_patch":
		var r PatchResult
		if r, err = e.ApplyPatch(a.Str("input")); err == nil {
			text = r.String()
		}
	case "exec":
		var r ExecResult
		r, err = e.Exec(ctx, ExecRequest{
			Command:    a.Str("command"),
			Workdir:    a.Str("workdir"),
			TimeoutSec: a.Int("timeoutSec"),
			YieldMs:    a.Int("yieldMs"),
			Background: a.Bool("background"),
		})
		if err == nil {
			text = r.String()
		}
		var v *policy.Violation
		if errors.As(err, &v) {
			return "exec rejected: " + v.Reason, nil
		}
	case "process":
		var r ProcessResult
		r, err = e.Process(ctx, ProcessRequest{
			Action:    a.Str("action"),
			SessionID: a.Str("sessionId"),
			Input:     a.Str("input"),
			Offset:    a.Int("offset"),
			Limit:     a.Int("limit"),
			TimeoutMs: a.Int("timeoutMs"),
		})
		if err == nil {
			text = r.String()
		}
	default:
		return "", fmt.Errorf("coding executor: unsupported action %q", a.Type)
	}
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return "", err
		}
		return a.Type + " failed: " + err.Error(), nil
	}
	return text, nil
}

// Close kills every running background session and waits for them.
func (e *Executor) Close() error {
	e.mu.Lock()
	var running []*session
	for _, s := range e.sessions {
		running = append(running, s)
	}
	e.mu.Unlock()
	for _, s := range running {
		s.proc.Kill()
	}
	return nil
}
