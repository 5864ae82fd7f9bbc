package gateway

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/skills"
)

// fakeCall is one call of a fake run function.
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

// fakeRuns stands in for the App's run functions. result decides each
// call's outcome; by default it succeeds with "done".
type fakeRuns struct {
	mu       sync.Mutex
	calls    []fakeCall
	callCh   chan fakeCall
	cleanups int
	result   func(c fakeCall) (engine.RunResult, error)
}

func newFakeRuns() *fakeRuns { return &fakeRuns{callCh: make(chan fakeCall, 100)} }

func (f *fakeRuns) runsFor(_ context.Context, device string) (jobRuns, func()) {
	return &fakeDeviceRuns{f: f, device: device}, func() {
		f.mu.Lock()
		f.cleanups++
		f.mu.Unlock()
	}
}

func (f *fakeRuns) call(c fakeCall) (engine.RunResult, error) {
	f.mu.Lock()
	f.calls = append(f.calls, c)
	res := f.result
	f.mu.Unlock()
	f.callCh <- c
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

type fakeDeviceRuns struct {
	f      *fakeRuns
	device string
}

func (d *fakeDeviceRuns) runAgent(ctx context.Context, task, model string) (engine.RunResult, error) {
	return d.f.call(fakeCall{Kind: "agent", Device: d.device, Task: task, Model: model, ctx: ctx})
}

func (d *fakeDeviceRuns) runPlaybook(ctx context.Context, path string, params map[string]string) (engine.RunResult, error) {
	return d.f.call(fakeCall{Kind: "playbook", Device: d.device, Path: path, Params: params, ctx: ctx})
}

func (d *fakeDeviceRuns) runLuaFile(ctx context.Context, path string, args []string) (engine.RunResult, error) {
	return d.f.call(fakeCall{Kind: "lua", Device: d.device, Path: path, Args: args, ctx: ctx})
}

func TestJobRunnerDispatchesPayloads(t *testing.T) {
	base := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(base, "flow.yaml"), []byte("x"), 0o644))
	f := newFakeRuns()
	r := newJobRunner(f.runsFor, base, nil)
	model := "fast"
	ctx := context.Background()

	ok, msg, err := r.Run(ctx, cron.Job{ID: "a", Device: "emu-1", Model: &model, Payload: cron.Payload{Kind: cron.PayloadAgentTurn, Task: "open settings"}})
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "done", msg)

	_, _, err = r.Run(ctx, cron.Job{ID: "b", Payload: cron.Payload{Kind: cron.PayloadPlaybook, Path: "flow.yaml", Params: map[string]string{"k": "v"}}})
	require.NoError(t, err)
	_, _, err = r.Run(ctx, cron.Job{ID: "c", Payload: cron.Payload{Kind: cron.PayloadLua, Path: "/abs/x.lua", Args: []string{"1", "two"}}})
	require.NoError(t, err)
	_, _, err = r.Run(ctx, cron.Job{ID: "d", Payload: cron.Payload{Kind: cron.PayloadLua, Path: "missing.lua"}})
	require.NoError(t, err)

	calls := f.recorded()
	require.Len(t, calls, 4)
	assert.Equal(t, fakeCall{Kind: "agent", Device: "emu-1", Task: "open settings", Model: "fast"}, stripCtx(calls[0]))
	assert.Equal(t, fakeCall{Kind: "playbook", Path: filepath.Join(base, "flow.yaml"), Params: map[string]string{"k": "v"}}, stripCtx(calls[1]),
		"relative paths found in the workspace are resolved there")
	assert.Equal(t, fakeCall{Kind: "lua", Path: "/abs/x.lua", Args: []string{"1", "two"}}, stripCtx(calls[2]))
	assert.Equal(t, "missing.lua", calls[3].Path, "unknown relative paths are passed through")
	assert.Equal(t, 4, f.cleanups, "every run is cleaned up")
}

func stripCtx(c fakeCall) fakeCall { c.ctx = nil; return c }

func TestJobRunnerResults(t *testing.T) {
	f := newFakeRuns()
	r := newJobRunner(f.runsFor, "", nil)
	job := cron.Job{ID: "j", Payload: cron.Payload{Kind: cron.PayloadAgentTurn, Task: "t"}}

	f.result = func(fakeCall) (engine.RunResult, error) {
		return engine.RunResult{Success: false, Message: "button not found"}, nil
	}
	ok, msg, err := r.Run(context.Background(), job)
	assert.NoError(t, err)
	assert.False(t, ok)
	assert.Equal(t, "button not found", msg)

	f.result = func(fakeCall) (engine.RunResult, error) { return engine.RunResult{}, nil }
	ok, msg, _ = r.Run(context.Background(), job)
	assert.False(t, ok)
	assert.Equal(t, "run failed (no message)", msg)

	boom := errors.New("device offline")
	f.result = func(fakeCall) (engine.RunResult, error) { return engine.RunResult{Message: "step 3"}, boom }
	ok, msg, err = r.Run(context.Background(), job)
	assert.ErrorIs(t, err, boom)
	assert.False(t, ok)
	assert.Equal(t, "step 3", msg)

	_, _, err = r.Run(context.Background(), cron.Job{ID: "odd", Payload: cron.Payload{Kind: "shell"}})
	assert.EqualError(t, err, `job odd: payload.kind: unknown kind "shell"; expected agent_turn, playbook or lua`)
	assert.Len(t, f.recorded(), 3)
}

func TestServiceRunsImplementJobRuns(t *testing.T) {
	_, ok := any(&serviceRuns{}).(jobRuns)
	assert.True(t, ok, "serviceRuns must have runAgent, runPlaybook and runLuaFile with the jobRuns signatures")
	_, ok = any(&serviceRuns{}).(deviceClaimer)
	assert.True(t, ok, "a job claims its device before its run")
}

// badInput marks errors for TestNewJobRunnerMarksBadInput.
type badInput struct{ err error }

func (b badInput) Error() string { return b.err.Error() }
func (b badInput) Unwrap() error { return b.err }

// TestNewJobRunnerMarksBadInput: the runner `cron run` uses marks bad
// input (a playbook that does not compile or is missing, a script that
// cannot be read, an unknown skill, a malformed skill parameter) with
// BadInput, so the command exits 2; without BadInput errors are left as
// they are (the gateway's).
func TestNewJobRunnerMarksBadInput(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.yaml")
	require.NoError(t, os.WriteFile(broken, []byte("steps: [\n"), 0o644))
	svc := run.New(run.Config{Skills: &skills.Loader{HomeDir: dir, WorkspaceDir: dir}})
	defer svc.Close()
	jobs := []cron.Payload{
		{Kind: cron.PayloadPlaybook, Path: broken},
		{Kind: cron.PayloadPlaybook, Path: filepath.Join(dir, "missing.yaml")},
		{Kind: cron.PayloadLua, Path: filepath.Join(dir, "missing.lua")},
		{Kind: cron.PayloadLua, Path: "no-such-skill"},
	}
	marked := NewJobRunner(JobRunnerOptions{Service: svc, BadInput: func(err error) error { return badInput{err} }})
	plain := NewJobRunner(JobRunnerOptions{Service: svc})
	for _, p := range jobs {
		_, _, err := marked.Run(t.Context(), cron.Job{ID: "j", Payload: p})
		var b badInput
		assert.ErrorAs(t, err, &b, "%s %s", p.Kind, p.Path)
		_, _, err = plain.Run(t.Context(), cron.Job{ID: "j", Payload: p})
		require.Error(t, err)
		assert.False(t, errors.As(err, &b), "%s %s", p.Kind, p.Path)
	}
}
