package cron

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
)

const waitLimit = 10 * time.Second // real-time guard against hangs only

type call struct {
	id  string
	at  time.Time
	ctx context.Context
}

// fakeRunner reports each call and blocks jobs listed in hold until
// released or cancelled.
type fakeRunner struct {
	clock clockwork.Clock
	calls chan call
	mu    sync.Mutex
	hold  map[string]chan struct{}
	// busy: runs of these jobs report their device held elsewhere, once
	// per entry.
	busy map[string]int
}

func newFakeRunner(clk clockwork.Clock) *fakeRunner {
	return &fakeRunner{clock: clk, calls: make(chan call, 100), hold: map[string]chan struct{}{}}
}

func (r *fakeRunner) holdJob(id string) chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	ch := make(chan struct{})
	r.hold[id] = ch
	return ch
}

func (r *fakeRunner) Run(ctx context.Context, job Job) (bool, string, error) {
	r.calls <- call{id: job.ID, at: r.clock.Now(), ctx: ctx}
	r.mu.Lock()
	ch := r.hold[job.ID]
	busy := r.busy[job.ID] > 0
	if busy {
		r.busy[job.ID]--
	}
	r.mu.Unlock()
	if busy {
		return false, "", fmt.Errorf("%w: device emu-1 is in use by pid 1 (openpocket agent)", ErrBusy)
	}
	if ch != nil {
		select {
		case <-ch:
		case <-ctx.Done():
			return false, "cancelled", ctx.Err()
		}
	}
	return true, "done " + job.ID, nil
}

type harness struct {
	t        *testing.T
	clock    *clockwork.FakeClock
	runner   *fakeRunner
	s        *Scheduler
	events   chan Event
	jobsPath string
	state    string
}

func newHarness(t *testing.T, start time.Time, jobs string) *harness {
	t.Helper()
	dir := t.TempDir()
	h := &harness{t: t, clock: clockwork.NewFakeClockAt(start), events: make(chan Event, 1000),
		jobsPath: filepath.Join(dir, "workspace", "cron", "jobs.json"), state: filepath.Join(dir, "state", "cron-state.json")}
	if jobs != "" {
		writeFile(t, h.jobsPath, jobs)
	}
	h.runner = newFakeRunner(h.clock)
	s, err := New(h.jobsPath, h.state, h.runner, Options{Clock: h.clock, Location: time.UTC, TickInterval: 10 * time.Second,
		OnEvent: func(e Event) { h.events <- e }})
	if err != nil {
		t.Fatal(err)
	}
	h.s = s
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		if err := s.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return h
}

func (h *harness) start() {
	h.t.Helper()
	if err := h.s.Start(context.Background()); err != nil {
		h.t.Fatal(err)
	}
	h.waitEvent(EventReloaded, "")
}

func (h *harness) waitCall(id string) call {
	h.t.Helper()
	select {
	case c := <-h.runner.calls:
		if c.id != id {
			h.t.Fatalf("runner called for %q, want %q", c.id, id)
		}
		return c
	case <-time.After(waitLimit):
		h.t.Fatalf("job %q was not run", id)
	}
	return call{}
}

func (h *harness) noCall(d time.Duration) {
	h.t.Helper()
	select {
	case c := <-h.runner.calls:
		h.t.Fatalf("unexpected run of %q at %v", c.id, c.at)
	case <-time.After(d):
	}
}

func (h *harness) waitEvent(kind EventKind, id string) Event {
	h.t.Helper()
	deadline := time.After(waitLimit)
	for {
		select {
		case e := <-h.events:
			if e.Kind == kind && e.JobID == id {
				return e
			}
		case <-deadline:
			h.t.Fatalf("no %s event for job %q", kind, id)
		}
	}
}

// settle waits until gocron has finished the job's last run and scheduled
// its next run after now, so advancing the fake clock does not race with
// gocron's bookkeeping (its singleton limiter is released a moment after
// the task returns, hence the short real-time pause).
func (h *harness) settle(id string) time.Time {
	h.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for time.Now().Before(deadline) {
		h.s.mu.Lock()
		e, ok := h.s.entries[id]
		_, mine := h.s.running[id]
		h.s.mu.Unlock()
		if ok && !mine {
			if running, _ := e.gj.IsRunning(); !running {
				runs, _ := e.gj.NextRuns(3)
				for _, t := range runs {
					if t.After(h.clock.Now()) {
						time.Sleep(20 * time.Millisecond)
						return t
					}
				}
			}
		}
		time.Sleep(time.Millisecond)
	}
	h.t.Fatalf("job %q never got a next run after %v", id, h.clock.Now())
	return time.Time{}
}

// eventually polls cond, advancing the fake clock by one watcher tick now
// and then so the jobs.json watcher gets to run.
func (h *harness) eventually(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for i := 0; !cond(); i++ {
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s", what)
		}
		if i%20 == 19 {
			h.clock.Advance(10 * time.Second)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (h *harness) advanceTo(t time.Time) { h.clock.Advance(t.Sub(h.clock.Now())) }

func (h *harness) jobState(id string) JobState {
	h.t.Helper()
	st, err := LoadState(h.state)
	if err != nil {
		h.t.Fatal(err)
	}
	return st.Jobs[id]
}

func jobsJSON(entries ...string) string {
	return `{"version": 2, "jobs": [` + strings.Join(entries, ",\n") + `]}`
}

func everyJob(id string, everyMs int, extra string) string {
	return fmt.Sprintf(`{"id": %q, "name": %q, "enabled": true, "schedule": {"kind": "every", "everyMs": %d}, "payload": {"kind": "agent_turn", "task": "task %s"}%s}`, id, id, everyMs, id, extra)
}

func TestSchedulerCronAcrossSpringForward(t *testing.T) {
	h := newHarness(t, time.Date(2026, 3, 28, 12, 0, 0, 0, time.UTC), jobsJSON(
		`{"id": "nightly", "enabled": true, "schedule": {"kind": "cron", "expr": "30 2 * * *", "tz": "Europe/Berlin"}, "payload": {"kind": "agent_turn", "task": "t"}}`))
	h.start()
	next := h.settle("nightly")
	if want := time.Date(2026, 3, 29, 1, 30, 0, 0, time.UTC); !next.Equal(want) { // 03:30 CEST
		t.Fatalf("next run = %v, want %v", next, want)
	}
	if st := h.jobState("nightly"); st.NextRunAtMs != next.UnixMilli() {
		t.Fatalf("state nextRunAtMs = %d, want %d", st.NextRunAtMs, next.UnixMilli())
	}
	h.advanceTo(next)
	c := h.waitCall("nightly")
	if !c.at.Equal(next) {
		t.Fatalf("ran at %v, want %v", c.at, next)
	}
	h.waitEvent(EventFinished, "nightly")
	next = h.settle("nightly")
	if want := time.Date(2026, 3, 30, 0, 30, 0, 0, time.UTC); !next.Equal(want) { // 02:30 CEST
		t.Fatalf("following run = %v, want %v", next, want)
	}
	st := h.jobState("nightly")
	if st.LastStatus != StatusOK || st.LastMessage != "done nightly" || st.LastRunAtMs != c.at.UnixMilli() || st.NextRunAtMs != next.UnixMilli() {
		t.Fatalf("state = %+v", st)
	}
}

func TestSchedulerEveryAndAt(t *testing.T) {
	start := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	h := newHarness(t, start, jobsJSON(
		everyJob("every", 60000, ""),
		`{"id": "once", "enabled": true, "schedule": {"kind": "at", "at": "2026-05-01T08:00:30Z"}, "payload": {"kind": "playbook", "path": "p.yaml"}}`))
	h.start()
	h.advanceTo(start.Add(30 * time.Second))
	h.waitCall("once")
	h.waitEvent(EventFinished, "once")
	h.settle("every")
	h.advanceTo(start.Add(60 * time.Second))
	h.waitCall("every")
	h.waitEvent(EventFinished, "every")
	h.settle("every")
	h.advanceTo(start.Add(120 * time.Second))
	h.waitCall("every")
	h.waitEvent(EventFinished, "every")
	// The one-shot job is disabled in jobs.json and never runs again.
	f, _, err := LoadJobs(h.jobsPath)
	if err != nil {
		t.Fatal(err)
	}
	if j, _ := f.Find("once"); j.Enabled {
		t.Fatalf("at job still enabled after its run")
	}
	// The watcher reloads the changed file and drops the one-shot job.
	h.eventually("only every scheduled", func() bool { return strings.Join(h.s.Scheduled(), ",") == "every" })
	if st := h.jobState("once"); st.LastStatus != StatusOK || st.NextRunAtMs != 0 {
		t.Fatalf("once state = %+v", st)
	}
}

func TestSchedulerRunOnStartup(t *testing.T) {
	h := newHarness(t, time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC), jobsJSON(
		everyJob("boot", 3600000, `, "runOnStartup": true`), everyJob("later", 3600000, "")))
	h.start()
	c := h.waitCall("boot")
	if !c.at.Equal(time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)) {
		t.Fatalf("startup run at %v", c.at)
	}
	h.waitEvent(EventFinished, "boot")
	h.noCall(100 * time.Millisecond)
}

func TestSchedulerSingletonAndDeviceBusy(t *testing.T) {
	start := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	h := newHarness(t, start, jobsJSON(
		everyJob("long", 10000, `, "device": "emu-1"`),
		everyJob("other", 20000, `, "device": "emu-1"`),
		everyJob("elsewhere", 20000, `, "device": "emu-2"`)))
	release := h.runner.holdJob("long")
	h.start()
	h.advanceTo(start.Add(10 * time.Second))
	h.waitCall("long")
	time.Sleep(20 * time.Millisecond)
	h.advanceTo(start.Add(20 * time.Second))
	// "other" shares emu-1 and is skipped; "elsewhere" runs on emu-2;
	// "long" is not started a second time.
	h.waitCall("elsewhere")
	e := h.waitEvent(EventSkipped, "other")
	if e.Message != "device emu-1 busy with job long" {
		t.Fatalf("skip message = %q", e.Message)
	}
	time.Sleep(20 * time.Millisecond)
	h.advanceTo(start.Add(30 * time.Second))
	h.noCall(100 * time.Millisecond)
	st := h.jobState("other")
	if st.LastStatus != StatusSkipped || st.LastMessage != "device emu-1 busy with job long" || st.LastAttemptAtMs != start.Add(20*time.Second).UnixMilli() || st.LastRunAtMs != 0 {
		t.Fatalf("other state = %+v", st)
	}
	if err := h.s.RunNow(context.Background(), "other"); err == nil || !strings.Contains(err.Error(), "device emu-1 busy with job long") {
		t.Fatalf("RunNow while busy: %v", err)
	}
	close(release)
	h.waitEvent(EventFinished, "long")
	if err := h.s.RunNow(context.Background(), "other"); err != nil {
		t.Fatalf("RunNow after release: %v", err)
	}
	h.waitCall("other")
	if st := h.jobState("other"); st.LastStatus != StatusOK {
		t.Fatalf("other after RunNow = %+v", st)
	}
}

func TestSchedulerMalformedJobBesideValid(t *testing.T) {
	start := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	h := newHarness(t, start, jobsJSON(
		`{"id": "bad", "enabled": true, "schedule": {"kind": "cron", "expr": "not a cron"}, "payload": {"kind": "agent_turn", "task": "t"}}`,
		`{"id": "broken", "schedule": 5}`,
		everyJob("good", 60000, "")))
	h.start()
	probs := h.s.Problems()
	if len(probs) != 2 || !strings.Contains(probs[0].Error(), `jobs.json: job "broken": schedule: expected an object`) ||
		!strings.Contains(probs[1].Error(), `jobs.json: job "bad": schedule.expr: invalid cron expression "not a cron"`) {
		t.Fatalf("problems = %v", probs)
	}
	h.advanceTo(start.Add(time.Minute))
	h.waitCall("good")
}

func TestSchedulerHotReload(t *testing.T) {
	start := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	h := newHarness(t, start, jobsJSON(everyJob("a", 60000, "")))
	h.start()
	if ids := h.s.Scheduled(); strings.Join(ids, ",") != "a" {
		t.Fatalf("scheduled = %v", ids)
	}
	writeFile(t, h.jobsPath, jobsJSON(everyJob("b", 30000, "")))
	h.clock.Advance(10 * time.Second)
	h.waitEvent(EventReloaded, "")
	if ids := h.s.Scheduled(); strings.Join(ids, ",") != "b" {
		t.Fatalf("after reload scheduled = %v, want b", ids)
	}
	next := h.settle("b")
	if want := start.Add(40 * time.Second); !next.Equal(want) {
		t.Fatalf("b next = %v, want %v", next, want)
	}
	h.advanceTo(next)
	h.waitCall("b")
	// A syntax error keeps the current jobs.
	writeFile(t, h.jobsPath, `{"version": 2, "jobs": [`)
	h.clock.Advance(10 * time.Second)
	e := h.waitEvent(EventError, "")
	if !strings.Contains(e.Message, "jobs.json:1:25: malformed JSON") {
		t.Fatalf("error event = %q", e.Message)
	}
	if ids := h.s.Scheduled(); strings.Join(ids, ",") != "b" {
		t.Fatalf("after bad file scheduled = %v, want b", ids)
	}
}

func TestSchedulerLegacyFileRuns(t *testing.T) {
	start := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	h := newHarness(t, start, `{"jobs": [{"id": "legacy", "name": "L", "enabled": true, "everySec": 30, "task": "do it", "chatId": null, "model": null, "runOnStartup": false}]}`)
	h.start()
	h.advanceTo(start.Add(30 * time.Second))
	h.waitCall("legacy")
}

func TestSchedulerStopCancelsAndWaits(t *testing.T) {
	start := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	h := newHarness(t, start, jobsJSON(everyJob("long", 10000, "")))
	h.runner.holdJob("long")
	h.start()
	h.advanceTo(start.Add(10 * time.Second))
	c := h.waitCall("long")
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := h.s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if c.ctx.Err() == nil {
		t.Fatal("running job's context was not cancelled")
	}
	// Stop returned only after the run finished and was recorded.
	if st := h.jobState("long"); st.LastStatus != StatusFail || !strings.Contains(st.LastMessage, "context canceled") {
		t.Fatalf("state after stop = %+v", st)
	}
	if len(h.s.Running()) != 0 {
		t.Fatalf("still running: %v", h.s.Running())
	}
}

// TestSchedulerAtJobRetriesWhileDeviceBusy: a one-shot job due while its
// device is busy is not lost; it runs once the device is free.
func TestSchedulerAtJobRetriesWhileDeviceBusy(t *testing.T) {
	start := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	h := newHarness(t, start, jobsJSON(
		// Runs once at startup and then not for an hour, so nothing but
		// the retry can use the device later in the test.
		everyJob("long", 3600000, `, "device": "emu-1", "runOnStartup": true`),
		`{"id": "once", "enabled": true, "device": "emu-1", "schedule": {"kind": "at", "at": "2026-05-01T08:00:15Z"}, "payload": {"kind": "playbook", "path": "p.yaml"}}`))
	release := h.runner.holdJob("long")
	h.start()
	h.waitCall("long")
	time.Sleep(20 * time.Millisecond)
	h.advanceTo(start.Add(15 * time.Second))
	e := h.waitEvent(EventSkipped, "once")
	if !strings.Contains(e.Message, "device emu-1 busy with job long; retrying in 30s") {
		t.Fatalf("skip message = %q", e.Message)
	}
	f, _, err := LoadJobs(h.jobsPath)
	if err != nil {
		t.Fatal(err)
	}
	if j, _ := f.Find("once"); !j.Enabled {
		t.Fatal("a skipped one-shot job was disabled before it ran")
	}
	close(release)
	h.waitEvent(EventFinished, "long")
	time.Sleep(20 * time.Millisecond)
	h.advanceTo(start.Add(45 * time.Second))
	h.waitCall("once")
	h.waitEvent(EventFinished, "once")
	if st := h.jobState("once"); st.LastStatus != StatusOK {
		t.Fatalf("once state after the retry = %+v", st)
	}
	h.eventually("the one-shot job disabled after its run", func() bool {
		f, _, err := LoadJobs(h.jobsPath)
		j, _ := f.Find("once")
		return err == nil && !j.Enabled
	})
}

// TestSchedulerAtJobRetrySurvivesReload: a one-shot job skipped because
// its device was busy is still run after jobs.json is reloaded (edited by
// another writer) while the device is still busy.
func TestSchedulerAtJobRetrySurvivesReload(t *testing.T) {
	start := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	once := `{"id": "once", "enabled": true, "device": "emu-1", "schedule": {"kind": "at", "at": "2026-05-01T08:00:15Z"}, "payload": {"kind": "playbook", "path": "p.yaml"}}`
	long := everyJob("long", 3600000, `, "device": "emu-1", "runOnStartup": true`)
	h := newHarness(t, start, jobsJSON(long, once))
	release := h.runner.holdJob("long")
	h.start()
	h.waitCall("long")
	time.Sleep(20 * time.Millisecond)
	h.advanceTo(start.Add(15 * time.Second))
	h.waitEvent(EventSkipped, "once")

	// Another process adds a job; the gateway reloads while "long" still
	// holds the device.
	writeFile(t, h.jobsPath, jobsJSON(long, once, everyJob("other", 3600000, `, "device": "emu-2"`)))
	if err := h.s.Reload(); err != nil {
		t.Fatal(err)
	}
	h.waitEvent(EventReloaded, "")
	h.s.mu.Lock()
	_, scheduled := h.s.entries["once"]
	h.s.mu.Unlock()
	if !scheduled {
		t.Fatal("the reload dropped the one-shot job whose retry was pending")
	}

	close(release)
	h.waitEvent(EventFinished, "long")
	time.Sleep(20 * time.Millisecond)
	h.advanceTo(start.Add(45 * time.Second))
	h.waitCall("once")
	h.waitEvent(EventFinished, "once")
	if st := h.jobState("once"); st.LastStatus != StatusOK {
		t.Fatalf("once state after the retry = %+v", st)
	}
}

// TestSchedulerAtJobRetriesWhileAnotherProcessHoldsTheDevice: a one-shot
// run refused because another process holds the device's lease is skipped
// and retried, not failed and disabled.
func TestSchedulerAtJobRetriesWhileAnotherProcessHoldsTheDevice(t *testing.T) {
	start := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	h := newHarness(t, start, jobsJSON(
		`{"id": "once", "enabled": true, "device": "emu-1", "schedule": {"kind": "at", "at": "2026-05-01T08:00:15Z"}, "payload": {"kind": "playbook", "path": "p.yaml"}}`))
	h.runner.busy = map[string]int{"once": 1}
	h.start()
	h.advanceTo(start.Add(15 * time.Second))
	h.waitCall("once")
	e := h.waitEvent(EventSkipped, "once")
	if !strings.Contains(e.Message, "in use by pid 1 (openpocket agent)") || !strings.Contains(e.Message, "retrying in 30s") {
		t.Fatalf("skip message = %q", e.Message)
	}
	f, _, err := LoadJobs(h.jobsPath)
	if err != nil {
		t.Fatal(err)
	}
	if j, _ := f.Find("once"); !j.Enabled {
		t.Fatal("a one-shot job refused for a busy device was disabled")
	}
	time.Sleep(20 * time.Millisecond)
	h.advanceTo(start.Add(45 * time.Second))
	h.waitCall("once")
	h.waitEvent(EventFinished, "once")
	if st := h.jobState("once"); st.LastStatus != StatusOK {
		t.Fatalf("once state after the retry = %+v", st)
	}
}
