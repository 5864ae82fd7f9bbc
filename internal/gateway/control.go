package gateway

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/openpocket/openpocket/internal/control"
	"github.com/openpocket/openpocket/internal/cron"
)

// startControl serves the gateway's control socket (internal/control) in
// the agent's state: `openpocket cron run` and the dashboards' "Run now"
// hand jobs to this gateway, which owns the jobs' state and the phone. A
// socket that cannot be served is a warning: the scheduled jobs still
// run, and `cron run` then says it cannot reach the gateway.
func (g *Gateway) startControl() {
	l, err := control.Listen(g.home.State())
	if err != nil {
		g.print.line("!", "warning: %v; `openpocket cron run` and \"Run now\" cannot reach this gateway", err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	g.ctlCancel, g.ctlDone = cancel, done
	go func() {
		defer close(done)
		if err := control.Serve(ctx, l, controlHandler{g}); err != nil {
			g.print.line("!", "control socket: %v", err)
		}
	}()
}

// stopControl stops answering and cancels the jobs run on request.
func (g *Gateway) stopControl() {
	if g.ctlCancel != nil {
		g.ctlCancel()
		<-g.ctlDone
		g.ctlCancel = nil
	}
}

// controlHandler runs requested jobs on the gateway's scheduler, as its
// own triggers do (state recorded, events printed and delivered).
type controlHandler struct{ g *Gateway }

func (h controlHandler) RunJob(ctx context.Context, id string) control.JobResult {
	start := time.Now()
	err := h.g.sched.RunNow(ctx, id)
	st := h.g.sched.State().Jobs[id]
	res := control.JobResult{Job: id, OK: err == nil, Message: strings.TrimSpace(st.LastMessage),
		TookMs: time.Since(start).Milliseconds()}
	if err != nil {
		res.Error, res.Busy = err.Error(), errors.Is(err, cron.ErrBusy)
	}
	return res
}
