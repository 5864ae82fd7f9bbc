package cron

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// UpdateJob changes the job with the id through change, then validates it
// as AddJob does; an invalid result leaves the job as it was.
func (f *JobsFile) UpdateJob(id string, change func(*Job)) (Job, error) {
	j, ok := f.Find(id)
	if !ok {
		return Job{}, fmt.Errorf("update job: no job with id %q", id)
	}
	if j.raw != nil {
		return *j, fmt.Errorf("update job: job %q is malformed; fix it in the jobs file first", id)
	}
	next := *j
	change(&next)
	next.ID = j.ID
	if _, probs := compileJob("jobs.json", 0, next, time.Local, time.Now()); len(probs) > 0 {
		msgs := make([]string, len(probs))
		for i, p := range probs {
			msgs[i] = p.Error()
		}
		return *j, errors.New(strings.Join(msgs, "; "))
	}
	next.UpdatedAt = isoTime(time.Now())
	*j = next
	return next, nil
}

// userTimezoneLine is USER.md's profile line "- Timezone: Europe/Berlin"
// (upstream's template).
var userTimezoneLine = regexp.MustCompile(`(?im)^\s*[-*]?\s*time\s*zone\s*:\s*(\S.*?)\s*$`)

// TimezoneFromUserMD is the IANA time zone USER.md's profile names, or ""
// when it names none or one this system does not know. Upstream schedules
// the model's jobs in it when the model gives no time zone.
func TimezoneFromUserMD(text string) string {
	m := userTimezoneLine.FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	tz := strings.Trim(m[1], "`\"' ")
	if tz == "" {
		return ""
	}
	if _, err := time.LoadLocation(tz); err != nil {
		return ""
	}
	return tz
}
