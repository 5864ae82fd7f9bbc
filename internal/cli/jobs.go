package cli

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/lease"
)

// jobRuns are the run functions a scheduled job dispatches to, one per
// payload kind. *App implements them (agent, playbook and Lua commands);
// tests use fakes.
type jobRuns interface {
	runAgent(ctx context.Context, task string, o agentRunOptions) (engine.RunResult, error)
	runPlaybook(ctx context.Context, path string, params map[string]string) (engine.RunResult, error)
	runLuaFile(ctx context.Context, path string, args []string) (engine.RunResult, error)
}

// jobRunsFor returns the run functions for one run of a job on device
// ("" = the default device) and a cleanup to call when the run ends.
type jobRunsFor func(ctx context.Context, device string) (jobRuns, func())

// jobRunner is the cron.Runner of the CLI: it maps a job's payload to a
// run function and the run's result to the job's status.
type jobRunner struct {
	runsFor jobRunsFor
	// agent is the template of agent runs' options (terminal for human
	// auth, progress); zero for unattended runs. Model comes from the job.
	agent agentRunOptions
	// base resolves relative payload paths of hand-written jobs (the
	// workspace); "" leaves them to the process's working directory.
	base string
}

var _ cron.Runner = (*jobRunner)(nil)

// newJobRunner builds a runner over runsFor.
func newJobRunner(runsFor jobRunsFor, base string) *jobRunner {
	return &jobRunner{runsFor: runsFor, base: base}
}

// jobRunner returns the cron.Runner that executes scheduled jobs with this
// App's run functions, each run on its own copy of the App so jobs on
// different devices do not share a device selection. Callers may adjust
// it before use (agent options, run functions in tests).
func (a *App) jobRunner() *jobRunner {
	base := ""
	if h, err := a.home(); err == nil {
		base = h.Workspace()
	}
	return newJobRunner(a.jobRunsFor, base)
}

// jobRunsFor gives one job run its own App: same home, config, streams
// and virtual phone, the job's device (if it names one) and the run's
// context; the copy's exit work (e.g. a virtual phone it started) runs
// when the job ends.
func (a *App) jobRunsFor(ctx context.Context, device string) (jobRuns, func()) {
	c := a.jobApp(ctx, device)
	return c, c.runCleanups
}

var _ jobRuns = (*App)(nil)

// deviceClaimer takes a run's device lease before the run starts.
type deviceClaimer interface {
	claimDevice(ctx context.Context) error
}

var _ deviceClaimer = (*App)(nil)

// claimDevice opens the job's device and takes its lease before the run,
// so a device another process drives skips the run (the scheduler retries
// a one-shot job) instead of failing it midway. It returns only a busy
// lease; other device problems are left for the run to report.
func (a *App) claimDevice(ctx context.Context) error {
	if _, err := a.openDevice(ctx); errors.Is(err, lease.ErrBusy) {
		return err
	}
	return nil
}

func (a *App) jobApp(ctx context.Context, device string) *App {
	c := &App{
		Globals: a.Globals,
		Stdout:  a.Stdout,
		Stderr:  a.Stderr,
		Ctx:     ctx,
		Logger:  a.Logger,
		sim:     a.sim,
		ws:      a.ws,
		cfg:     a.cfg,
		command: a.command,
		// The gateway's relay serves the runs' human-auth links.
		relayBase: a.relayBase,
	}
	if device != "" {
		c.Device, c.Target = device, ""
	}
	return c
}

// Run implements cron.Runner: ok and message are the run result's
// Success and Message; an error from the run function fails the job.
func (r *jobRunner) Run(ctx context.Context, job cron.Job) (bool, string, error) {
	p := job.Payload
	switch p.Kind {
	case cron.PayloadAgentTurn, "", cron.PayloadPlaybook, cron.PayloadLua:
	default:
		return false, "", fmt.Errorf("job %s: payload.kind: unknown kind %q; expected agent_turn, playbook or lua", job.ID, p.Kind)
	}
	runs, done := r.runsFor(ctx, cron.DeviceOf(job))
	if done != nil {
		defer done()
	}
	if c, ok := runs.(deviceClaimer); ok {
		if err := c.claimDevice(ctx); err != nil {
			return false, "", fmt.Errorf("%w: %w", cron.ErrBusy, err)
		}
	}
	var (
		res engine.RunResult
		err error
	)
	switch p.Kind {
	case cron.PayloadPlaybook:
		res, err = runs.runPlaybook(ctx, r.resolve(p.Path), maps.Clone(p.Params))
	case cron.PayloadLua:
		res, err = runs.runLuaFile(ctx, r.resolve(p.Path), slices.Clone(p.Args))
	default:
		o := r.agent
		o.Model = ""
		if job.Model != nil {
			o.Model = *job.Model
		}
		res, err = runs.runAgent(ctx, p.Task, o)
	}
	if errors.Is(err, lease.ErrBusy) {
		// Another process drives the device: the scheduler retries
		// one-shot jobs instead of losing them.
		return false, res.Message, fmt.Errorf("%w: %w", cron.ErrBusy, err)
	}
	if err != nil {
		return false, res.Message, err
	}
	if !res.Success && res.Message == "" {
		res.Message = "run failed (no message)"
	}
	return res.Success, res.Message, nil
}

// resolve makes a relative payload path absolute: relative to the
// workspace when the file is there, else left to the working directory.
// cron add stores absolute paths; this is for hand-written jobs.json.
func (r *jobRunner) resolve(p string) string {
	if p == "" || filepath.IsAbs(p) || r.base == "" {
		return p
	}
	if cand := filepath.Join(r.base, p); jobFileExists(cand) {
		return cand
	}
	return p
}

func jobFileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
