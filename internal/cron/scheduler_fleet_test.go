package cron

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-co-op/gocron/v2"
	"github.com/jonboulle/clockwork"
)

// memFleet is an in-memory Coordinator (the port; internal/fleet's Redis
// one has its own tests): claims are a shared set, every job is here.
type memFleet struct {
	// where, if set, places every run (default: here).
	where   *Placement
	mu      sync.Mutex
	claims  map[string]bool
	records []RunRecord
}

type noLock struct{}

func (noLock) Unlock(context.Context) error { return nil }

func (m *memFleet) Place(context.Context, Job) (Placement, error) {
	if m.where != nil {
		return *m.where, nil
	}
	return Placement{Where: Here}, nil
}

func (m *memFleet) Lock(_ context.Context, key string, _ time.Duration) (gocron.Lock, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.claims[key] {
		return nil, ErrTaken
	}
	m.claims[key] = true
	return noLock{}, nil
}

func (m *memFleet) Claim(_ context.Context, job string) (gocron.Lock, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.claims["run:"+job] {
		return nil, fmt.Errorf("run:%s still running on host-b: %w", job, ErrOverlap)
	}
	m.claims["run:"+job] = true
	return unclaim{m, "run:" + job}, nil
}

// unclaim frees a memFleet claim.
type unclaim struct {
	m   *memFleet
	key string
}

func (u unclaim) Unlock(context.Context) error {
	u.m.mu.Lock()
	defer u.m.mu.Unlock()
	delete(u.m.claims, u.key)
	return nil
}

func (m *memFleet) Record(_ context.Context, r RunRecord) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.records = append(m.records, r)
}

// TestFleetOneShotRunsOnce: a one-shot job in the same jobs.json on two
// hosts runs once at its time, and a third host started after that time
// (which alone would run a missed one-shot job at once) does not run it
// again: the claim is keyed by the job's time, not by when a host fires.
func TestFleetOneShotRunsOnce(t *testing.T) {
	shared := &memFleet{claims: map[string]bool{}}
	at := time.Now().Add(1500 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	jobs := jobsJSON(`{"id": "once", "enabled": true, "schedule": {"kind": "at", "at": "` + at + `"}, "payload": {"kind": "playbook", "path": "p.yaml"}}`)
	var runs atomic.Int32
	host := func() *Scheduler {
		dir := t.TempDir()
		jobsPath := filepath.Join(dir, "workspace", "cron", "jobs.json")
		writeFile(t, jobsPath, jobs)
		r := RunnerFunc(func(context.Context, Job) (bool, string, error) { runs.Add(1); return true, "ok", nil })
		s, err := New(jobsPath, filepath.Join(dir, "state", "cron-state.json"), r,
			Options{Clock: clockwork.NewRealClock(), Location: time.UTC, Fleet: shared})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Stop(context.Background()) })
		return s
	}
	host()
	host()
	deadline := time.Now().Add(waitLimit)
	for runs.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	if n := runs.Load(); n != 1 {
		t.Fatalf("the one-shot job ran %d times on two hosts, want once", n)
	}
	host() // starts after the time
	time.Sleep(1500 * time.Millisecond)
	if n := runs.Load(); n != 1 {
		t.Fatalf("a host started late ran the one-shot job again (%d runs)", n)
	}
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if len(shared.records) != 1 || shared.records[0].Status != StatusOK || shared.records[0].Tick.IsZero() {
		t.Fatalf("fleet records = %+v, want one ok run with its tick", shared.records)
	}
}

// TestFleetPhoneNowhereIsReported: a run whose phone is on no live host
// is not run and not silently dropped: the host that wins the tick
// reports it (an event, its state, the fleet's record), once per tick.
func TestFleetPhoneNowhereIsReported(t *testing.T) {
	start := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	h := newHarness(t, start, jobsJSON(everyJob("pinned", 60000, `, "device": "R58M1234"`)))
	shared := &memFleet{claims: map[string]bool{}, where: &Placement{Where: Nowhere, Reason: "phone R58M1234 is on no live host"}}
	h.s.opts.Fleet = shared
	h.start()
	h.advanceTo(start.Add(time.Minute))
	e := h.waitEvent(EventSkipped, "pinned")
	if !strings.Contains(e.Message, "no host of the fleet can run it: phone R58M1234 is on no live host") {
		t.Fatalf("skip message = %q", e.Message)
	}
	h.noCall(200 * time.Millisecond)
	if st := h.jobState("pinned"); st.LastStatus != StatusSkipped || !strings.Contains(st.LastMessage, "R58M1234") {
		t.Fatalf("state = %+v", st)
	}
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if len(shared.records) != 1 || shared.records[0].Status != StatusSkipped || !shared.records[0].Tick.Equal(start.Add(time.Minute)) {
		t.Fatalf("records = %+v, want one skip at the tick", shared.records)
	}
}

// TestJobAgentValidated: "agent" must be an agent id and cannot be given
// with "device" or "target" (the agent's binding names the phone); a
// good one is kept through a round trip, not an unknown field.
func TestJobAgentValidated(t *testing.T) {
	var f JobsFile
	f.Jobs = []Job{
		{ID: "ok", Agent: "shop", Schedule: Schedule{Kind: KindEvery, EveryMs: 60000}, Payload: Payload{Kind: PayloadAgentTurn, Task: "t"}},
		{ID: "bad", Agent: "Shop/1", Schedule: Schedule{Kind: KindEvery, EveryMs: 60000}, Payload: Payload{Kind: PayloadAgentTurn, Task: "t"}},
		{ID: "both", Agent: "shop", Device: "R58M1234", Schedule: Schedule{Kind: KindEvery, EveryMs: 60000}, Payload: Payload{Kind: PayloadAgentTurn, Task: "t"}},
	}
	probs := Validate("jobs.json", f, time.UTC)
	got := map[string]string{}
	for _, p := range probs {
		got[p.JobID] += p.Field + ": " + p.Message + "; "
	}
	if _, bad := got["ok"]; bad {
		t.Fatalf("a valid agent job has problems: %s", got["ok"])
	}
	if !strings.Contains(got["bad"], `agent: expected an agent id`) || !strings.Contains(got["bad"], `"Shop/1"`) {
		t.Fatalf("bad agent id: %q", got["bad"])
	}
	if !strings.Contains(got["both"], "agent: a job runs on the agent's bound phone: give device, target or agent, not several") {
		t.Fatalf("agent with device: %q", got["both"])
	}
	var j Job
	if err := j.UnmarshalJSON([]byte(`{"id": "x", "agent": "shop"}`)); err != nil || j.Agent != "shop" || len(j.Extra) != 0 {
		t.Fatalf("decoded %+v, %v", j, err)
	}
}

// TestJobOfAnotherAgentIsSkipped: a gateway runs its own agent's jobs;
// one naming another agent (outside a fleet, or placed here by mistake)
// is skipped with a message that says how to run it, never run on this
// agent's phone.
func TestJobOfAnotherAgentIsSkipped(t *testing.T) {
	start := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	h := newHarness(t, start, jobsJSON(everyJob("theirs", 60000, `, "agent": "shop"`), everyJob("mine", 60000, `, "agent": "default"`)))
	h.s.opts.Agent = "default"
	h.start()
	h.advanceTo(start.Add(time.Minute))
	e := h.waitEvent(EventSkipped, "theirs")
	if !strings.Contains(e.Message, "job names agent shop, this gateway serves agent default") || !strings.Contains(e.Message, "openpocket --agent shop cron add") {
		t.Fatalf("skip message = %q", e.Message)
	}
	if c := h.waitCall("mine"); c.id != "mine" {
		t.Fatalf("call = %+v", c)
	}
	h.noCall(200 * time.Millisecond)
}

// downFleet is a coordinator that cannot be asked (Redis away).
type downFleet struct{ memFleet }

func (*downFleet) Claim(context.Context, string) (gocron.Lock, error) {
	return nil, errors.New("redis 127.0.0.1:1: connection refused")
}

// TestManualRunTakesTheFleetsRunClaim: a manual run (cron run, Run now)
// of a fleet job holds the job's run claim while it runs; while another
// host runs the job it is busy, and with the fleet unreachable it is
// refused — in both cases the runner never starts.
func TestManualRunTakesTheFleetsRunClaim(t *testing.T) {
	shared := &memFleet{claims: map[string]bool{}}
	dir := t.TempDir()
	jobsPath := filepath.Join(dir, "workspace", "cron", "jobs.json")
	writeFile(t, jobsPath, jobsJSON(`{"id": "j", "enabled": true, "schedule": {"kind": "every", "everyMs": 3600000}, "payload": {"kind": "playbook", "path": "p.yaml"}}`))
	var runs atomic.Int32
	var claimedDuring atomic.Bool
	r := RunnerFunc(func(context.Context, Job) (bool, string, error) {
		runs.Add(1)
		shared.mu.Lock()
		claimedDuring.Store(shared.claims["run:j"])
		shared.mu.Unlock()
		return true, "ok", nil
	})
	newHost := func(c Coordinator) *Scheduler {
		s, err := New(jobsPath, filepath.Join(dir, "state", "cron-state.json"), r, Options{Clock: clockwork.NewRealClock(), Location: time.UTC, Fleet: c})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := newHost(shared)
	ctx := context.Background()

	shared.claims["run:j"] = true // another host runs j
	err := s.RunNow(ctx, "j")
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "still running on host-b") {
		t.Fatalf("manual run while another host runs the job: err = %v, want busy naming the host", err)
	}
	delete(shared.claims, "run:j")

	if err := s.RunNow(ctx, "j"); err != nil {
		t.Fatal(err)
	}
	if runs.Load() != 1 || !claimedDuring.Load() {
		t.Fatalf("runs = %d, claimed during the run = %t; want one run holding the claim", runs.Load(), claimedDuring.Load())
	}
	if shared.claims["run:j"] {
		t.Fatal("the run claim outlived the manual run")
	}

	err = newHost(&downFleet{}).RunNow(ctx, "j")
	if err == nil || !strings.Contains(err.Error(), "the fleet cannot be asked") {
		t.Fatalf("manual run with the fleet away: err = %v, want it refused", err)
	}
	if runs.Load() != 1 {
		t.Fatalf("the runner ran %d times, want only the one run with a claim", runs.Load())
	}
}
