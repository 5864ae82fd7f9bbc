package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/openpocket/openpocket/internal/control"
	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/workspace"
)

// While an agent's gateway runs it owns the agent's jobs, their state and
// its phone: `cron run` and the dashboards' "Run now" hand the job to it
// over its control socket (internal/control) instead of running it
// beside it.

// gatewayAnswerWait is how long a gateway that holds its lock may take to
// answer on its socket (it may be starting).
const gatewayAnswerWait = 5 * time.Second

// runInGateway runs job id in h's gateway when one runs: ran says whether
// it was handed over (then res is its outcome). A gateway that runs but
// does not answer is an error saying so, never advice to remove its lock.
func runInGateway(ctx context.Context, h *workspace.Home, id string) (res control.JobResult, ran bool, err error) {
	deadline := time.Now().Add(gatewayAnswerWait)
	for {
		lock, running := cron.GatewayRunning(h.State())
		if !running {
			return res, false, nil
		}
		res, err = control.RunJob(ctx, h.State(), id)
		if err == nil {
			return res, true, nil
		}
		if !errors.Is(err, control.ErrNoGateway) || time.Now().After(deadline) {
			where := ""
			if lock.Host != "" {
				where = " on host " + lock.Host
			}
			return res, false, fmt.Errorf("job %s: the agent's gateway runs (pid %d%s, started %s) but does not answer on its control socket: %w; restart the gateway (Ctrl-C in its terminal or `kill %d`) and run the job again",
				id, lock.PID, where, lock.StartedAt, err, lock.PID)
		}
		select {
		case <-ctx.Done():
			return res, false, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// gatewayOutcome is how a job the gateway ran ended: its message, or an
// error saying why it failed (busy: cron.ErrBusy).
func gatewayOutcome(res control.JobResult, err error) (string, error) {
	switch {
	case err != nil:
		return "", err
	case res.Busy:
		return "", fmt.Errorf("in the gateway (pid %d): %s: %w", res.PID, res.Error, cron.ErrBusy)
	case !res.OK && res.Error != "":
		return "", fmt.Errorf("in the gateway (pid %d): %s", res.PID, res.Error)
	case !res.OK:
		return "", fmt.Errorf("in the gateway (pid %d): %s", res.PID, res.Message)
	}
	return fmt.Sprintf("ok after %s in the gateway (pid %d): %s", (time.Duration(res.TookMs) * time.Millisecond).Round(100*time.Millisecond), res.PID, res.Message), nil
}
