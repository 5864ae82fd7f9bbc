package cron

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"
)

// In a fleet every host starts with the same jobs.json, so a runOnStartup
// job would run once per host. It is claimed like a scheduled run, under
// the key "JOB@startup/HASH/DAY": HASH is the job's own entry (so an
// edited job runs again at the next start, while edits to other jobs do
// not re-run it), DAY the UTC date of the start. The first host able to
// run it that starts on a day runs it; hosts starting later that day, or
// restarting, find the claim taken. The claim is held a day.

// startupHold is how long a startup claim lasts: its window.
const startupHold = 24 * time.Hour

// startupKey is the fleet claim of job's startup run at now.
func startupKey(job Job, now time.Time) string {
	data, _ := json.Marshal(job)
	sum := sha256.Sum256(data)
	return job.ID + "@startup/" + hex.EncodeToString(sum[:6]) + "/" + now.UTC().Format("2006-01-02")
}

// startupInFleet places and claims a runOnStartup job's run, then runs
// it here when this host won it. A job that belongs to another host is
// left to it (it runs the job when it starts); one no host can run is
// reported by the host that wins the claim; an unreachable coordinator
// skips the startup run (never a run without a claim) and says so.
func (s *Scheduler) startupInFleet(job Job) {
	ctx := s.runCtx
	now := s.clock.Now()
	pl, err := s.opts.Fleet.Place(ctx, job)
	if err != nil {
		s.setFleetDown(true, err)
		s.fleetStartupSkipped(job, now, "startup run not claimed: "+err.Error())
		return
	}
	if pl.Where == Elsewhere {
		s.log.Info("cron: startup run left to another host", "job", job.ID, "reason", pl.Reason)
		return
	}
	lock, err := s.opts.Fleet.Lock(ctx, startupKey(job, now), startupHold)
	if errors.Is(err, ErrTaken) {
		s.setFleetDown(false, nil)
		s.log.Info("cron: startup run already claimed in the fleet", "job", job.ID, "err", err)
		return
	}
	if err != nil {
		s.setFleetDown(true, err)
		s.fleetStartupSkipped(job, now, "startup run not claimed: "+err.Error())
		return
	}
	s.setFleetDown(false, nil)
	defer func() { _ = lock.Unlock(ctx) }()
	if pl.Where == Nowhere {
		s.fleetStartupSkipped(job, now, "no host of the fleet can run it: "+pl.Reason)
		return
	}
	if pl.Device != "" {
		job.Device = pl.Device
	}
	_, _, _ = s.executeRun(ctx, job, TriggerStartup, fleetTick{tick: now, device: pl.Device})
}

// fleetStartupSkipped reports a startup run that did not happen.
func (s *Scheduler) fleetStartupSkipped(job Job, now time.Time, msg string) {
	s.fleetRecordSkip(job, TriggerStartup, now, now, msg)
}
