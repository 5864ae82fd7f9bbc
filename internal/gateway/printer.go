package gateway

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/openpocket/openpocket/internal/cron"
)

// printer writes one line per scheduler event: compact with
// symbols on a terminal, timestamped and grep-friendly otherwise.
type printer struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool
	clock   clockwork.Clock
	started map[string]time.Time
}

func (p *printer) line(sym, format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.writeLocked(p.clock.Now(), sym, fmt.Sprintf(format, args...))
}

func (p *printer) writeLocked(at time.Time, sym, msg string) {
	msg = strings.Join(strings.Fields(msg), " ")
	if r := []rune(msg); len(r) > 300 {
		msg = string(r[:299]) + "…"
	}
	if p.tty {
		fmt.Fprintf(p.w, "%s %s %s\n", at.Local().Format("15:04:05"), sym, msg)
		return
	}
	fmt.Fprintf(p.w, "%s %s\n", at.UTC().Format(time.RFC3339), msg)
}

// event is the scheduler's OnEvent.
func (p *printer) event(e cron.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	at := e.At
	if at.IsZero() {
		at = p.clock.Now()
	}
	switch e.Kind {
	case cron.EventStarted:
		p.started[e.JobID] = at
		p.writeLocked(at, "▶", fmt.Sprintf("job %s started (%s)", e.JobID, e.Trigger))
	case cron.EventFinished:
		took := ""
		if t0, ok := p.started[e.JobID]; ok {
			took = " after " + at.Sub(t0).Round(time.Second).String()
			delete(p.started, e.JobID)
		}
		sym, what := "✓", "ok"
		if e.Status != cron.StatusOK {
			sym, what = "✗", "failed"
		}
		msg := ""
		if e.Message != "" {
			msg = ": " + e.Message
		}
		p.writeLocked(at, sym, fmt.Sprintf("job %s %s%s%s", e.JobID, what, took, msg))
	case cron.EventSkipped:
		p.writeLocked(at, "⏭", fmt.Sprintf("job %s skipped: %s", e.JobID, e.Message))
	case cron.EventReloaded:
		p.writeLocked(at, "↻", "jobs loaded: "+e.Message)
	case cron.EventProblem:
		p.writeLocked(at, "!", "warning: "+e.Message)
	case cron.EventFleet:
		sym := "!"
		if e.Status == "resumed" {
			sym = "●"
		}
		p.writeLocked(at, sym, "fleet: "+e.Message)
	case cron.EventError:
		p.writeLocked(at, "!", "error: "+e.Message)
	default:
		p.writeLocked(at, "·", fmt.Sprintf("%s %s %s", e.Kind, e.JobID, e.Message))
	}
}
