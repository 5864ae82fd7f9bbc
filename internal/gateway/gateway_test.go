package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/gwenv"
	"github.com/openpocket/openpocket/internal/workspace"
)

const gwWait = 10 * time.Second // real-time guard against hangs only

// gwBuffer is a goroutine-safe stderr.
type gwBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *gwBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *gwBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

type gwHarness struct {
	t      *testing.T
	home   string
	clock  *clockwork.FakeClock
	runs   *fakeRuns
	stderr *gwBuffer
	g      *Gateway
	cancel context.CancelFunc
	done   chan error
	calls  map[string][]fakeCall // by task
}

// newGwHome creates a home with the config edited by edit and jobs.json.
func newGwHome(t *testing.T, edit func(*workspace.Config), jobs string) string {
	t.Helper()
	t.Setenv(workspace.EnvHome, "")
	home := filepath.Join(t.TempDir(), "home")
	h, err := workspace.Open(home)
	require.NoError(t, err)
	cfg := h.Config()
	if edit != nil {
		edit(&cfg)
	}
	require.NoError(t, h.SaveConfig(cfg))
	if jobs != "" {
		require.NoError(t, os.WriteFile(h.JobsPath(), []byte(jobs), 0o644))
	}
	return home
}

func gwJobs(entries ...string) string {
	return `{"version": 2, "jobs": [` + strings.Join(entries, ",\n") + `]}`
}

func gwEvery(id string, everyMs int, task, extra string) string {
	return fmt.Sprintf(`{"id": %q, "name": %q, "enabled": true, "schedule": {"kind": "every", "everyMs": %d}, "payload": {"kind": "agent_turn", "task": %q}%s}`,
		id, id, everyMs, task, extra)
}

// startGateway runs the gateway on home with a fake clock and fake run
// functions until the test cancels it.
func startGateway(t *testing.T, home string, runs *fakeRuns) *gwHarness {
	t.Helper()
	ws, err := workspace.Open(home)
	require.NoError(t, err)
	return startGatewayWith(t, home, Options{Gateway: gwenv.Gateway{Home: ws, Config: ws.Config()}, runsFor: runs.runsFor}, runs)
}

// startGatewayWith runs the gateway with o (home, streams and clock set
// here) until the test cancels it.
func startGatewayWith(t *testing.T, home string, o Options, runs *fakeRuns) *gwHarness {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	h := &gwHarness{t: t, home: home, clock: clockwork.NewFakeClockAt(time.Date(2026, 3, 2, 7, 0, 0, 0, time.UTC)),
		runs: runs, stderr: &gwBuffer{}, cancel: cancel, done: make(chan error, 1), calls: map[string][]fakeCall{}}
	ready := make(chan *Gateway, 1)
	o.Stderr, o.StopTimeout, o.clock, o.started = h.stderr, gwWait, h.clock, func(g *Gateway) { ready <- g }
	go func() { h.done <- Serve(ctx, o) }()
	select {
	case h.g = <-ready:
	case err := <-h.done:
		t.Fatalf("gateway did not start: %v\n%s", err, h.stderr)
	case <-time.After(gwWait):
		t.Fatal("gateway did not start")
	}
	t.Cleanup(func() {
		cancel()
		select {
		case <-h.done:
		case <-time.After(gwWait):
			t.Error("gateway did not stop")
		}
	})
	return h
}

// waitCall waits for a run of task, advancing the fake clock by step
// while waiting (0 = do not advance).
func (h *gwHarness) waitCall(task string, step time.Duration) fakeCall {
	h.t.Helper()
	deadline := time.Now().Add(gwWait)
	for time.Now().Before(deadline) {
		if cs := h.calls[task]; len(cs) > 0 {
			h.calls[task] = cs[1:]
			return cs[0]
		}
		select {
		case c := <-h.runs.callCh:
			h.calls[c.Task] = append(h.calls[c.Task], c)
		case <-time.After(20 * time.Millisecond):
			if step > 0 {
				h.clock.Advance(step)
			}
		}
	}
	h.t.Fatalf("no run of %q; stderr:\n%s", task, h.stderr)
	return fakeCall{}
}

func (h *gwHarness) jobState(id string) cron.JobState {
	st, err := cron.LoadState(filepath.Join(h.home, "state", "cron-state.json"))
	require.NoError(h.t, err)
	return st.Jobs[id]
}

func (h *gwHarness) eventually(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(gwWait)
	for !cond() {
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s; stderr:\n%s", what, h.stderr)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stop cancels the gateway like SIGINT does and returns Run's error.
func (h *gwHarness) stop() error {
	h.t.Helper()
	h.cancel()
	select {
	case err := <-h.done:
		h.done <- err // for the cleanup
		return err
	case <-time.After(gwWait):
		h.t.Fatalf("gateway did not stop; stderr:\n%s", h.stderr)
	}
	return nil
}

func heartbeatLines(t *testing.T, home string) []cron.HeartbeatLine {
	t.Helper()
	f, err := os.Open(filepath.Join(home, "state", "heartbeat.log"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []cron.HeartbeatLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l cron.HeartbeatLine
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l))
		out = append(out, l)
	}
	return out
}

func TestGatewayRunsJobsAndStopsGracefully(t *testing.T) {
	home := newGwHome(t, func(c *workspace.Config) {
		c.Heartbeat.EverySec = 5
		c.Heartbeat.StuckTaskWarnSec = 20
	}, gwJobs(
		gwEvery("tick", 5000, "tick task", ""),
		gwEvery("long", 3600000, "long task", `, "runOnStartup": true, "device": "emu-2"`),
		`{"id": "bad", "name": "Bad", "schedule": {"kind": "cron", "expr": "0 25 * * *"}, "payload": {"kind": "agent_turn", "task": "x"}}`,
	))
	runs := newFakeRuns()
	runs.result = func(c fakeCall) (engine.RunResult, error) {
		if c.Task == "long task" {
			<-c.ctx.Done() // a run function stops at cancellation and finalizes its session
			return engine.RunResult{Message: "cancelled at step 2"}, c.ctx.Err()
		}
		return engine.RunResult{Success: true, Message: "ticked"}, nil
	}
	h := startGateway(t, home, runs)

	long := h.waitCall("long task", 0)
	assert.Equal(t, "emu-2", long.Device)
	tick := h.waitCall("tick task", time.Second)
	assert.Equal(t, "", tick.Device, "jobs without a device use the default")
	h.eventually("tick recorded", func() bool { return h.jobState("tick").LastStatus == cron.StatusOK })
	assert.Equal(t, "ticked", h.jobState("tick").LastMessage)

	// The heartbeat reports the running job; after stuckTaskWarnSec a
	// warning is printed once.
	h.eventually("stuck warning", func() bool {
		h.clock.Advance(time.Second)
		return strings.Contains(h.stderr.String(), `task "long task" on emu-2 has been running for`)
	})
	lines := heartbeatLines(t, home)
	require.NotEmpty(t, lines)
	last := lines[len(lines)-1]
	assert.True(t, last.Busy)
	assert.Equal(t, "long task", last.CurrentTask)
	assert.Equal(t, "emu-2", last.Device)
	assert.GreaterOrEqual(t, last.TaskRuntimeSec, int64(20))

	require.NoError(t, h.stop())
	require.Error(t, long.ctx.Err(), "the running job's context is cancelled")
	st := h.jobState("long")
	assert.Equal(t, cron.StatusFail, st.LastStatus)
	assert.Equal(t, "cancelled at step 2: context canceled", st.LastMessage)

	out := h.stderr.String()
	assert.Contains(t, out, "gateway started (pid ")
	assert.Contains(t, out, `warning: `+filepath.Join(home, "workspace", "cron", "jobs.json")+`: job "bad": schedule.expr: invalid cron expression "0 25 * * *"`)
	assert.Contains(t, out, "job long started (startup)")
	assert.Contains(t, out, "job tick started (schedule)")
	assert.Regexp(t, `job tick ok after \d+s: ticked`, out)
	assert.Regexp(t, `stopping: cancelling long(, tick)? and waiting up to 10s`, out)
	assert.Contains(t, out, "job long failed after ")
	assert.True(t, strings.HasSuffix(out, "gateway stopped\n"), out)
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ `, l, "one timestamped line per event off a terminal")
	}
	assert.NoFileExists(t, cron.GatewayLockPath(filepath.Join(home, "state")), "the lock is released")
}

func TestGatewayReload(t *testing.T) {
	home := newGwHome(t, nil, gwJobs(gwEvery("a", 60000, "a task", "")))
	h := startGateway(t, home, newFakeRuns())
	assert.Equal(t, []string{"a"}, h.g.sched.Scheduled())

	ws, err := workspace.Open(home)
	require.NoError(t, err)
	cfg := ws.Config()
	cfg.Heartbeat.EverySec = 7
	cfg.Models["fast"] = cfg.Models["default"]
	require.NoError(t, ws.SaveConfig(cfg))
	require.NoError(t, os.WriteFile(ws.JobsPath(), []byte(gwJobs(
		gwEvery("a", 60000, "a task", ""),
		gwEvery("b", 30000, "b task", `, "model": "fast"`),
		`{"id": "c", "schedule": {"kind": "every", "everyMs": 1000}, "payload": {"kind": "agent_turn", "task": "x"}}`,
	)), 0o644))

	require.NoError(t, h.g.Reload()) // what SIGUSR1 does
	assert.Equal(t, []string{"a", "b"}, h.g.sched.Scheduled(), "valid jobs run, invalid ones are skipped")
	assert.Contains(t, h.stderr.String(), `job "c": schedule.everyMs: must be at least 5000 (5 seconds), got 1000`)
	h.g.mu.Lock()
	assert.Equal(t, 7, h.g.cfg.Heartbeat.EverySec)
	assert.Contains(t, h.g.cfg.Models, "fast", "the next runs see the new config")
	h.g.mu.Unlock()

	// A broken config keeps the current one; jobs still reload.
	require.NoError(t, os.WriteFile(ws.ConfigPath(), []byte(`{"heartbeat": {"everySec": 0}}`), 0o600))
	require.NoError(t, os.WriteFile(ws.JobsPath(), []byte(gwJobs(gwEvery("b", 30000, "b task", ""))), 0o644))
	err = h.g.Reload()
	require.Error(t, err)
	assert.Contains(t, h.stderr.String(), "config not reloaded, keeping the current one: ")
	assert.Contains(t, err.Error(), "heartbeat.everySec")
	assert.Equal(t, []string{"b"}, h.g.sched.Scheduled())
	h.g.mu.Lock()
	assert.Equal(t, 7, h.g.cfg.Heartbeat.EverySec)
	h.g.mu.Unlock()

	// A jobs file with a syntax error keeps the current jobs.
	require.NoError(t, os.WriteFile(ws.JobsPath(), []byte(`{"version": 2, "jobs": [`), 0o644))
	require.Error(t, h.g.Reload())
	assert.Equal(t, []string{"b"}, h.g.sched.Scheduled())
	assert.Contains(t, h.stderr.String(), "error: ")
}

func TestGatewaySIGUSR1Reloads(t *testing.T) {
	home := newGwHome(t, nil, gwJobs(gwEvery("a", 60000, "a task", "")))
	h := startGateway(t, home, newFakeRuns())
	ws, err := workspace.Open(home)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(ws.JobsPath(), []byte(gwJobs(gwEvery("a", 60000, "a task", ""), gwEvery("b", 60000, "b task", ""))), 0o644))
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGUSR1))
	h.eventually("reload on SIGUSR1", func() bool { return len(h.g.sched.Scheduled()) == 2 })
	assert.Contains(t, h.stderr.String(), "SIGUSR1: reloading config and jobs")
}

func TestGatewayPrinterTTY(t *testing.T) {
	var out bytes.Buffer
	at := time.Date(2026, 3, 2, 7, 0, 0, 0, time.Local)
	p := &printer{w: &out, tty: true, clock: clockwork.NewFakeClockAt(at), started: map[string]time.Time{}}
	p.event(cron.Event{Kind: cron.EventStarted, JobID: "a", Trigger: cron.TriggerSchedule, At: at})
	p.event(cron.Event{Kind: cron.EventFinished, JobID: "a", Status: cron.StatusFail, Message: "no\nbutton", At: at.Add(75 * time.Second)})
	p.event(cron.Event{Kind: cron.EventSkipped, JobID: "b", Message: "device emu-1 busy with job a", At: at})
	p.line("■", "gateway stopped")
	assert.Equal(t, "07:00:00 ▶ job a started (schedule)\n"+
		"07:01:15 ✗ job a failed after 1m15s: no button\n"+
		"07:00:00 ⏭ job b skipped: device emu-1 busy with job a\n"+
		"07:00:00 ■ gateway stopped\n", out.String())
}
