package cron

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-co-op/gocron/v2"
	"github.com/jonboulle/clockwork"

	"github.com/openpocket/openpocket/engine/hostfs"
)

// Runner runs one job (agent turn, playbook or Lua script). ok=false or a
// non-nil err records the run as failed; message is stored as lastMessage.
// Run must return promptly when ctx is cancelled.
type Runner interface {
	Run(ctx context.Context, job Job) (ok bool, message string, err error)
}

// RunnerFunc adapts a function to Runner.
type RunnerFunc func(ctx context.Context, job Job) (bool, string, error)

// Run calls f.
func (f RunnerFunc) Run(ctx context.Context, job Job) (bool, string, error) { return f(ctx, job) }

// Triggers say why a job ran.
const (
	TriggerSchedule = "schedule"
	TriggerStartup  = "startup"
	TriggerManual   = "manual"
)

// EventKind classifies scheduler events.
type EventKind string

// Event kinds.
const (
	EventStarted  EventKind = "started"  // a run began
	EventFinished EventKind = "finished" // a run ended; Status ok or fail
	EventSkipped  EventKind = "skipped"  // due while its device or itself was busy
	EventReloaded EventKind = "reloaded" // jobs.json was (re)loaded
	EventProblem  EventKind = "problem"  // an invalid job entry was skipped
	EventError    EventKind = "error"    // jobs.json unreadable, state not saved, ...
)

// Event reports what the scheduler did, for logs, UIs and tests.
type Event struct {
	Kind    EventKind
	JobID   string
	Trigger string
	At      time.Time
	Status  string
	Message string
	Err     error
}

// Options configures a Scheduler. Zero values get defaults.
type Options struct {
	// Clock drives gocron and the change watcher (default real clock).
	Clock clockwork.Clock
	// Logger receives scheduler logs (default: discarded).
	Logger *slog.Logger
	// OnEvent, if set, is called synchronously for every Event.
	OnEvent func(Event)
	// Location is the zone of jobs without schedule.tz (default Local).
	Location *time.Location
	// TickInterval is how often jobs.json is checked for changes
	// (config cron.tickSec; default 10 s).
	TickInterval time.Duration
	// DefaultDevice names the device of jobs without "device" in busy
	// messages and per-device exclusion (default "default").
	DefaultDevice string
	// Agent is the agent whose jobs these are (the gateway's); a job
	// naming another agent ("agent") is skipped and reported, as another
	// agent's runs cannot use this one's phone. "" checks nothing (a run
	// where the user types it).
	Agent string
	// Fleet, if set, coordinates scheduled runs with the other hosts of
	// a fleet (scheduler_fleet.go); nil runs every job here.
	Fleet Coordinator
}

// ErrBusy is wrapped by RunNow when the job or its device is busy. A
// Runner wraps it too when the device is held by another process (its
// lease): the run is then skipped, and a one-shot job retried.
var ErrBusy = errors.New("busy")

// ErrStopped is returned when the scheduler is stopping.
var ErrStopped = errors.New("scheduler stopped")

// RunInfo describes a running job.
type RunInfo struct {
	JobID     string
	Name      string
	Device    string
	Task      string
	Trigger   string
	StartedAt time.Time
}

type entry struct {
	c  compiled
	fp string
	gj gocron.Job
}

// Scheduler runs the jobs of a jobs file with gocron.
type Scheduler struct {
	jobsPath, statePath string
	runner              Runner
	opts                Options
	clock               clockwork.Clock
	log                 *slog.Logger

	gs gocron.Scheduler

	syncMu sync.Mutex // serializes Reload

	mu       sync.Mutex
	entries  map[string]*entry
	running  map[string]*RunInfo // job id → run
	busy     map[string]string   // device → job id
	reserved map[string]string   // device → job id claimed in a fleet, not yet started
	problems []Problem
	fileSig  fileSig
	started  bool
	stopping bool
	wg       sync.WaitGroup // runs

	runCtx     context.Context
	cancelRuns context.CancelFunc
	quit       chan struct{}
	watchDone  chan struct{}

	stateMu sync.Mutex
	state   State

	fleet fleetState
}

// fileSig identifies a version of the jobs file: modification time and
// size, plus a content hash because coarse mtimes can hide a same-size
// rewrite within one clock tick.
type fileSig struct {
	exists bool
	mod    time.Time
	size   int64
	sum    [sha256.Size]byte
}

func statSig(path string) fileSig {
	info, err := hostfs.Lstat(confine(path), path)
	if err != nil {
		return fileSig{}
	}
	sig := fileSig{exists: true, mod: info.ModTime(), size: info.Size()}
	if data, err := hostfs.ReadFile(confine(path), path, maxJobsBytes); err == nil {
		sig.sum = sha256.Sum256(data)
	}
	return sig
}

func (a fileSig) same(b fileSig) bool {
	return a.exists == b.exists && a.mod.Equal(b.mod) && a.size == b.size && a.sum == b.sum
}

// New creates a scheduler for a jobs file and a state file.
func New(jobsPath, statePath string, runner Runner, opts Options) (*Scheduler, error) {
	if runner == nil {
		return nil, errors.New("cron: New needs a Runner")
	}
	if opts.Clock == nil {
		opts.Clock = clockwork.NewRealClock()
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Location == nil {
		opts.Location = time.Local
	}
	if opts.TickInterval <= 0 {
		opts.TickInterval = 10 * time.Second
	}
	if opts.DefaultDevice == "" {
		opts.DefaultDevice = "default"
	}
	gs, err := gocron.NewScheduler(gocron.WithClock(opts.Clock), gocron.WithLocation(opts.Location))
	if err != nil {
		return nil, fmt.Errorf("cron: create scheduler: %w", err)
	}
	st, err := LoadState(statePath)
	if err != nil {
		opts.Logger.Warn("cron state unreadable; starting with empty state", "err", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Scheduler{
		jobsPath: jobsPath, statePath: statePath, runner: runner, opts: opts,
		clock: opts.Clock, log: opts.Logger, gs: gs,
		entries: map[string]*entry{}, running: map[string]*RunInfo{}, busy: map[string]string{}, reserved: map[string]string{},
		runCtx: ctx, cancelRuns: cancel, state: st, fleet: fleetState{pending: map[string]fleetTick{}},
		quit: make(chan struct{}), watchDone: make(chan struct{}),
	}, nil
}

func (s *Scheduler) emit(e Event) {
	if e.At.IsZero() {
		e.At = s.clock.Now()
	}
	if s.opts.OnEvent != nil {
		s.opts.OnEvent(e)
	}
}

// Start loads the jobs, starts gocron, fires runOnStartup jobs and starts
// watching jobs.json for changes. Cancelling ctx cancels running jobs like
// Stop does (call Stop to wait for them). A jobs file that cannot be read
// is logged and reported as an EventError; the watcher picks up the fix.
func (s *Scheduler) Start(ctx context.Context) error {
	s.mu.Lock()
	if s.started || s.stopping {
		s.mu.Unlock()
		return errors.New("cron: scheduler already started or stopped")
	}
	s.started = true
	s.mu.Unlock()
	context.AfterFunc(ctx, s.cancelRuns)

	_ = s.reload(false)
	s.gs.Start()
	s.refreshNextRuns()

	s.mu.Lock()
	var startup []Job
	for _, e := range s.entries {
		if e.c.job.RunOnStartup {
			startup = append(startup, e.c.job)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(startup, func(a, b Job) int { return strings.Compare(a.ID, b.ID) })
	for _, j := range startup {
		if s.opts.Fleet != nil {
			go s.startupInFleet(j)
			continue
		}
		go s.execute(s.runCtx, j, TriggerStartup)
	}
	t := s.clock.NewTicker(s.opts.TickInterval) // before returning, so no tick is missed
	go s.watch(t)
	return nil
}

func (s *Scheduler) watch(t clockwork.Ticker) {
	defer close(s.watchDone)
	defer t.Stop()
	for {
		select {
		case <-s.quit:
			return
		case <-t.Chan():
			s.mu.Lock()
			old := s.fileSig
			s.mu.Unlock()
			if !statSig(s.jobsPath).same(old) {
				_ = s.Reload()
			}
		}
	}
}

// Reload re-reads jobs.json and re-syncs the gocron jobs: new jobs are
// added, removed or disabled ones dropped, changed schedules re-registered.
// Invalid entries are reported (Problems, EventProblem) and skipped. On a
// read or syntax error the current jobs stay and the error is returned.
func (s *Scheduler) Reload() error { return s.reload(true) }

func (s *Scheduler) reload(refresh bool) error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	sig := statSig(s.jobsPath)
	f, problems, err := LoadJobs(s.jobsPath)
	s.mu.Lock()
	s.fileSig = sig
	s.mu.Unlock()
	if err != nil {
		s.log.Error("cron jobs file not loaded; keeping current jobs", "err", err)
		s.emit(Event{Kind: EventError, Message: err.Error(), Err: err})
		return err
	}
	for _, p := range problems {
		s.log.Warn("cron job skipped", "problem", p.Error())
		s.emit(Event{Kind: EventProblem, JobID: p.JobID, Message: p.Error(), Err: p})
	}

	now := s.clock.Now()
	desired := s.desiredJobs(f, now)
	s.mu.Lock()
	s.problems = problems
	s.mu.Unlock()
	remove, add := s.diffEntries(desired)
	s.applyChanges(remove, add, now)
	s.pruneState(f)
	if refresh {
		s.refreshNextRuns()
	}
	s.mu.Lock()
	n := len(s.entries)
	s.mu.Unlock()
	s.log.Info("cron jobs loaded", "scheduled", n, "problems", len(problems))
	s.emit(Event{Kind: EventReloaded, Message: fmt.Sprintf("%d jobs scheduled, %d problems", n, len(problems))})
	return nil
}

// desiredJobs are the enabled, valid jobs of f that should be scheduled
// (a one-shot job that already ran is not).
func (s *Scheduler) desiredJobs(f JobsFile, now time.Time) map[string]compiled {
	desired := map[string]compiled{}
	for i, j := range f.Jobs {
		if j.raw != nil || !j.Enabled || j.ID == "" {
			continue
		}
		if _, dup := desired[j.ID]; dup {
			continue
		}
		c, probs := compileJob(s.jobsPath, i, j, s.opts.Location, now)
		if len(probs) > 0 {
			continue
		}
		if j.Schedule.Kind == KindAt && s.atDone(c) {
			continue
		}
		desired[j.ID] = c
	}
	return desired
}

// diffEntries compares the scheduled entries with the desired jobs: the
// entries to remove (gone or changed schedule) are taken out of s.entries,
// the jobs to add are returned sorted by id; unchanged entries take the
// new payload and name.
func (s *Scheduler) diffEntries(desired map[string]compiled) (remove []*entry, add []compiled) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, e := range s.entries {
		d, ok := desired[id]
		if !ok || fingerprint(d) != e.fp {
			remove = append(remove, e)
			delete(s.entries, id)
		} else {
			e.c = d // payload, name etc. may have changed
		}
	}
	for id, d := range desired {
		if _, ok := s.entries[id]; !ok {
			add = append(add, d)
		}
	}
	slices.SortFunc(add, func(a, b compiled) int { return strings.Compare(a.job.ID, b.job.ID) })
	return remove, add
}

// applyChanges unregisters the removed entries from gocron and registers
// the added jobs; a job gocron refuses is reported as a problem.
func (s *Scheduler) applyChanges(remove []*entry, add []compiled, now time.Time) {
	for _, e := range remove {
		if err := s.gs.RemoveJob(e.gj.ID()); err != nil && !errors.Is(err, gocron.ErrJobNotFound) {
			s.log.Warn("cron: remove job", "job", e.c.job.ID, "err", err)
		}
		// Pending retries of a one-shot job carry its id as their tag; a
		// re-registered job schedules its own.
		s.gs.RemoveByTags(e.c.job.ID)
	}
	for _, c := range add {
		gj, err := s.register(c, now)
		if err != nil {
			p := Problem{File: s.jobsPath, JobID: c.job.ID, Field: "schedule", Message: err.Error()}
			s.log.Warn("cron job skipped", "problem", p.Error())
			s.emit(Event{Kind: EventProblem, JobID: c.job.ID, Message: p.Error(), Err: p})
			continue
		}
		s.mu.Lock()
		s.entries[c.job.ID] = &entry{c: c, fp: fingerprint(c), gj: gj}
		s.mu.Unlock()
	}
}

func fingerprint(c compiled) string {
	data, _ := json.Marshal(struct {
		S Schedule
		D string
	}{c.job.Schedule, c.job.Device})
	return string(data)
}

// atDone reports whether a one-shot job already had its run. An attempt
// that was skipped because the device was busy is not a run: the job
// stays scheduled (its retry pending) across reloads and restarts.
func (s *Scheduler) atDone(c compiled) bool {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	st := s.state.Jobs[c.job.ID]
	return st.LastAttemptAtMs != 0 && st.LastAttemptAtMs >= c.at.UnixMilli() && st.LastStatus != StatusSkipped
}

func (s *Scheduler) register(c compiled, now time.Time) (gocron.Job, error) {
	id := c.job.ID
	opts := []gocron.JobOption{
		gocron.WithName(id),
		gocron.WithTags(id),
		gocron.WithSingletonMode(gocron.LimitModeReschedule),
	}
	if s.opts.Fleet != nil {
		opts = append(opts, gocron.WithDistributedJobLocker(fleetLocker{s: s, id: id}))
	}
	var def gocron.JobDefinition
	switch c.job.Schedule.Kind {
	case KindCron:
		def = gocron.CronJob(c.cron.expr, false)
		opts = append(opts, gocron.WithCronImplementation(&tzCron{expr: c.cron.expr, loc: c.loc}))
	case KindEvery:
		def = gocron.DurationJob(c.every)
		if s.opts.Fleet != nil { // all hosts fire on the same ticks
			opts = append(opts, gocron.WithStartAt(gocron.WithStartDateTime(fleetStart(c.every, now))))
		}
	case KindAt:
		if c.at.After(now) {
			def = gocron.OneTimeJob(gocron.OneTimeJobStartDateTime(c.at))
		} else { // missed while not running: run once now
			def = gocron.OneTimeJob(gocron.OneTimeJobStartImmediately())
		}
	}
	task := gocron.NewTask(func() { s.fire(id) })
	return s.gs.NewJob(def, task, opts...)
}

// fire is the gocron task of a job.
func (s *Scheduler) fire(id string) {
	s.mu.Lock()
	e, ok := s.entries[id]
	s.mu.Unlock()
	if !ok {
		return
	}
	job := e.c.job
	tick, claimed := s.takeTick(id)
	if claimed && tick.device != "" {
		job.Device = tick.device // the idle phone of the job's type chosen here
	}
	s.executeRun(s.runCtx, job, TriggerSchedule, tick)
}

func (s *Scheduler) deviceKey(j Job) string {
	if j.Device != "" {
		return j.Device
	}
	return s.opts.DefaultDevice
}

func (s *Scheduler) updateState(id string, fn func(*JobState)) {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	st := s.state.Jobs[id]
	fn(&st)
	s.state.Jobs[id] = st
	if err := SaveState(s.statePath, s.state); err != nil {
		s.log.Error("cron state not saved", "err", err)
		s.emit(Event{Kind: EventError, JobID: id, Message: err.Error(), Err: err})
	}
}

// pruneState drops state of jobs no longer in the file.
func (s *Scheduler) pruneState(f JobsFile) {
	ids := map[string]bool{}
	for _, j := range f.Jobs {
		ids[j.ID] = true
	}
	s.stateMu.Lock()
	changed := false
	for id := range s.state.Jobs {
		if !ids[id] {
			delete(s.state.Jobs, id)
			changed = true
		}
	}
	var err error
	if changed {
		err = SaveState(s.statePath, s.state)
	}
	s.stateMu.Unlock()
	if err != nil {
		s.log.Error("cron state not saved", "err", err)
	}
}

// RunNow runs a job immediately on the caller's goroutine (also a disabled
// one), with the same per-job and per-device exclusion and state
// recording as scheduled runs; in a fleet, also with the job's run claim,
// so it never overlaps a run of the job on another host. It returns an error wrapping ErrBusy when
// the job or its device is busy, the runner's error, or an error when the
// run reported failure.
func (s *Scheduler) RunNow(ctx context.Context, id string) error {
	s.mu.Lock()
	e, ok := s.entries[id]
	s.mu.Unlock()
	var job Job
	if ok {
		job = e.c.job
	} else {
		f, _, err := LoadJobs(s.jobsPath)
		if err != nil {
			return err
		}
		var idx int
		found := false
		for i, j := range f.Jobs {
			if j.ID == id {
				job, idx, found = j, i, true
				break
			}
		}
		if !found {
			return fmt.Errorf("run job: no job with id %q in %s", id, s.jobsPath)
		}
		if job.raw != nil {
			return fmt.Errorf("run job %q: the entry in %s is malformed", id, s.jobsPath)
		}
		if _, probs := compileJob(s.jobsPath, idx, job, s.opts.Location, s.clock.Now()); len(probs) > 0 {
			return probs[0]
		}
	}
	lock, err := s.claimManual(ctx, job.ID)
	if err != nil {
		return fmt.Errorf("run job %q: %w", id, err)
	}
	if lock != nil {
		defer func() { _ = lock.Unlock(context.WithoutCancel(ctx)) }()
	}
	status, msg, err := s.execute(ctx, job, TriggerManual)
	switch {
	case err != nil:
		return fmt.Errorf("run job %q: %w", id, err)
	case status == StatusSkipped:
		return fmt.Errorf("run job %q: %s: %w", id, msg, ErrBusy)
	case status == StatusFail:
		return fmt.Errorf("run job %q failed: %s", id, msg)
	}
	return nil
}

// Stop stops scheduling, cancels the contexts of running jobs and waits
// for them to return (or for ctx to end), then shuts gocron down.
func (s *Scheduler) Stop(ctx context.Context) error {
	s.mu.Lock()
	if s.stopping {
		s.mu.Unlock()
		return nil
	}
	s.stopping = true
	started := s.started
	s.mu.Unlock()
	s.cancelRuns()
	close(s.quit)
	if started {
		<-s.watchDone
	}
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		var ids []string
		for _, r := range s.Running() {
			ids = append(ids, r.JobID)
		}
		// Stop gocron's timers anyway (nothing new starts: stopping is
		// set); its Shutdown waits for the stuck runs, so not here.
		go s.gs.Shutdown()
		return fmt.Errorf("cron: stop: jobs still running after cancel (%s): %w", strings.Join(ids, ", "), ctx.Err())
	}
	if err := s.gs.Shutdown(); err != nil {
		return fmt.Errorf("cron: stop: %w", err)
	}
	return nil
}
