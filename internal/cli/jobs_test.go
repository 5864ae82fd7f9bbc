package cli

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/workspace"
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
	env    JobRunnerEnv
}

func newFakeRuns() *fakeRuns { return &fakeRuns{} }

// runner is a JobRunnerFactory.
func (f *fakeRuns) runner(env JobRunnerEnv) cron.Runner {
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

// TestDefaultTarget: a run's "" target is the global flags' device, else
// the config's target.
func TestDefaultTarget(t *testing.T) {
	app := &App{Globals: Globals{Device: "emu-default", Target: "10.0.0.2:5555"}}
	serial, endpoint := app.services().commandSpec(nil, workspace.Config{}, leasesHeld).defaultTarget()
	assert.Equal(t, "emu-default", serial)
	assert.Equal(t, "10.0.0.2:5555", endpoint)
	var cfg workspace.Config
	cfg.Target.Device = "emu-config"
	serial, _ = (&App{}).services().commandSpec(nil, cfg, leasesHeld).defaultTarget()
	assert.Equal(t, "emu-config", serial, "without device flags the config's target")
}
