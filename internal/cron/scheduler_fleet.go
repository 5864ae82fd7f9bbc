package cron

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/go-co-op/gocron/v2"
)

// A fleet is several gateways running the same jobs.json; a Coordinator
// (internal/fleet, over Redis) decides which host runs each scheduled run.
// The scheduler asks it through gocron's own distributed-locker option:
// every job carries a locker (fleetLocker) that places the run and takes
// the fleet-wide claim of the run's tick before gocron starts the task.

// Coordinator places and claims scheduled runs across the hosts of a fleet.
type Coordinator interface {
	// Place says which host a run of job belongs to. An error means the
	// fleet cannot be asked (Redis unreachable): the run is paused, never
	// run without a claim.
	Place(ctx context.Context, job Job) (Placement, error)
	// Lock claims one scheduled run fleet-wide. key names the job and its
	// tick; the claim outlives the run until hold has passed since it was
	// taken, so a host whose clock lags cannot run the same tick again.
	// The returned lock's Unlock is called when the run ends.
	Lock(ctx context.Context, key string, hold time.Duration) (gocron.Lock, error)
	// Record stores a run (or a run no host could take) in the fleet's
	// history.
	Record(ctx context.Context, r RunRecord)
	// Claim takes the run claim alone, for a manual run (cron run, a
	// dashboard's Run now): there is no tick to claim, but the job must
	// not run on two hosts at once. A run of the job elsewhere is an error
	// wrapping ErrOverlap; the returned lock's Unlock frees the claim.
	Claim(ctx context.Context, job string) (gocron.Lock, error)
}

// Where a run belongs.
type Where int

// Placements.
const (
	Here      Where = iota // this host has the job's phone (or any phone)
	Elsewhere              // another live host has it
	Nowhere                // no live host has it: reported, not run
)

// Placement is a Coordinator's answer for one run.
type Placement struct {
	Where Where
	// Device is the phone chosen on this host for a job that names a
	// target type ("" keeps the job's device).
	Device string
	// Reason says why a run goes elsewhere or nowhere.
	Reason string
}

// RunRecord is one run in the fleet's history.
type RunRecord struct {
	JobID   string    `json:"job"`
	Host    string    `json:"host"`
	Trigger string    `json:"trigger"`
	Tick    time.Time `json:"tick,omitzero"`
	Device  string    `json:"device,omitempty"`
	Start   time.Time `json:"startedAt"`
	End     time.Time `json:"finishedAt,omitzero"`
	Status  string    `json:"status"`
	Message string    `json:"message,omitempty"`
}

// EventFleet reports the coordinator becoming unreachable (Status
// "paused") or reachable again ("resumed").
const EventFleet EventKind = "fleet"

// errElsewhere and errNowhere stop gocron from starting a run this host
// does not own; gocron counts them as skipped.
var (
	errElsewhere = errors.New("fleet: another host runs this tick")
	errNowhere   = errors.New("fleet: no host can run this tick")
)

// fleetTick is what the locker learned about the run gocron starts next.
type fleetTick struct {
	tick   time.Time
	device string
}

// fleetState is the scheduler's view of its coordinator.
type fleetState struct {
	mu      sync.Mutex
	down    bool
	pending map[string]fleetTick // job id → the claimed tick, until fire
}

// FleetPaused reports whether fleet jobs are paused because the
// coordinator is unreachable (for the heartbeat and dashboards).
func (s *Scheduler) FleetPaused() bool {
	s.fleet.mu.Lock()
	defer s.fleet.mu.Unlock()
	return s.opts.Fleet != nil && s.fleet.down
}

// setFleetDown records a change of reachability once, as an event.
func (s *Scheduler) setFleetDown(down bool, err error) {
	s.fleet.mu.Lock()
	changed := s.fleet.down != down
	s.fleet.down = down
	s.fleet.mu.Unlock()
	if !changed {
		return
	}
	if down {
		msg := fmt.Sprintf("fleet coordinator unreachable (%v): fleet jobs paused", err)
		s.log.Warn(msg)
		s.emit(Event{Kind: EventFleet, Status: "paused", Message: msg, Err: err})
		return
	}
	s.log.Info("fleet coordinator reachable again: fleet jobs resume")
	s.emit(Event{Kind: EventFleet, Status: "resumed", Message: "fleet coordinator reachable again: fleet jobs resume"})
}

// fleetLocker is one job's gocron.Locker: place, then claim the tick.
type fleetLocker struct {
	s  *Scheduler
	id string
	// retry marks a one-shot job's retry (its own ticks).
	retry bool
}

// Lock implements gocron.Locker. gocron passes the job's name; the job's
// entry gives the schedule the tick is computed from.
func (l fleetLocker) Lock(ctx context.Context, _ string) (gocron.Lock, error) {
	s := l.s
	s.mu.Lock()
	e, ok := s.entries[l.id]
	s.mu.Unlock()
	if !ok {
		return nil, errElsewhere
	}
	now := s.clock.Now()
	tick, hold := tickOf(e.c, now)
	if l.retry {
		tick, hold = now.Round(AtRetryDelay), 30*24*time.Hour
	}
	job := e.c.job
	pl, err := s.opts.Fleet.Place(ctx, job)
	if err != nil {
		s.setFleetDown(true, err)
		return nil, err
	}
	if pl.Where == Elsewhere { // the owner claims it; no claim taken here
		s.setFleetDown(false, nil)
		return nil, errElsewhere
	}
	dev := s.deviceKey(job)
	if pl.Device != "" {
		dev = pl.Device
	}
	movable := job.Device == "" && job.Agent == "" // another host may take it
	if !s.reserve(job.ID, dev) && movable {
		// Busy here: leave the tick to a host whose phone is free. A
		// pinned job claims it anyway, so its skip is recorded.
		s.setFleetDown(false, nil)
		return nil, errBusyHere
	}
	key := job.ID + "@" + strconv.FormatInt(tick.UnixMilli(), 10)
	if l.retry {
		key += "/retry"
	}
	lock, err := s.opts.Fleet.Lock(ctx, key, hold)
	if err != nil {
		s.unreserve(job.ID, dev)
		if errors.Is(err, ErrOverlap) {
			s.fleetSkipped(job, tick, now, err.Error())
		}
		if !errors.Is(err, ErrTaken) {
			s.setFleetDown(true, err)
		} else {
			s.setFleetDown(false, nil)
		}
		return nil, err
	}
	s.setFleetDown(false, nil)
	if pl.Where == Nowhere { // reported once, by the host that won the claim
		s.unreserve(job.ID, dev)
		_ = lock.Unlock(ctx)
		s.fleetSkipped(job, tick, now, "no host of the fleet can run it: "+pl.Reason)
		return nil, errNowhere
	}
	s.fleet.mu.Lock()
	s.fleet.pending[job.ID] = fleetTick{tick: tick, device: pl.Device}
	s.fleet.mu.Unlock()
	return reservedLock{Lock: lock, s: s, id: job.ID, dev: dev}, nil
}

// errBusyHere: this host's phone for the run is busy; another host takes
// the tick.
var errBusyHere = errors.New("fleet: the phone here is busy; another host takes this tick")

// reserve marks dev busy with job id from the claim until the run starts
// (execute takes the reservation over), so two jobs firing on the same
// tick here do not both claim one phone. false when dev or the job is
// busy already.
func (s *Scheduler) reserve(id, dev string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, running := s.running[id]; running {
		return false
	}
	if other, busy := s.busy[dev]; busy && other != id {
		return false
	}
	s.busy[dev] = id
	s.reserved[dev] = id
	return true
}

// unreserve drops a reservation no run took over.
func (s *Scheduler) unreserve(id, dev string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reserved[dev] == id {
		delete(s.reserved, dev)
		if s.busy[dev] == id {
			if _, running := s.running[id]; !running {
				delete(s.busy, dev)
			}
		}
	}
}

// reservedLock drops the run's reservation with the claim (a no-op once
// the run took it over).
type reservedLock struct {
	gocron.Lock
	s       *Scheduler
	id, dev string
}

func (l reservedLock) Unlock(ctx context.Context) error {
	l.s.unreserve(l.id, l.dev)
	return l.Lock.Unlock(ctx)
}

// ErrTaken is wrapped by a Coordinator's Lock when another host holds the
// claim: the normal case of a fleet, not an outage.
var ErrTaken = errors.New("claimed by another host")

// ErrOverlap wraps ErrTaken when this host won the tick but the job's
// previous run still runs (here or elsewhere): the tick is skipped and
// reported by this host.
var ErrOverlap = fmt.Errorf("previous run still running: %w", ErrTaken)

// fleetSkipped reports a tick no host runs (its phone is on no live
// host, or the previous run still runs), once across the fleet: by the
// host that won the tick's claim.
func (s *Scheduler) fleetSkipped(job Job, tick, now time.Time, msg string) {
	s.fleetRecordSkip(job, TriggerSchedule, tick, now, msg)
}

// fleetRecordSkip records a run that did not happen in the job's state,
// as an event and in the fleet's history.
func (s *Scheduler) fleetRecordSkip(job Job, trigger string, tick, now time.Time, msg string) {
	s.updateState(job.ID, func(st *JobState) {
		st.LastAttemptAtMs = now.UnixMilli()
		st.LastStatus = StatusSkipped
		st.LastMessage = msg
	})
	s.emit(Event{Kind: EventSkipped, JobID: job.ID, Trigger: trigger, At: now, Status: StatusSkipped, Message: msg})
	s.opts.Fleet.Record(s.runCtx, RunRecord{JobID: job.ID, Trigger: trigger, Tick: tick, Start: now, Status: StatusSkipped, Message: msg})
}

// takeTick returns (and forgets) the tick the locker claimed for id.
func (s *Scheduler) takeTick(id string) (fleetTick, bool) {
	s.fleet.mu.Lock()
	defer s.fleet.mu.Unlock()
	t, ok := s.fleet.pending[id]
	delete(s.fleet.pending, id)
	return t, ok
}

// recordFleet stores a finished run in the fleet's history.
func (s *Scheduler) recordFleet(job Job, trigger string, tick fleetTick, start time.Time, status, msg string) {
	if s.opts.Fleet == nil {
		return
	}
	s.opts.Fleet.Record(s.runCtx, RunRecord{JobID: job.ID, Trigger: trigger, Tick: tick.tick, Device: s.deviceKey(job),
		Start: start, End: s.clock.Now(), Status: status, Message: truncate(msg, 500)})
}

// tickOf is the scheduled time a firing at now belongs to, and how long
// its claim is held. Every host computes the same tick for the same run:
// "every" schedules are aligned to multiples of their interval since the
// Unix epoch (fleetStart), cron schedules fire on whole minutes, a
// one-shot job has one time. A host whose clock is off by less than half
// the interval (half a minute for cron) still names the same tick.
func tickOf(c compiled, now time.Time) (tick time.Time, hold time.Duration) {
	switch c.job.Schedule.Kind {
	case KindEvery:
		return now.Round(c.every), max(2*c.every, time.Minute)
	case KindAt: // runs once: also on a host that starts after its time
		return c.at, 30 * 24 * time.Hour
	default:
		return now.Round(time.Minute), 10 * time.Minute
	}
}

// fleetStart is the first tick of an "every" job in a fleet: the next
// multiple of its interval, so all hosts fire together.
func fleetStart(every time.Duration, now time.Time) time.Time {
	return now.Truncate(every).Add(every)
}

// ErrFleetUnreachable is wrapped by a manual run refused because the
// fleet's coordinator does not answer.
var ErrFleetUnreachable = errors.New("the fleet cannot be asked")

// claimManual takes the fleet's run claim of a manual run of job (nil
// lock without a fleet). A run on another host makes it busy; a fleet that
// cannot be asked refuses it, as a scheduled run would be paused: the
// other hosts could not know of it.
func (s *Scheduler) claimManual(ctx context.Context, job string) (gocron.Lock, error) {
	if s.opts.Fleet == nil {
		return nil, nil
	}
	lock, err := s.opts.Fleet.Claim(ctx, job)
	switch {
	case errors.Is(err, ErrOverlap):
		s.setFleetDown(false, nil)
		return nil, fmt.Errorf("%v: %w", err, ErrBusy)
	case err != nil:
		s.setFleetDown(true, err)
		return nil, fmt.Errorf("%w (%v), so the other hosts would not know of this run; try again when Redis answers", ErrFleetUnreachable, err)
	}
	s.setFleetDown(false, nil)
	return lock, nil
}
