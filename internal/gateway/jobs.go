package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/hostfs"
	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/gwenv"
	"github.com/openpocket/openpocket/internal/lease"
	"github.com/openpocket/openpocket/internal/run"
)

// jobRuns are the run functions a scheduled job dispatches to, one per
// payload kind. serviceRuns implements them on the run service; tests use
// fakes.
type jobRuns interface {
	runAgent(ctx context.Context, task, model string) (engine.RunResult, error)
	runPlaybook(ctx context.Context, f payloadFile, params map[string]string) (engine.RunResult, error)
	runLuaFile(ctx context.Context, f payloadFile, args []string) (engine.RunResult, error)
}

// runsFor returns the run functions for one run of a job on device ("" =
// the default device) and a cleanup to call when the run ends.
type runsFor func(ctx context.Context, device string) (jobRuns, func())

// deviceClaimer takes a run's device lease before the run starts.
type deviceClaimer interface {
	claimDevice(ctx context.Context) error
}

// jobRunner is the gateway's cron.Runner: it maps a job's payload to a
// run function and the run's result to the job's status.
type jobRunner struct {
	runsFor runsFor
	// base resolves relative payload paths of hand-written jobs (the
	// workspace); "" leaves them to the process's working directory.
	base string
	// stateDir holds the key that signs payload paths (cron.DeliveryKey);
	// "" trusts no signature.
	stateDir string
	// warn receives playbook compile warnings.
	warn io.Writer
}

var _ cron.Runner = (*jobRunner)(nil)

func newJobRunner(runsFor runsFor, base, stateDir string, warn io.Writer) *jobRunner {
	return &jobRunner{runsFor: runsFor, base: base, stateDir: stateDir, warn: warn}
}

// JobRunnerOptions build a job runner for one job run outside the
// gateway's scheduler (gwenv.JobRunner, which the CLI fills in).
type JobRunnerOptions = gwenv.JobRunner

// NewJobRunner is the cron.Runner of o: each job runs on o.Service with
// its device, claimed for exactly the run, as the gateway runs it.
func NewJobRunner(o JobRunnerOptions) cron.Runner {
	return newJobRunner(func(_ context.Context, device string) (jobRuns, func()) {
		r := &serviceRuns{svc: o.Service, target: run.Target{Device: device}, humanAuth: o.HumanAuth, warn: o.Warn,
			agent: o.Agent, badInput: o.BadInput}
		return r, r.release
	}, o.Base, o.StateDir, o.Warn)
}

// jobRunsFor runs each job on the current service with its device.
func (g *Gateway) jobRunsFor(_ context.Context, device string) (jobRuns, func()) {
	svc, cfg, done := g.current()
	r := &serviceRuns{svc: svc, target: run.Target{Device: device}, warn: g.opts.Stderr}
	if g.opts.HumanAuth != nil {
		r.humanAuth = g.opts.HumanAuth(cfg)
	}
	return r, func() {
		r.release()
		done()
	}
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
	var file payloadFile
	if p.Kind == cron.PayloadPlaybook || p.Kind == cron.PayloadLua {
		var err error
		if file, err = r.payloadFile(job); err != nil {
			return false, "", err
		}
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
		res, err = runs.runPlaybook(ctx, file, maps.Clone(p.Params))
	case cron.PayloadLua:
		res, err = runs.runLuaFile(ctx, file, slices.Clone(p.Args))
	default:
		model := ""
		if job.Model != nil {
			model = *job.Model
		}
		res, err = runs.runAgent(ctx, p.Task, model)
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

// serviceRuns are one job's run functions on the run service: the job's
// device, claimed for exactly that run.
type serviceRuns struct {
	svc       *run.Service
	target    run.Target
	claim     *run.Claim
	humanAuth HumanAuthFor
	warn      io.Writer
	// agent is the template of agent runs (JobRunnerOptions.Agent).
	agent run.AgentOptions
	// badInput wraps bad input's errors (JobRunnerOptions.BadInput).
	badInput func(error) error
}

var (
	_ jobRuns       = (*serviceRuns)(nil)
	_ deviceClaimer = (*serviceRuns)(nil)
)

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

// release gives back a claim no run adopted.
func (r *serviceRuns) release() {
	if r.claim != nil {
		r.claim.Release()
	}
}

// runAgent runs an agent task unattended: human auth through the relay
// when humanAuth.enabled, else the model is told no one can answer. A
// task a learned skill matches is replayed first (agent.replayFirst), so
// a job repeating a learned task costs no model calls.
func (r *serviceRuns) runAgent(ctx context.Context, task, model string) (engine.RunResult, error) {
	o := r.agent
	o.Target, o.Task, o.Model = r.target, task, model
	o.ReplayFirst = r.svc.Config().Agent.ReplayFirst
	if r.humanAuth != nil {
		o.HumanAuthFor = r.humanAuth
	}
	res, err := r.svc.Agent(ctx, o)
	return res.RunResult, err
}

// bad marks err as bad input (badInput), for the command that runs the job.
func (r *serviceRuns) bad(err error) error {
	if r.badInput == nil || err == nil {
		return err
	}
	return r.badInput(err)
}

// runPlaybook runs one playbook file without terminal progress.
func (r *serviceRuns) runPlaybook(ctx context.Context, f payloadFile, params map[string]string) (engine.RunResult, error) {
	path := f.Path
	res, err := run.CompilePlaybookIn(f.Root, path, params, false) // f.Root "": anywhere
	if res != nil && r.warn != nil {
		for _, w := range res.Warnings {
			fmt.Fprintf(r.warn, "warning: %s\n", w)
		}
	}
	if err != nil {
		return engine.RunResult{Message: err.Error()}, r.bad(err)
	}
	fr, _ := r.svc.Playbook(ctx, run.PlaybookOptions{Target: r.target, File: path, Compiled: res})
	out := engine.RunResult{Success: fr.Status == "passed", Message: "playbook " + fr.Status, Steps: len(fr.Steps)}
	if fr.Error != "" {
		out.Message = fr.Error
	}
	return out, nil
}

// maxLuaJobBytes caps a Lua job's script.
const maxLuaJobBytes = 4 << 20

// runLuaFile runs a Lua script: no terminal output, the result as a
// RunResult. A path that is not a .lua file names a skill (its .md file
// or its name); the skill's replay runs with args as KEY=VALUE parameters.
func (r *serviceRuns) runLuaFile(ctx context.Context, f payloadFile, args []string) (engine.RunResult, error) {
	path := f.Path
	if !strings.HasSuffix(path, ".lua") {
		return r.runSkill(ctx, f, args)
	}
	var (
		src []byte
		err error
	)
	if f.Root != "" {
		src, err = hostfs.ReadFile(f.Root, path, maxLuaJobBytes)
	} else {
		src, err = hostfs.ReadRegular(path, maxLuaJobBytes) // a FIFO must not hang the gateway
	}
	if err != nil {
		return engine.RunResult{Message: err.Error()}, r.bad(fmt.Errorf("lua job: %w", err))
	}
	res, err := r.svc.Script(ctx, run.ScriptOptions{Target: r.target, Name: path, Source: src, Args: args})
	// A script that ran, failed or not, finished its session with a
	// message; none means nothing ran.
	if err != nil && res.Message == "" {
		return engine.RunResult{Message: err.Error()}, err // nothing ran
	}
	return res.RunResult, nil
}

// runSkill replays a skill by name or .md path without a model; with a
// root, a skill file the model may have named is read inside it.
func (r *serviceRuns) runSkill(ctx context.Context, f payloadFile, args []string) (engine.RunResult, error) {
	params, err := run.SkillParams(args)
	if err != nil {
		return engine.RunResult{}, r.bad(fmt.Errorf("lua job: %w", err))
	}
	res, err := r.svc.ReplaySkill(ctx, run.SkillRun{Target: r.target, Name: f.Path, Root: f.Root, Params: params})
	if se := (*run.SkillError)(nil); errors.As(err, &se) {
		return res, r.bad(err)
	}
	return res, err
}
