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
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/workspace"
)

// jobRuns are the run functions a scheduled job dispatches to, one per
// payload kind. serviceRuns implements them on a run service; tests use
// fakes.
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

// jobRunner returns the cron.Runner that executes scheduled jobs on this
// command's run service (`cron run`). Callers may adjust it before use
// (agent options, run functions in tests).
func (a *App) jobRunner() *jobRunner {
	base := ""
	if h, err := a.home(); err == nil {
		base = h.Workspace()
	}
	return newJobRunner(func(ctx context.Context, device string) (jobRuns, func()) {
		svc, err := a.runService()
		if err != nil {
			return failedRuns{err}, nil
		}
		return a.serviceRuns(svc, a.cfg, device)
	}, base)
}

// serviceRuns runs one job on svc (built from cfg): the job's device, or
// the service's default for "", claimed for exactly that run.
func (a *App) serviceRuns(svc *run.Service, cfg workspace.Config, device string) (jobRuns, func()) {
	r := &serviceRuns{app: a, svc: svc, hc: cfg.HumanAuth, target: run.Target{Device: device}}
	return r, r.release
}

// serviceRuns are a job's run functions on a run service. app is only
// read: its streams (compile warnings, human-auth links), agent id and
// relay.
type serviceRuns struct {
	app    *App
	svc    *run.Service
	hc     workspace.HumanAuthConfig
	target run.Target
	claim  *run.Claim
}

var (
	_ jobRuns       = (*serviceRuns)(nil)
	_ deviceClaimer = (*serviceRuns)(nil)
)

// deviceClaimer takes a run's device lease before the run starts.
type deviceClaimer interface {
	claimDevice(ctx context.Context) error
}

// claimDevice opens the job's device and takes its lease before the run,
// so a device another process drives skips the run (the scheduler retries
// a one-shot job) instead of failing it midway. It returns only a busy
// lease; other device problems are left for the run to report. The run
// releases the lease when it ends.
func (r *serviceRuns) claimDevice(ctx context.Context) error {
	c, err := r.svc.Claim(ctx, r.target)
	if errors.Is(err, lease.ErrBusy) {
		return err
	}
	if err == nil {
		r.claim, r.target = c, c.Target()
	}
	return nil
}

// release gives back a claim no run adopted (a payload that failed
// before its run started).
func (r *serviceRuns) release() {
	if r.claim != nil {
		r.claim.Release()
	}
}

func (r *serviceRuns) runAgent(ctx context.Context, task string, o agentRunOptions) (engine.RunResult, error) {
	return r.app.agentOn(ctx, agentEnv{svc: r.svc, target: r.target, humanAuth: r.hc}, task, o)
}

// runPlaybook runs one playbook file without terminal progress.
func (r *serviceRuns) runPlaybook(ctx context.Context, path string, params map[string]string) (engine.RunResult, error) {
	res, err := compilePlaybook(r.app, path, playbookParams{values: params})
	if err != nil {
		return engine.RunResult{Message: err.Error()}, err
	}
	fr, _ := r.svc.Playbook(ctx, run.PlaybookOptions{Target: r.target, File: path, Compiled: res})
	out := engine.RunResult{Success: fr.Status == "passed", Message: "playbook " + fr.Status, Steps: len(fr.Steps)}
	if fr.Error != "" {
		out.Message = fr.Error
	}
	return out, nil
}

func (r *serviceRuns) runLuaFile(ctx context.Context, path string, args []string) (engine.RunResult, error) {
	return luaFileOn(ctx, r.svc, r.target, path, args)
}

// failedRuns are the run functions of a job whose service could not be
// built (the home or config does not load): every run fails with err.
type failedRuns struct{ err error }

func (f failedRuns) runAgent(context.Context, string, agentRunOptions) (engine.RunResult, error) {
	return engine.RunResult{}, f.err
}

func (f failedRuns) runPlaybook(context.Context, string, map[string]string) (engine.RunResult, error) {
	return engine.RunResult{Message: f.err.Error()}, f.err
}

func (f failedRuns) runLuaFile(context.Context, string, []string) (engine.RunResult, error) {
	return engine.RunResult{Message: f.err.Error()}, f.err
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
