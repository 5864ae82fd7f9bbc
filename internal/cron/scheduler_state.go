package cron

import (
	"slices"
	"time"
)

// NextRun returns a scheduled job's next run time.
func (s *Scheduler) NextRun(id string) (time.Time, bool) {
	s.mu.Lock()
	e, ok := s.entries[id]
	s.mu.Unlock()
	if !ok {
		return time.Time{}, false
	}
	t := s.nextRunOf(e)
	return t, !t.IsZero()
}

func (s *Scheduler) nextRunOf(e *entry) time.Time {
	now := s.clock.Now()
	// gocron keeps already-passed times at the head of its list until a
	// run completes (e.g. after a singleton skip): take the first future one.
	runs, err := e.gj.NextRuns(3)
	var t time.Time
	for _, r := range runs {
		t = r
		if r.After(now) {
			return r
		}
	}
	// gocron may not have rescheduled yet right after a run.
	switch e.c.job.Schedule.Kind {
	case KindCron:
		return (&tzCron{expr: e.c.cron.expr, loc: e.c.loc, inner: e.c.cron.inner}).Next(now)
	case KindEvery:
		if err != nil || t.IsZero() {
			return time.Time{}
		}
		for !t.After(now) {
			t = t.Add(e.c.every)
		}
		return t
	default:
		if e.c.at.After(now) {
			return e.c.at
		}
		return time.Time{}
	}
}

func (s *Scheduler) refreshNextRuns() {
	s.mu.Lock()
	ids := make([]string, 0, len(s.entries))
	for id := range s.entries {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	next := map[string]int64{}
	for _, id := range ids {
		t, _ := s.NextRun(id)
		next[id] = unixMs(t)
	}
	s.stateMu.Lock()
	for id, st := range s.state.Jobs {
		if _, ok := next[id]; !ok && st.NextRunAtMs != 0 {
			st.NextRunAtMs = 0 // disabled or invalid
			s.state.Jobs[id] = st
		}
	}
	for id, ms := range next {
		st := s.state.Jobs[id]
		st.NextRunAtMs = ms
		s.state.Jobs[id] = st
	}
	err := SaveState(s.statePath, s.state)
	s.stateMu.Unlock()
	if err != nil {
		s.log.Error("cron state not saved", "err", err)
	}
}

func unixMs(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// State returns a copy of the run state.
func (s *Scheduler) State() State {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	out := State{Version: 1, Jobs: make(map[string]JobState, len(s.state.Jobs))}
	for k, v := range s.state.Jobs {
		out.Jobs[k] = v
	}
	return out
}

// Problems returns the invalid entries found by the last load.
func (s *Scheduler) Problems() []Problem {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.problems)
}

// Scheduled returns the ids of the jobs currently scheduled.
func (s *Scheduler) Scheduled() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]string, 0, len(s.entries))
	for id := range s.entries {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Running returns the running jobs, oldest first.
func (s *Scheduler) Running() []RunInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]RunInfo, 0, len(s.running))
	for _, r := range s.running {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b RunInfo) int { return a.StartedAt.Compare(b.StartedAt) })
	return out
}
