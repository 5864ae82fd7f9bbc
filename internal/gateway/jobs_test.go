package gateway

import (
	"context"
	"errors"
	"maps"
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
	Root   string // the payload file's confinement ("" none)
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

func (d *fakeDeviceRuns) runPlaybook(ctx context.Context, f payloadFile, params map[string]string) (engine.RunResult, error) {
	return d.f.call(fakeCall{Kind: "playbook", Device: d.device, Path: f.Path, Root: f.Root, Params: params, ctx: ctx})
}

func (d *fakeDeviceRuns) runLuaFile(ctx context.Context, f payloadFile, args []string) (engine.RunResult, error) {
	return d.f.call(fakeCall{Kind: "lua", Device: d.device, Path: f.Path, Root: f.Root, Args: args, ctx: ctx})
}

func TestJobRunnerDispatchesPayloads(t *testing.T) {
	base := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(base, "flow.yaml"), []byte("x"), 0o644))
	f := newFakeRuns()
	r := newJobRunner(f.runsFor, base, "", nil)
	model := "fast"
	ctx := context.Background()

	ok, msg, err := r.Run(ctx, cron.Job{ID: "a", Device: "emu-1", Model: &model, Payload: cron.Payload{Kind: cron.PayloadAgentTurn, Task: "open settings"}})
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "done", msg)

	_, _, err = r.Run(ctx, cron.Job{ID: "b", Payload: cron.Payload{Kind: cron.PayloadPlaybook, Path: "flow.yaml", Params: map[string]string{"k": "v"}}})
	require.NoError(t, err)
	_, _, err = r.Run(ctx, cron.Job{ID: "c", Payload: cron.Payload{Kind: cron.PayloadLua, Path: "daily-check", Args: []string{"1", "two"}}})
	require.NoError(t, err)
	_, _, err = r.Run(ctx, cron.Job{ID: "d", Payload: cron.Payload{Kind: cron.PayloadLua, Path: "missing.lua"}})
	require.NoError(t, err)

	calls := f.recorded()
	require.Len(t, calls, 4)
	assert.Equal(t, fakeCall{Kind: "agent", Device: "emu-1", Task: "open settings", Model: "fast"}, stripCtx(calls[0]))
	assert.Equal(t, fakeCall{Kind: "playbook", Path: filepath.Join(base, "flow.yaml"), Root: base, Params: map[string]string{"k": "v"}}, stripCtx(calls[1]),
		"relative paths are the workspace's, read through a root there")
	assert.Equal(t, fakeCall{Kind: "lua", Path: "daily-check", Args: []string{"1", "two"}}, stripCtx(calls[2]), "a skill by name")
	assert.Equal(t, fakeCall{Kind: "lua", Path: filepath.Join(base, "missing.lua"), Root: base}, stripCtx(calls[3]),
		"an unsigned relative path is the workspace's even when missing there")
	assert.Equal(t, 4, f.cleanups, "every run is cleaned up")
}

func stripCtx(c fakeCall) fakeCall { c.ctx = nil; return c }

func TestJobRunnerResults(t *testing.T) {
	f := newFakeRuns()
	r := newJobRunner(f.runsFor, "", "", nil)
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

// TestPayloadPathsOutsideTheWorkspaceRunOnlyWhenSigned: jobs.json lives in
// the workspace, so the model can name any file as a job's payload. A path
// outside the workspace runs only when `cron add` signed it; unsigned, the
// job fails before any run (nothing reads the file) with a reason naming
// the job and how to fix it. A signed path keeps its signature only for
// that job id, kind and path. Paths inside the workspace are read through
// a root there, signed or not (the model can edit those files).
func TestPayloadPathsOutsideTheWorkspaceRunOnlyWhenSigned(t *testing.T) {
	ws, state, outside := t.TempDir(), t.TempDir(), t.TempDir()
	key, err := cron.DeliveryKey(state)
	require.NoError(t, err)
	f := newFakeRuns()
	r := newJobRunner(f.runsFor, ws, state, nil)
	secret := filepath.Join(outside, "passwd.yaml")

	up := "../" + filepath.Base(outside) + "/"
	for kind, paths := range map[string][]string{
		cron.PayloadPlaybook: {secret, up + "passwd.yaml"},
		cron.PayloadLua:      {filepath.Join(outside, "x.lua"), filepath.Join(outside, "SKILL.md"), up + "x.lua"},
	} {
		for _, path := range paths {
			job := cron.Job{ID: "evil", Payload: cron.Payload{Kind: kind, Path: path}}
			ok, _, err := r.Run(t.Context(), job)
			require.Error(t, err, "%s %s", kind, path)
			assert.False(t, ok)
			assert.Contains(t, err.Error(), "job evil: payload.path "+path+" is outside the workspace")
			assert.Contains(t, err.Error(), "openpocket cron add")
		}
	}
	assert.Empty(t, f.recorded(), "no run started for an unsigned outside path")

	signed := cron.Job{ID: "mine", Payload: cron.Payload{Kind: cron.PayloadPlaybook, Path: secret}}
	signed.SignPayload(key)
	_, _, err = r.Run(t.Context(), signed)
	require.NoError(t, err)
	require.Len(t, f.recorded(), 1)
	assert.Equal(t, fakeCall{Kind: "playbook", Path: secret}, stripCtx(f.recorded()[0]), "a signed outside path runs unconfined")

	for name, edit := range map[string]func(j *cron.Job){
		"path changed": func(j *cron.Job) { j.Payload.Path = filepath.Join(outside, "other.yaml") },
		"id changed":   func(j *cron.Job) { j.ID = "copy" },
		"kind changed": func(j *cron.Job) { j.Payload.Kind = cron.PayloadLua; j.Payload.Path = secret + ".lua" },
		"wrong key":    func(j *cron.Job) { j.SignPayload([]byte("0123456789abcdef0123456789abcdef")) },
		"delivery sig": func(j *cron.Job) {
			j.SignDelivery(cron.Delivery{Channel: "x", To: "y"}, key)
			j.Extra["payloadSig"] = j.Extra["deliverySig"]
		},
		"sig removed": func(j *cron.Job) { delete(j.Extra, "payloadSig") },
	} {
		j := signed
		j.Extra = maps.Clone(signed.Extra)
		edit(&j)
		_, _, err := r.Run(t.Context(), j)
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), "is outside the workspace", name)
	}
	assert.Len(t, f.recorded(), 1, "no edited job ran")

	in := cron.Job{ID: "ws", Payload: cron.Payload{Kind: cron.PayloadLua, Path: filepath.Join(ws, "a.lua")}}
	in.SignPayload(key)
	_, _, err = r.Run(t.Context(), in)
	require.NoError(t, err)
	assert.Equal(t, fakeCall{Kind: "lua", Path: filepath.Join(ws, "a.lua"), Root: ws}, stripCtx(f.recorded()[1]), "signed inside: still through the root")
}
