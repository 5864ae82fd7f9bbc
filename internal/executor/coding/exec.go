package coding

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/openpocket/openpocket/engine/tools"
	"github.com/openpocket/openpocket/internal/executor/policy"
	"github.com/openpocket/openpocket/internal/sandbox"
)

// ExecRequest is one exec action: the port's request, so the Lua side
// and this executor share one definition.
type ExecRequest = tools.ExecRequest

// ExecResult is the outcome of Exec.
type ExecResult struct {
	// SessionID is set when the command keeps running as a session.
	SessionID string
	Running   bool
	// YieldMs is echoed when a yield expired.
	YieldMs int
	PID     int
	// ExitCode is the exit status when finished (128+signal if killed).
	ExitCode   int
	TimedOut   bool
	DurationMs int64
	// Output is stdout and stderr interleaved, capped at MaxOutputChars.
	Output string
}

// String renders the exec result text:
//
//	exec exitCode=<n> timedOut=<bool> durationMs=<n>   (finished)
//	exec started in background sessionId=<id> pid=<n>  (background)
//	exec still running after yieldMs=<n>; continuing in background sessionId=<id> pid=<n>
//
// followed by "output:" and the output when there is any.
func (r ExecResult) String() string {
	var s string
	switch {
	case r.Running && r.YieldMs > 0:
		s = fmt.Sprintf("exec still running after yieldMs=%d; continuing in background sessionId=%s pid=%d (use process poll/log/write/kill)", r.YieldMs, r.SessionID, r.PID)
	case r.Running:
		s = fmt.Sprintf("exec started in background sessionId=%s pid=%d (use process poll/log/write/kill)", r.SessionID, r.PID)
	default:
		s = fmt.Sprintf("exec exitCode=%d timedOut=%t durationMs=%d", r.ExitCode, r.TimedOut, r.DurationMs)
	}
	if r.Output != "" {
		s += "\noutput:\n" + strings.TrimRight(r.Output, "\n")
	} else if !r.Running {
		s += "\n(no output)"
	}
	return s
}

// Exec checks and runs a command. A policy refusal is a *policy.Violation
// error.
func (e *Executor) Exec(ctx context.Context, req ExecRequest) (ExecResult, error) {
	if v := policy.Check(req.Command, 0, e.allow); v != nil {
		return ExecResult{}, v
	}
	workdir := "."
	if req.Workdir != "" {
		workdir = req.Workdir
	}
	wd, err := e.resolve(workdir)
	if err != nil {
		return ExecResult{}, fmt.Errorf("workdir: %w", err)
	}
	if fi, err := os.Stat(wd.abs); err != nil || !fi.IsDir() {
		return ExecResult{}, fmt.Errorf("workdir %s is not a directory", wd.show)
	}
	limit := time.Duration(e.cfg.TimeoutSec) * time.Second
	timeout := time.Duration(req.TimeoutSec) * time.Second
	if timeout <= 0 || timeout > limit {
		timeout = limit
	}
	if req.Background && !e.cfg.AllowBackground {
		return ExecResult{}, errors.New("background sessions are disabled (codingTools.allowBackground=false)")
	}
	args := []string{"bash", "--noprofile", "--norc", "-c", req.Command}
	env := sandbox.Environment(os.Environ(), e.workspace)

	if !req.Background && (req.YieldMs <= 0 || !e.cfg.AllowBackground) {
		out := tools.NewCapWriter(e.cfg.MaxOutputChars)
		start := time.Now()
		p, err := policy.Spawn(policy.SpawnOptions{Args: args, Dir: wd.abs, Env: env, Stdout: out, Sandbox: e.cfg.Sandbox, Workspace: e.workspace, Limits: e.cfg.Limits})
		if err != nil {
			return ExecResult{}, err
		}
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		res := ExecResult{PID: p.Pid()}
		select {
		case <-p.Done():
		case <-timer.C:
			res.TimedOut = true
			p.Kill()
		case <-ctx.Done():
			p.Kill()
			return ExecResult{}, ctx.Err()
		}
		res.ExitCode = p.ExitCode()
		res.DurationMs = time.Since(start).Milliseconds()
		res.Output = out.String()
		return res, nil
	}

	s, err := e.startSession(req.Command, wd, args, env, timeout)
	if err != nil {
		return ExecResult{}, err
	}
	if req.Background {
		return ExecResult{SessionID: s.id, Running: true, PID: s.proc.Pid()}, nil
	}
	timer := time.NewTimer(time.Duration(req.YieldMs) * time.Millisecond)
	defer timer.Stop()
	select {
	case <-s.proc.Done():
		// Finished within the yield: a plain foreground result, no session.
		e.dropSession(s.id)
		info := s.info()
		return ExecResult{PID: info.PID, ExitCode: info.ExitCode, TimedOut: info.TimedOut, DurationMs: info.DurationMs,
			Output: tools.Cap(s.log.String(), e.cfg.MaxOutputChars)}, nil
	case <-timer.C:
		out, _ := s.takeNew(e.cfg.MaxOutputChars)
		return ExecResult{SessionID: s.id, Running: true, YieldMs: req.YieldMs, PID: s.proc.Pid(), Output: out}, nil
	case <-ctx.Done():
		s.proc.Kill()
		e.dropSession(s.id)
		return ExecResult{}, ctx.Err()
	}
}

// session is one exec running (or finished) in the background.
type session struct {
	id      string
	command string
	workdir string
	proc    *policy.Proc
	log     *tailBuffer
	started time.Time

	mu       sync.Mutex
	ended    time.Time
	timedOut bool
	polled   int64 // log offset already returned by poll
}

// SessionInfo describes a session for process list/poll/log/kill.
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
}

// Status renders "running", "exited exitCode=<n>" or
// "timedOut exitCode=<n>".
func (i SessionInfo) Status() string {
	switch {
	case i.Running:
		return "running"
	case i.TimedOut:
		return fmt.Sprintf("timedOut exitCode=%d", i.ExitCode)
	}
	return fmt.Sprintf("exited exitCode=%d", i.ExitCode)
}

func (s *session) info() SessionInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := SessionInfo{ID: s.id, Command: s.command, Workdir: s.workdir, PID: s.proc.Pid(), StartedAt: s.started, TimedOut: s.timedOut}
	if s.proc.Exited() {
		if s.ended.IsZero() {
			s.ended = time.Now()
		}
		i.ExitCode = s.proc.ExitCode()
		i.DurationMs = s.ended.Sub(s.started).Milliseconds()
	} else {
		i.Running = true
		i.DurationMs = time.Since(s.started).Milliseconds()
	}
	return i
}

// takeNew returns the output written since the last call, capped.
func (s *session) takeNew(maxChars int) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	text, next := s.log.Since(s.polled)
	s.polled = next
	return tools.Cap(text, maxChars), text != ""
}

func newSessionID() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// startSession spawns a background session, evicting finished sessions
// (oldest first) when MaxSessions are kept.
func (e *Executor) startSession(command string, wd target, args, env []string, timeout time.Duration) (*session, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for len(e.order) >= e.maxSessions {
		evicted := false
		for i, id := range e.order {
			if e.sessions[id].proc.Exited() {
				delete(e.sessions, id)
				e.order = append(e.order[:i:i], e.order[i+1:]...)
				evicted = true
				break
			}
		}
		if !evicted {
			return nil, fmt.Errorf("too many running sessions (%d); kill one with process kill", len(e.order))
		}
	}
	log := newTailBuffer(sessionLogBytes)
	p, err := policy.Spawn(policy.SpawnOptions{Args: args, Dir: wd.abs, Env: env, Stdout: log, Stdin: true, Sandbox: e.cfg.Sandbox, Workspace: e.workspace, Limits: e.cfg.Limits})
	if err != nil {
		return nil, err
	}
	id := newSessionID()
	for e.sessions[id] != nil {
		id = newSessionID()
	}
	s := &session{id: id, command: command, workdir: wd.show, proc: p, log: log, started: time.Now()}
	e.sessions[id] = s
	e.order = append(e.order, id)
	go func() {
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		select {
		case <-p.Done():
		case <-timer.C:
			s.mu.Lock()
			s.timedOut = true
			s.mu.Unlock()
			p.Kill()
		}
		s.mu.Lock()
		s.ended = time.Now()
		s.mu.Unlock()
	}()
	return s, nil
}

func (e *Executor) dropSession(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.sessions, id)
	for i, x := range e.order {
		if x == id {
			e.order = append(e.order[:i:i], e.order[i+1:]...)
			break
		}
	}
}

func (e *Executor) session(id string) (*session, error) {
	if id == "" {
		return nil, errors.New("sessionId is required")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.sessions[id]
	if s == nil {
		return nil, fmt.Errorf("no session %q (see process list)", id)
	}
	return s, nil
}

// tailBuffer keeps the last max bytes written and the total written, so
// offsets into the whole stream stay meaningful after old output is dropped.
type tailBuffer struct {
	mu    sync.Mutex
	max   int
	buf   []byte
	total int64
}

func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max} }

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total += int64(len(p))
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0:0], b.buf[over:]...)
	}
	return len(p), nil
}

// String returns the kept output.
func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// Since returns what was written after stream offset off (as much of it as
// is kept) and the current end offset.
func (b *tailBuffer) Since(off int64) (string, int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	start := b.total - int64(len(b.buf))
	if off < start {
		off = start
	}
	return string(b.buf[off-start:]), b.total
}
