package cron

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-co-op/gocron/v2"
)

// execute runs a job unless it or its device is busy, and records state.
func (s *Scheduler) execute(parent context.Context, job Job, trigger string) (status, message string, err error) {
	return s.executeRun(parent, job, trigger, fleetTick{})
}

// executeRun is execute of a run whose fleet tick (if any) is known: the
// run's record in the fleet's history names it.
func (s *Scheduler) executeRun(parent context.Context, job Job, trigger string, tick fleetTick) (status, message string, err error) {
	now := s.clock.Now()
	dev := s.deviceKey(job)
	s.mu.Lock()
	if s.stopping {
		s.mu.Unlock()
		return "", "", ErrStopped
	}
	skip := ""
	deviceBusy := false
	if s.opts.Agent != "" && job.Agent != "" && job.Agent != s.opts.Agent {
		skip = fmt.Sprintf("job names agent %s, this gateway serves agent %s: run it in a fleet with a gateway of %s, or add it to %s's jobs (openpocket --agent %s cron add)",
			job.Agent, s.opts.Agent, job.Agent, job.Agent, job.Agent)
	} else if _, running := s.running[job.ID]; running {
		skip = fmt.Sprintf("job %s already running", job.ID)
	} else if other, busy := s.busy[dev]; busy && !(other == job.ID && s.reserved[dev] == job.ID) {
		skip = fmt.Sprintf("device %s busy with job %s", dev, other)
		deviceBusy = true
	}
	if skip != "" {
		s.mu.Unlock()
		status, message, err = s.skip(job, trigger, now, skip, deviceBusy)
		s.recordFleet(job, trigger, tick, now, status, message)
		return status, message, err
	}
	ctx, cancel := context.WithCancel(parent)
	stopOnShutdown := context.AfterFunc(s.runCtx, cancel)
	delete(s.reserved, dev) // the run takes its reservation over
	s.running[job.ID] = &RunInfo{JobID: job.ID, Name: job.Name, Device: dev, Task: describe(job), Trigger: trigger, StartedAt: now}
	s.busy[dev] = job.ID
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done() // after state is recorded, so Stop waits for it
	release := func() {
		stopOnShutdown()
		cancel()
		s.mu.Lock()
		delete(s.running, job.ID)
		delete(s.busy, dev)
		s.mu.Unlock()
	}

	s.updateState(job.ID, func(st *JobState) {
		st.LastAttemptAtMs = now.UnixMilli()
		st.LastRunAtMs = now.UnixMilli()
	})
	s.log.Info("cron job started", "job", job.ID, "trigger", trigger, "device", dev)
	s.emit(Event{Kind: EventStarted, JobID: job.ID, Trigger: trigger, At: now})

	ok, msg, runErr := s.safeRun(ctx, job)
	release() // the device is free before anyone hears the run ended
	if errors.Is(runErr, ErrBusy) {
		// Another process holds the device (its lease): the run did not
		// start, so it is skipped like a run whose device a job holds.
		status, message, err = s.skip(job, trigger, now, runErr.Error(), true)
		s.recordFleet(job, trigger, tick, now, status, message)
		return status, message, err
	}
	status = StatusOK
	if runErr != nil || !ok {
		status = StatusFail
	}
	if runErr != nil {
		if msg != "" {
			msg = msg + ": " + runErr.Error()
		} else {
			msg = runErr.Error()
		}
	}
	next, _ := s.NextRun(job.ID)
	s.updateState(job.ID, func(st *JobState) { // one state write per finished run
		st.LastStatus = status
		st.LastMessage = truncate(msg, 2000)
		st.NextRunAtMs = unixMs(next)
	})
	s.log.Info("cron job finished", "job", job.ID, "status", status, "message", truncate(msg, 200))
	s.recordFleet(job, trigger, tick, now, status, msg)
	s.emit(Event{Kind: EventFinished, JobID: job.ID, Trigger: trigger, Status: status, Message: msg, Err: runErr})
	s.afterAt(job, trigger)
	return status, msg, runErr
}

// skip records a run that did not happen. A one-shot job runs once:
// skipped only because its device was busy, it is retried shortly instead
// of being lost.
func (s *Scheduler) skip(job Job, trigger string, now time.Time, reason string, deviceBusy bool) (status, message string, err error) {
	retry := deviceBusy && job.Schedule.Kind == KindAt && trigger == TriggerSchedule && s.retryAt(job.ID, now.Add(AtRetryDelay))
	if retry {
		reason += fmt.Sprintf("; retrying in %s", AtRetryDelay)
	}
	s.updateState(job.ID, func(st *JobState) {
		st.LastAttemptAtMs = now.UnixMilli()
		st.LastStatus = StatusSkipped
		st.LastMessage = reason
	})
	s.log.Info("cron job skipped", "job", job.ID, "reason", reason)
	s.emit(Event{Kind: EventSkipped, JobID: job.ID, Trigger: trigger, At: now, Status: StatusSkipped, Message: reason})
	if !retry {
		s.afterAt(job, trigger)
	}
	return StatusSkipped, reason, nil
}

// AtRetryDelay is how long a one-shot job waits before trying again when
// it was due while its device was busy.
const AtRetryDelay = 30 * time.Second

// retryAt schedules one more run of a one-shot job at t; false when it
// could not be scheduled (the job is then treated as done).
func (s *Scheduler) retryAt(id string, t time.Time) bool {
	opts := []gocron.JobOption{gocron.WithName(id + " (retry)"), gocron.WithTags(id)}
	if s.opts.Fleet != nil {
		opts = append(opts, gocron.WithDistributedJobLocker(fleetLocker{s: s, id: id, retry: true}))
	}
	_, err := s.gs.NewJob(gocron.OneTimeJob(gocron.OneTimeJobStartDateTime(t)),
		gocron.NewTask(func() { s.fire(id) }), opts...)
	if err != nil {
		s.log.Warn("cron: could not schedule a retry", "job", id, "err", err)
		return false
	}
	return true
}

// afterAt disables a one-shot job in jobs.json once it was due.
func (s *Scheduler) afterAt(job Job, trigger string) {
	if job.Schedule.Kind != KindAt || trigger != TriggerSchedule {
		return
	}
	err := UpdateJobs(s.jobsPath, func(f *JobsFile) error {
		cur, ok := f.Find(job.ID)
		if !ok || cur.Schedule.At != job.Schedule.At || !cur.Enabled {
			return nil
		}
		return f.SetEnabled(job.ID, false)
	})
	if err != nil {
		s.log.Warn("cron: could not disable finished one-shot job", "job", job.ID, "err", err)
		s.emit(Event{Kind: EventError, JobID: job.ID, Message: err.Error(), Err: err})
	}
}

func (s *Scheduler) safeRun(ctx context.Context, job Job) (ok bool, msg string, err error) {
	defer func() {
		if r := recover(); r != nil {
			ok, msg, err = false, "", fmt.Errorf("runner panicked: %v", r)
		}
	}()
	return s.runner.Run(ctx, job)
}

func describe(j Job) string {
	switch j.Payload.Kind {
	case PayloadPlaybook, PayloadLua:
		return j.Payload.Kind + " " + j.Payload.Path
	default:
		return j.Payload.Task
	}
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
