package cron

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/go-co-op/gocron/v2"
)

// compiled is a valid job ready for gocron.
type compiled struct {
	job   Job
	loc   *time.Location
	every time.Duration
	at    time.Time
	cron  *tzCron
}

// Validate reports the problems of every entry: missing or duplicate ids,
// bad schedules, unknown time zones, missing payload fields. Entries with
// problems are skipped by the scheduler.
func Validate(file string, f JobsFile, defLoc *time.Location) []Problem {
	var out []Problem
	seen := map[string]bool{}
	now := time.Now()
	for i, j := range f.Jobs {
		if j.raw != nil {
			continue // reported when decoding
		}
		if j.ID != "" && seen[j.ID] {
			out = append(out, Problem{File: file, JobID: j.ID, Index: i, Field: "id", Message: fmt.Sprintf("duplicate id (entry #%d); only the first is used", i+1)})
			continue
		}
		seen[j.ID] = true
		_, probs := compileJob(file, i, j, defLoc, now)
		out = append(out, probs...)
	}
	return out
}

var atLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04"}

// ParseAt parses an "at" time; times without an offset are read in loc.
func ParseAt(s string, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	for _, layout := range atLayouts[1:] {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("expected an ISO 8601 time such as 2026-03-01T08:00:00Z or 2026-03-01T08:00, got %q", s)
}

// targetTypes are the values of a job's target.type (config target.type's).
var targetTypes = []string{"emulator", "physical-phone", "android-tv", "cloud"}

func compileJob(file string, i int, j Job, defLoc *time.Location, now time.Time) (compiled, []Problem) {
	var probs []Problem
	bad := func(field, format string, args ...any) {
		probs = append(probs, Problem{File: file, JobID: j.ID, Index: i, Field: field, Message: fmt.Sprintf(format, args...)})
	}
	c := compiled{job: j, loc: defLoc}
	if strings.TrimSpace(j.ID) == "" {
		bad("id", "missing; every job needs a unique id")
	}
	validatePlacement(j, bad)
	sc := j.Schedule
	if sc.TZ != "" {
		loc, err := time.LoadLocation(sc.TZ)
		if err != nil {
			bad("schedule.tz", "unknown time zone %q (expected an IANA name such as Europe/Berlin)", sc.TZ)
		} else {
			c.loc = loc
		}
	}
	switch sc.Kind {
	case KindCron:
		if strings.TrimSpace(sc.Expr) == "" {
			bad("schedule.expr", "missing; a cron schedule needs an expression such as \"0 8 * * *\"")
			break
		}
		if up := strings.ToUpper(sc.Expr); strings.HasPrefix(up, "CRON_TZ=") || strings.HasPrefix(up, "TZ=") {
			bad("schedule.expr", "time zone prefix in %q; put the zone in schedule.tz instead", sc.Expr)
			break
		}
		tc := &tzCron{expr: strings.TrimSpace(sc.Expr), loc: c.loc}
		if err := tc.IsValid(tc.expr, c.loc, now); err != nil {
			bad("schedule.expr", "invalid cron expression %q: %v (expected 5 fields: minute hour day-of-month month day-of-week)", sc.Expr, unwrapCronErr(err))
			break
		}
		c.cron = tc
	case KindEvery:
		c.every = time.Duration(sc.EveryMs) * time.Millisecond
		if c.every < MinEvery {
			bad("schedule.everyMs", "must be at least %d (5 seconds), got %d", MinEvery.Milliseconds(), sc.EveryMs)
		}
	case KindAt:
		t, err := ParseAt(sc.At, c.loc)
		if err != nil {
			bad("schedule.at", "%v", err)
		}
		c.at = t
	case "":
		bad("schedule.kind", "missing; expected cron, at or every")
	default:
		bad("schedule.kind", "unknown kind %q; expected cron, at or every", sc.Kind)
	}
	p := j.Payload
	switch p.Kind {
	case PayloadAgentTurn, "":
		if strings.TrimSpace(p.Task) == "" {
			bad("payload.task", "missing; an agent_turn job needs a task")
		}
	case PayloadPlaybook:
		if strings.TrimSpace(p.Path) == "" {
			bad("payload.path", "missing; a playbook job needs the playbook file")
		}
	case PayloadLua:
		if strings.TrimSpace(p.Path) == "" {
			bad("payload.path", "missing; a lua job needs a script or skill path")
		}
	default:
		bad("payload.kind", "unknown kind %q; expected agent_turn, playbook or lua", p.Kind)
	}
	return c, probs
}

func unwrapCronErr(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, gocron.ErrCronJobParse.Error())
	return strings.TrimSpace(strings.ReplaceAll(msg, "\n", " "))
}

// tzCron is a gocron.Cron evaluated in the job's own time zone, with
// daylight-saving handling that does not depend on the scheduler's zone:
//
//   - spring forward: a time that falls in the skipped hour runs at the
//     same instant read with the old offset (02:30 becomes 03:30), once;
//   - fall back: a time that occurs twice runs only at its first
//     occurrence.
type tzCron struct {
	expr  string
	loc   *time.Location
	inner gocron.Cron
}

var _ gocron.Cron = (*tzCron)(nil)

// IsValid parses the expression in the job's zone (the scheduler's zone
// argument is ignored).
func (c *tzCron) IsValid(crontab string, _ *time.Location, now time.Time) error {
	c.expr = crontab
	c.inner = gocron.NewDefaultCron(false)
	return c.inner.IsValid(crontab, c.loc, now)
}

// Next returns the first run after last.
func (c *tzCron) Next(last time.Time) time.Time {
	next := c.inner.Next(last)
	if next.IsZero() {
		return next
	}
	// Fall back: the same wall-clock time again is a duplicate.
	for sameWall(last.In(c.loc), next.In(c.loc)) {
		next = c.inner.Next(next)
		if next.IsZero() {
			return next
		}
	}
	// Spring forward: look for a run time swallowed by a gap.
	_, offLast := last.In(c.loc).Zone()
	_, offNext := next.In(c.loc).Zone()
	if offNext <= offLast {
		return next
	}
	lo, hi := last, next // find the transition instant
	for hi.Sub(lo) > time.Second {
		mid := lo.Add(hi.Sub(lo) / 2)
		if _, off := mid.In(c.loc).Zone(); off == offLast {
			lo = mid
		} else {
			hi = mid
		}
	}
	transition := hi.Truncate(time.Second)
	gap := time.Duration(offNext-offLast) * time.Second
	// Evaluate the expression in a fixed zone with the old offset. The
	// cron parser needs a zone name, so this covers whole-hour offsets
	// (Etc/GMT-1 is UTC+1); other gaps keep the plain cron behaviour.
	if offLast%3600 != 0 {
		return next
	}
	fixed, err := time.LoadLocation(fmt.Sprintf("Etc/GMT%+d", -offLast/3600))
	if err != nil {
		return next
	}
	alt := gocron.NewDefaultCron(false)
	if alt.IsValid(c.expr, fixed, last) != nil {
		return next
	}
	// In the old offset, wall times of the gap are instants
	// [transition, transition+gap).
	cand := alt.Next(transition.Add(-time.Second))
	if !cand.IsZero() && cand.After(last) && cand.Before(transition.Add(gap)) && cand.Before(next) {
		return cand.In(last.Location())
	}
	return next
}

func sameWall(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd && a.Hour() == b.Hour() && a.Minute() == b.Minute() && a.Second() == b.Second()
}

// agentIDPattern is workspace.ValidateAgentID's (cron does not import
// workspace): ids appear in paths and URLs on every host of a fleet.
var agentIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,39}$`)

// validatePlacement checks where a job asks to run: a phone, a target
// type or an agent, at most one of them.
func validatePlacement(j Job, bad func(field, format string, args ...any)) {
	if t := j.Target; t != nil && !slices.Contains(targetTypes, t.Type) {
		bad("target.type", "expected one of %s, got %q", strings.Join(targetTypes, ", "), t.Type)
	}
	if j.Agent == "" {
		return
	}
	if !agentIDPattern.MatchString(j.Agent) {
		bad("agent", "expected an agent id (1-40 characters: lowercase letters, digits, '-' or '_', starting with a letter or digit), got %q", j.Agent)
	}
	if j.Device != "" || j.Target != nil {
		bad("agent", "a job runs on the agent's bound phone: give device, target or agent, not several")
	}
}
