package coding

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine/tools"
)

// ProcessRequest is one process action (the port's request).
type ProcessRequest = tools.ProcessRequest

// ProcessResult is the outcome of Process.
type ProcessResult struct {
	Action string
	// Sessions is filled by list (oldest first); Session by the others.
	Sessions []SessionInfo
	Session  SessionInfo
	// Output is the new output (poll) or the selected lines (log).
	Output string
	// FromLine, ToLine (1-based, inclusive) and TotalLines describe a log
	// window; ToLine < FromLine when it is empty.
	FromLine, ToLine, TotalLines int
	// Written is the byte count of write.
	Written int
	// Forced is set by kill when SIGTERM was not enough and SIGKILL was sent.
	Forced bool
	// WasRunning is set by kill when the session was still running.
	WasRunning bool
}

// String renders the process result text; the first line always starts
// with "process <action>".
func (r ProcessResult) String() string {
	var b strings.Builder
	i := r.Session
	switch r.Action {
	case "list":
		fmt.Fprintf(&b, "process list sessions=%d", len(r.Sessions))
		for _, s := range r.Sessions {
			fmt.Fprintf(&b, "\nsessionId=%s status=%s pid=%d runtimeMs=%d workdir=%s command=%s",
				s.ID, s.Status(), s.PID, s.DurationMs, s.Workdir, oneLine(s.Command))
		}
	case "poll":
		fmt.Fprintf(&b, "process poll sessionId=%s status=%s runtimeMs=%d", i.ID, i.Status(), i.DurationMs)
		if r.Output != "" {
			b.WriteString("\nnew output:\n" + strings.TrimRight(r.Output, "\n"))
		} else {
			b.WriteString("\n(no new output)")
		}
	case "log":
		fmt.Fprintf(&b, "process log sessionId=%s status=%s lines=%d-%d totalLines=%d", i.ID, i.Status(), r.FromLine, r.ToLine, r.TotalLines)
		if r.Output != "" {
			b.WriteString("\n" + strings.TrimRight(r.Output, "\n"))
		}
	case "write":
		fmt.Fprintf(&b, "process write sessionId=%s bytes=%d status=%s", i.ID, r.Written, i.Status())
	case "kill":
		switch {
		case !r.WasRunning:
			fmt.Fprintf(&b, "process kill sessionId=%s already finished status=%s", i.ID, i.Status())
		case r.Forced:
			fmt.Fprintf(&b, "process kill sessionId=%s signal=SIGTERM then SIGKILL status=%s", i.ID, i.Status())
		default:
			fmt.Fprintf(&b, "process kill sessionId=%s signal=SIGTERM status=%s", i.ID, i.Status())
		}
	}
	return b.String()
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", "\\n")
	if len([]rune(s)) > 120 {
		s = string([]rune(s)[:120]) + "…"
	}
	return s
}

// Process manages background sessions: list, poll, log, write, kill.
func (e *Executor) Process(ctx context.Context, req ProcessRequest) (ProcessResult, error) {
	act := req.Action
	if act == "" {
		act = "list"
	}
	r := ProcessResult{Action: act}
	if act == "list" {
		e.mu.Lock()
		ids := append([]string(nil), e.order...)
		ss := make([]*session, 0, len(ids))
		for _, id := range ids {
			ss = append(ss, e.sessions[id])
		}
		e.mu.Unlock()
		for _, s := range ss {
			r.Sessions = append(r.Sessions, s.info())
		}
		return r, nil
	}
	switch act {
	case "poll", "log", "write", "kill":
	default:
		return r, fmt.Errorf("unknown process action %q (list, poll, log, write, kill)", act)
	}
	s, err := e.session(req.SessionID)
	if err != nil {
		return r, err
	}
	switch act {
	case "poll":
		if wait := min(req.TimeoutMs, maxPollMs); wait > 0 {
			timer := time.NewTimer(time.Duration(wait) * time.Millisecond)
			select {
			case <-s.proc.Done():
			case <-timer.C:
			case <-ctx.Done():
				timer.Stop()
				return r, ctx.Err()
			}
			timer.Stop()
		}
		r.Session = s.info() // before reading output, so an exit implies all output
		r.Output, _ = s.takeNew(e.cfg.MaxOutputChars)
	case "log":
		r.Session = s.info()
		lines := splitLines(s.log.String())
		r.TotalLines = len(lines)
		limit := req.Limit
		if limit <= 0 {
			limit = defaultLogLines
		}
		limit = min(limit, maxLogLines)
		from := req.Offset // 1-based
		if from <= 0 {
			from = max(len(lines)-limit+1, 1)
		}
		to := min(from+limit-1, len(lines))
		r.FromLine, r.ToLine = from, to
		if from <= to {
			r.Output = tools.Cap(strings.Join(lines[from-1:to], ""), e.cfg.MaxOutputChars)
		}
	case "write":
		r.Session = s.info()
		if !r.Session.Running {
			return r, fmt.Errorf("session %s has exited; nothing reads stdin", s.id)
		}
		n, err := s.proc.WriteStdin([]byte(req.Input))
		if err != nil {
			return r, fmt.Errorf("write to session %s: %w", s.id, err)
		}
		r.Written = n
	case "kill":
		r.WasRunning = !s.proc.Exited()
		if r.WasRunning {
			r.Forced = s.proc.Terminate(e.killGrace)
		}
		r.Session = s.info()
	}
	return r, nil
}
