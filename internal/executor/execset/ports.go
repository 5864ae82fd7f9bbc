package execset

import (
	"context"
	"errors"
	"time"

	"github.com/openpocket/openpocket/engine/tools"
	"github.com/openpocket/openpocket/internal/executor/coding"
	"github.com/openpocket/openpocket/internal/executor/memory"
	"github.com/openpocket/openpocket/internal/executor/policy"
	"github.com/openpocket/openpocket/internal/executor/script"
)

// The adapters below translate the executors' types to the port's. Where
// the two have the same fields a Go conversion does it, so a field added on
// one side and not the other stops the build here instead of going missing.

var (
	_ tools.Scripts  = scripts{}
	_ tools.Files    = files{}
	_ tools.Commands = commands{}
	_ tools.Memory   = memories{}
)

type scripts struct{ e *script.Executor }

func (s scripts) Run(ctx context.Context, src string, timeout time.Duration) (tools.ScriptResult, error) {
	r, err := s.e.Run(ctx, src, timeout)
	return tools.ScriptResult(r), err
}

func (s scripts) RunLua(ctx context.Context, src string, timeout time.Duration, run tools.LuaFunc) (tools.ScriptResult, error) {
	r, err := s.e.RunLua(ctx, src, timeout, run)
	return tools.ScriptResult(r), err
}

type files struct{ e *coding.Executor }

func (f files) Read(path string, from, lines int) (tools.ReadResult, error) {
	r, err := f.e.Read(path, from, lines)
	return tools.ReadResult(r), err
}

func (f files) Write(path, content string, appendMode bool) (tools.WriteResult, error) {
	r, err := f.e.Write(path, content, appendMode)
	return tools.WriteResult(r), err
}

func (f files) Edit(path, find, replace string, all bool) (tools.EditResult, error) {
	r, err := f.e.Edit(path, find, replace, all)
	return tools.EditResult(r), err
}

func (f files) ApplyPatch(input string) (tools.PatchResult, error) {
	r, err := f.e.ApplyPatch(input)
	out := tools.PatchResult{Changes: make([]tools.FileChange, 0, len(r.Changes))}
	for _, c := range r.Changes {
		out.Changes = append(out.Changes, tools.FileChange(c))
	}
	return out, err
}

type commands struct{ e *coding.Executor }

// Exec reports a policy refusal as a *tools.Rejection wrapping the
// executor's error (same text), so the Lua side can name the rule.
func (c commands) Exec(ctx context.Context, req tools.ExecRequest) (tools.ExecResult, error) {
	r, err := c.e.Exec(ctx, req)
	var v *policy.Violation
	if errors.As(err, &v) {
		err = &tools.Rejection{Rule: v.Rule, Reason: v.Reason, Err: err}
	}
	return tools.ExecResult(r), err
}

func (c commands) Process(ctx context.Context, req tools.ProcessRequest) (tools.ProcessResult, error) {
	r, err := c.e.Process(ctx, req)
	out := tools.ProcessResult{
		Action:     r.Action,
		Session:    sessionInfo(r.Session),
		Output:     r.Output,
		FromLine:   r.FromLine,
		ToLine:     r.ToLine,
		TotalLines: r.TotalLines,
		Written:    r.Written,
		Forced:     r.Forced,
		WasRunning: r.WasRunning,
	}
	for _, i := range r.Sessions {
		out.Sessions = append(out.Sessions, sessionInfo(i))
	}
	return out, err
}

func (c commands) AllowBackground() bool { return c.e.Config().AllowBackground }

func sessionInfo(i coding.SessionInfo) tools.SessionInfo {
	return tools.SessionInfo{
		ID:         i.ID,
		Command:    i.Command,
		Workdir:    i.Workdir,
		PID:        i.PID,
		Running:    i.Running,
		ExitCode:   i.ExitCode,
		TimedOut:   i.TimedOut,
		StartedAt:  i.StartedAt,
		DurationMs: i.DurationMs,
		Status:     i.Status(),
	}
}

type memories struct{ e *memory.Executor }

func (m memories) Search(query string, maxResults int, minScore float64) (tools.MemorySearch, error) {
	r, err := m.e.Search(query, maxResults, minScore)
	out := tools.MemorySearch{Query: r.Query, MinScore: r.MinScore, ScannedFiles: r.ScannedFiles, Results: make([]tools.MemoryHit, 0, len(r.Results))}
	for _, h := range r.Results {
		out.Results = append(out.Results, tools.MemoryHit(h))
	}
	return out, err
}

func (m memories) GetWindow(path string, from, lines int) (tools.MemoryWindow, error) {
	r, err := m.e.GetWindow(path, from, lines)
	return tools.MemoryWindow(r), err
}
