package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/internal/cron"
)

// jobsTarget is where the model's cron_* actions act: the jobs file, the
// workspace whose USER.md names the person's time zone, and the state
// directory holding the key that signs deliveries.
type jobsTarget struct {
	jobsPath  string
	workspace string
	stateDir  string
}

// scheduleAt runs the model's cron_add / cron_update / cron_list /
// cron_remove on the jobs file. A job added from a chat gets that chat as
// its delivery (replyTo is "channel:chat", "" for none) unless the model
// names channel and to, as upstream's cron_add may. The result is told to
// the model (and, from the chat assistant, to the person). Only a delivery
// to the chat the request came from is signed (with the key in stateDir):
// a target the model names itself, or writes into jobs.json, reaches
// allowed chats only.
func scheduleAt(_ context.Context, jt jobsTarget, act action.Action, replyTo string) (string, error) {
	jobsPath := jt.jobsPath
	switch act.Type {
	case "cron_list":
		f, _, _, err := loadJobsAt(jobsPath)
		if err != nil {
			return "", err
		}
		if len(f.Jobs) == 0 {
			return "No scheduled jobs.", nil
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%d scheduled jobs:", len(f.Jobs))
		for _, j := range f.Jobs {
			state := "enabled"
			if !j.Enabled {
				state = "disabled"
			}
			fmt.Fprintf(&b, "\n- %s %q (%s): %s → %s", j.ID, j.Name, state, cronScheduleText(j.Schedule), cronPayloadText(j))
		}
		return b.String(), nil
	case "cron_remove":
		id := strings.TrimSpace(act.Str("id"))
		err := updateJobsAt(jobsPath, func(f *cron.JobsFile, _ string) error { return f.RemoveJob(id) })
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("Removed job %s.", id), nil
	case "cron_add":
		return cronAddAction(jt, act, replyTo)
	case "cron_update":
		return cronUpdateAction(jt, act)
	}
	return "", fmt.Errorf("%s is not a schedule action", act.Type)
}

func cronAddAction(jt jobsTarget, act action.Action, replyTo string) (string, error) {
	task := strings.TrimSpace(act.Str("task"))
	if task == "" {
		return "", fmt.Errorf("cron_add: task is empty; say what to do each time")
	}
	name := strings.TrimSpace(act.Str("name"))
	if name == "" {
		name = cronCell(task, 40)
	}
	j := cron.Job{ID: strings.TrimSpace(act.Str("id")), Name: name, Enabled: true,
		Schedule: cron.Schedule{Kind: act.Str("kind"), Expr: strings.TrimSpace(act.Str("expr")), At: strings.TrimSpace(act.Str("at")),
			EveryMs: int64(act.Int("everyMs")), TZ: strings.TrimSpace(act.Str("tz")), SummaryText: strings.TrimSpace(act.Str("summary"))},
		Payload: cron.Payload{Kind: cron.PayloadAgentTurn, Task: task}, CreatedBy: "model"}
	tzNote := ""
	if j.Schedule.TZ == "" {
		// Upstream schedules in the person's time zone from USER.md.
		if tz := userTimezone(jt.workspace); tz != "" {
			j.Schedule.TZ, tzNote = tz, " (time zone from USER.md)"
		}
	}
	channel, to := strings.TrimSpace(act.Str("channel")), strings.TrimSpace(act.Str("to"))
	if channel == "" || to == "" {
		channel, to, _ = strings.Cut(replyTo, ":")
	}
	if replyTo != "" {
		j.CreatedBy = "model via " + replyTo
	}
	if channel != "" && to != "" {
		d := cron.Delivery{Channel: channel, To: to}
		if replyTo != channel+":"+to {
			j.SetDelivery(d) // unsigned: allowed chats only
		} else {
			key, err := cron.DeliveryKey(jt.stateDir)
			if err != nil {
				return "", err
			}
			if j.ID == "" {
				j.ID = cron.NewID()
			}
			j.SignDelivery(d, key)
		}
	}
	var added cron.Job
	err := updateJobsAt(jt.jobsPath, func(f *cron.JobsFile, _ string) error {
		var err error
		added, err = f.AddJob(j)
		return err
	})
	if err != nil {
		return "", err
	}
	out := fmt.Sprintf("Scheduled job %s %q: %s%s → %s", added.ID, added.Name, cronScheduleText(added.Schedule), tzNote, task)
	if channel != "" && to != "" {
		if replyTo == channel+":"+to {
			out += "; results go to this chat"
		} else {
			out += "; results go to " + channel + ":" + to
		}
	}
	return out + ".", nil
}

// cronUpdateAction changes only what the model gave.
func cronUpdateAction(jt jobsTarget, act action.Action) (string, error) {
	id := strings.TrimSpace(act.Str("id"))
	if id == "" {
		return "", fmt.Errorf("cron_update: id is empty; take it from cron_list")
	}
	has := func(k string) bool { _, ok := act.Params[k]; return ok }
	var updated cron.Job
	err := updateJobsAt(jt.jobsPath, func(f *cron.JobsFile, _ string) error {
		var err error
		updated, err = f.UpdateJob(id, func(j *cron.Job) {
			if has("name") {
				j.Name = strings.TrimSpace(act.Str("name"))
			}
			if has("task") {
				j.Payload = cron.Payload{Kind: cron.PayloadAgentTurn, Task: strings.TrimSpace(act.Str("task"))}
			}
			if has("enabled") {
				j.Enabled = act.Bool("enabled")
			}
			s := &j.Schedule
			for k, dst := range map[string]*string{"kind": &s.Kind, "expr": &s.Expr, "at": &s.At, "tz": &s.TZ, "summary": &s.SummaryText} {
				if has(k) {
					*dst = strings.TrimSpace(act.Str(k))
				}
			}
			if has("everyMs") {
				s.EveryMs = int64(act.Int("everyMs"))
			}
			if ch, to := strings.TrimSpace(act.Str("channel")), strings.TrimSpace(act.Str("to")); ch != "" && to != "" {
				j.SetDelivery(cron.Delivery{Channel: ch, To: to})
			}
		})
		return err
	})
	if err != nil {
		return "", err
	}
	state := "enabled"
	if !updated.Enabled {
		state = "disabled"
	}
	return fmt.Sprintf("Updated job %s %q (%s): %s → %s.", updated.ID, updated.Name, state, cronScheduleText(updated.Schedule), cronPayloadText(updated)), nil
}

// userTimezone reads the time zone USER.md's profile names ("" for none),
// through a root at the workspace so the file cannot lead elsewhere.
func userTimezone(workspace string) string {
	if workspace == "" {
		return ""
	}
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return ""
	}
	defer root.Close()
	f, err := root.Open("USER.md")
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	data, _ := io.ReadAll(io.LimitReader(f, 64<<10))
	return cron.TimezoneFromUserMD(string(data))
}
