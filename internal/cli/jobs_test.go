package cli

import (
	"context"
	"slices"
	"sync"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/gwenv"
)

// The job runner's own tests (payload dispatch, results, the job's device
// claimed on the service) are internal/gateway's: `cron run` uses that
// runner (Deps.JobRunner). These fakes stand in for it in `cron run`'s
// tests.

// fakeCall is one job run the fake runner was asked for.
type fakeCall struct {
	Kind   string // agent, playbook, lua
	Device string
	Task   string
	Model  string
	Path   string
	Params map[string]string
	Args   []string
	ctx    context.Context
}

// fakeRuns is a fake job runner factory. result decides each run's
// outcome; by default it succeeds with "done". env is the last
// environment the command built a runner from.
type fakeRuns struct {
	mu     sync.Mutex
	calls  []fakeCall
	result func(c fakeCall) (engine.RunResult, error)
	env    gwenv.JobRunner
}

func newFakeRuns() *fakeRuns { return &fakeRuns{} }

// runner is a JobRunners.NewJobRunner.
func (f *fakeRuns) runner(env gwenv.JobRunner) cron.Runner {
	f.mu.Lock()
	f.env = env
	f.mu.Unlock()
	return fakeRunner{f}
}

type fakeRunner struct{ f *fakeRuns }

func (r fakeRunner) Run(ctx context.Context, job cron.Job) (bool, string, error) {
	c := fakeCall{Device: cron.DeviceOf(job), ctx: ctx}
	switch p := job.Payload; p.Kind {
	case cron.PayloadPlaybook:
		c.Kind, c.Path, c.Params = "playbook", p.Path, p.Params
	case cron.PayloadLua:
		c.Kind, c.Path, c.Args = "lua", p.Path, p.Args
	default:
		c.Kind, c.Task = "agent", p.Task
		if job.Model != nil {
			c.Model = *job.Model
		}
	}
	res, err := r.f.call(c)
	return res.Success, res.Message, err
}

func (f *fakeRuns) call(c fakeCall) (engine.RunResult, error) {
	f.mu.Lock()
	f.calls = append(f.calls, c)
	res := f.result
	f.mu.Unlock()
	if res != nil {
		return res(c)
	}
	return engine.RunResult{Success: true, Message: "done"}, nil
}

func (f *fakeRuns) recorded() []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func stripCtx(c fakeCall) fakeCall { c.ctx = nil; return c }
