// Package tools is the engine's port to the workspace tools behind the
// non-device actions and the Lua modules script, fs, exec, process and
// memory: run_script scripts, file tools, host commands and their
// background sessions, and the memory files.
//
// The Lua bindings (stdlib/executors) call these interfaces and the
// adapters (internal/executor/...) implement them, so neither side
// imports the other: the types here are the whole contract between them.
// Errors keep the adapters' texts; a command refused by the policy is a
// *Rejection.
package tools

import (
	"context"
	"strings"
	"time"
)

// Tools are the workspace tools of one workspace, as the Lua modules use
// them.
type Tools struct {
	Scripts  Scripts
	Files    Files
	Commands Commands
	Memory   Memory
}

// LuaFunc runs Lua source in a sandboxed VM bound to the caller's session
// and returns what the script printed. It must stop when ctx ends; a
// timeout is reported as an error matching context.DeadlineExceeded. The
// Lua side supplies it (the executors do not know the Lua host).
type LuaFunc func(ctx context.Context, src string, timeout time.Duration) (stdout string, err error)

// IsLua reports whether a run_script source is Lua: its first line is
// "-- lua" (surrounding spaces ignored).
func IsLua(src string) bool {
	first, _, _ := strings.Cut(src, "\n")
	return strings.TrimSpace(first) == "-- lua"
}

// Scripts runs and records run_script scripts under
// <workspace>/scripts/runs/run-<id>/.
type Scripts interface {
	// Run checks a bash script against the policy and runs it; a refused
	// script is a result with Rejected set, not an error.
	Run(ctx context.Context, src string, timeout time.Duration) (ScriptResult, error)
	// RunLua runs Lua source through run and records it like a script.
	RunLua(ctx context.Context, src string, timeout time.Duration, run LuaFunc) (ScriptResult, error)
}

// ScriptResult is one recorded script run (docs/formats.md#script-runs).
type ScriptResult struct {
	OK         bool
	RunID      string
	RunDir     string
	ScriptPath string
	// ExitCode is 128+signal when killed (137 after a timeout); -1 when
	// the script was rejected and never ran.
	ExitCode   int
	TimedOut   bool
	DurationMs int64
	Stdout     string
	Stderr     string
	// Rejected is the policy's reason when the script was refused ("" when
	// it ran); RejectedRule the rule's short name ("deny:sudo").
	Rejected     string
	RejectedRule string
}

// Files are the file tools (read, write, edit, apply_patch), confined to
// the workspace unless configured otherwise.
type Files interface {
	Read(path string, from, lines int) (ReadResult, error)
	Write(path, content string, appendMode bool) (WriteResult, error)
	Edit(path, find, replace string, all bool) (EditResult, error)
	ApplyPatch(input string) (PatchResult, error)
}

// ReadResult is a window of a file: lines From..From+Lines-1 of
// TotalLines, Path as shown to the model (workspace-relative).
type ReadResult struct {
	Path                    string
	From, Lines, TotalLines int
	Content                 string
}

// WriteResult is one write.
type WriteResult struct {
	Path     string
	Bytes    int
	Appended bool
	Created  bool
}

// EditResult is one edit.
type EditResult struct {
	Path         string
	Replacements int
}

// PatchResult lists the changes a patch applied, in patch order.
type PatchResult struct {
	Changes []FileChange
}

// FileChange is one file a patch changed: Kind is "add", "update", "move"
// or "delete"; To is the new path of a move.
type FileChange struct {
	Kind string
	Path string
	To   string
}

// Commands run host commands (exec) and manage their background sessions
// (process).
type Commands interface {
	Exec(ctx context.Context, req ExecRequest) (ExecResult, error)
	Process(ctx context.Context, req ProcessRequest) (ProcessResult, error)
	// AllowBackground reports whether background sessions are enabled
	// (codingTools.allowBackground).
	AllowBackground() bool
}

// ExecRequest is one command to run (the exec action).
type ExecRequest struct {
	Command string
	// Workdir is the working directory (default the workspace root),
	// confined like every other path.
	Workdir string
	// TimeoutSec <= 0 or above the configured timeout means the configured
	// timeout. Background sessions are killed after it too.
	TimeoutSec int
	// YieldMs > 0 waits at most that long: a command still running then
	// becomes a background session (needs AllowBackground).
	YieldMs int
	// Background starts a session and returns at once.
	Background bool
}

// ExecResult is the outcome of Exec.
type ExecResult struct {
	// SessionID is set when the command keeps running as a session.
	SessionID string
	Running   bool
	// YieldMs is echoed when a yield expired.
	YieldMs    int
	PID        int
	ExitCode   int
	TimedOut   bool
	DurationMs int64
	// Output is stdout and stderr interleaved, capped.
	Output string
}

// ProcessRequest is one operation on background sessions (the process
// action).
type ProcessRequest struct {
	// Action is list, poll, log, write or kill ("" means list).
	Action    string
	SessionID string
	// Input is written verbatim to the session's stdin by write (include
	// "\n" to end a line).
	Input string
	// Offset is the 1-based first line for log; 0 shows the last Limit lines.
	Offset int
	// Limit is the number of log lines (default 200, at most 2000).
	Limit int
	// TimeoutMs is how long poll waits for the session to exit (at most
	// 120000; 0 returns at once).
	TimeoutMs int
}

// ProcessResult is the outcome of Process.
type ProcessResult struct {
	Action string
	// Sessions is filled by list (oldest first); Session by the others.
	Sessions []SessionInfo
	Session  SessionInfo
	// Output is the new output (poll) or the selected lines (log).
	Output string
	// FromLine, ToLine (1-based, inclusive) and TotalLines describe a log
	// window.
	FromLine, ToLine, TotalLines int
	// Written is the byte count of write.
	Written int
	// Forced is set by kill when SIGKILL was needed; WasRunning when the
	// session was still running.
	Forced     bool
	WasRunning bool
}

// SessionInfo describes one background session.
type SessionInfo struct {
	ID      string
	Command string
	Workdir string
	PID     int
	Running bool
	// ExitCode is valid when !Running.
	ExitCode   int
	TimedOut   bool
	StartedAt  time.Time
	DurationMs int64
	// Status is the adapter's rendering: "running", "exited exitCode=<n>"
	// or "timedOut exitCode=<n>".
	Status string
}

// Rejection is a command the policy refused (it never ran). Error is the
// adapter's error text; Rule is the rule's short name ("allowlist",
// "deny:sudo") and Reason the sentence shown to the model.
type Rejection struct {
	Rule   string
	Reason string
	Err    error
}

func (r *Rejection) Error() string {
	if r.Err != nil {
		return r.Err.Error()
	}
	return r.Reason
}

func (r *Rejection) Unwrap() error { return r.Err }

// Memory reads the memory files (MEMORY.md and memory/**/*.md).
type Memory interface {
	// Search scores the memory files against query; maxResults <= 0 and
	// minScore < 0 mean the configured defaults.
	Search(query string, maxResults int, minScore float64) (MemorySearch, error)
	// GetWindow returns lines from..from+lines-1 of a memory file.
	GetWindow(path string, from, lines int) (MemoryWindow, error)
}

// MemorySearch is the outcome of Memory.Search.
type MemorySearch struct {
	Query        string
	MinScore     float64
	ScannedFiles int
	Results      []MemoryHit
}

// MemoryHit is one search result.
type MemoryHit struct {
	Path      string
	StartLine int
	EndLine   int
	Score     float64
	Snippet   string
	Citation  string
}

// MemoryWindow is lines From..To of a memory file of TotalLines lines.
type MemoryWindow struct {
	Path       string
	From       int
	To         int
	TotalLines int
	Text       string
}
