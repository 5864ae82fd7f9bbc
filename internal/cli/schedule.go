package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/internal/cron"
)

// scheduleAt runs the model's cron_add / cron_list / cron_remove on the
// jobs file at jobsPath. A job added from a chat gets that chat as its
// delivery (replyTo is "channel:chat", "" for none). The result is told to
// the model (and, from the chat assistant, to the person). The delivery is
// signed with the key in stateDir: a delivery the model writes into
// jobs.json itself has no valid signature and reaches allowed chats only.
func scheduleAt(_ context.Context, jobsPath, stateDir string, act action.Action, replyTo string) (string, error) {
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
		return cronAddAction(jobsPath, stateDir, act, replyTo)
	}
	return "", fmt.Errorf("%s is not a schedule action", act.Type)
}

func cronAddAction(jobsPath, stateDir string, act action.Action, replyTo string) (string, error) {
	task := strings.TrimSpace(act.Str("task"))
	if task == "" {
		return "", fmt.Errorf("cron_add: task is empty; say what to do each time")
	}
	name := strings.TrimSpace(act.Str("name"))
	if name == "" {
		name = cronCell(task, 40)
	}
	j := cron.Job{Name: name, Enabled: true,
		Schedule: cron.Schedule{Kind: act.Str("kind"), Expr: strings.TrimSpace(act.Str("expr")), At: strings.TrimSpace(act.Str("at")),
			EveryMs: int64(act.Int("everyMs")), TZ: strings.TrimSpace(act.Str("tz")), SummaryText: strings.TrimSpace(act.Str("summary"))},
		Payload: cron.Payload{Kind: cron.PayloadAgentTurn, Task: task}}
	if ch, to, ok := strings.Cut(replyTo, ":"); ok {
		key, err := cron.DeliveryKey(stateDir)
		if err != nil {
			return "", err
		}
		j.ID = cron.NewID()
		j.SignDelivery(cron.Delivery{Channel: ch, To: to}, key)
	}
	var added cron.Job
	err := updateJobsAt(jobsPath, func(f *cron.JobsFile, _ string) error {
		var err error
		added, err = f.AddJob(j)
		return err
	})
	if err != nil {
		return "", err
	}
	out := fmt.Sprintf("Scheduled job %s %q: %s → %s", added.ID, added.Name, cronScheduleText(added.Schedule), task)
	if replyTo != "" {
		out += "; results go to this chat"
	}
	return out + ".", nil
}
