package telegram

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
)

// listSkills is /skills: the skills the phone can replay without a model.
func (b *Bot) listSkills(chat int64) {
	b.goWork(func() {
		ctx, cancel := context.WithTimeout(b.base, time.Minute)
		defer cancel()
		list, err := b.o.Runner.Skills(ctx)
		switch {
		case err != nil:
			b.reply(chat, "Skills unavailable: "+err.Error())
		case len(list) == 0:
			b.reply(chat, "No skills yet. Successful tasks teach me some; /skill <name> replays one.")
		default:
			var sb strings.Builder
			fmt.Fprintf(&sb, "%d skills (/skill <name> [key=value…] replays one):", len(list))
			for _, s := range list {
				fmt.Fprintf(&sb, "\n• %s — %s", s.Name, s.Description)
			}
			b.reply(chat, sb.String())
		}
	})
}

// replaySkill is /skill <name> [k=v…]: a replay, narrated like a task.
func (b *Bot) replaySkill(chat int64, arg string) {
	fields := strings.Fields(arg)
	if len(fields) == 0 {
		b.reply(chat, "Say which skill: /skill toggle-wifi (see /skills)")
		return
	}
	name, params := fields[0], fields[1:]
	for _, p := range params {
		if !strings.Contains(p, "=") {
			b.reply(chat, fmt.Sprintf("Skill parameter %q: expected key=value", p))
			return
		}
	}
	b.startRun(chat, "skill "+name, func(ctx context.Context, _ *runningTask, _ *narrator, onStep func(engine.Event)) (engine.RunResult, error) {
		return b.o.Runner.ReplaySkill(ctx, name, params, onStep)
	})
}

// cronCommand is /cron (list) and /cron remove <id>; adding is done in
// words ("every day at 8 check the weather").
func (b *Bot) cronCommand(chat int64, arg string) {
	verb, rest, _ := strings.Cut(strings.TrimSpace(arg), " ")
	var a action.Action
	var err error
	switch strings.ToLower(verb) {
	case "", "list":
		a, err = action.New("cron_list", nil)
	case "remove", "rm", "delete":
		a, err = action.New("cron_remove", map[string]any{"id": strings.TrimSpace(rest)})
	default:
		b.reply(chat, "/cron lists the jobs, /cron remove <id> deletes one; to add one, say it: \"every weekday at 8 check my boarding pass\".")
		return
	}
	if err != nil {
		b.reply(chat, err.Error())
		return
	}
	b.goWork(func() {
		ctx, cancel := context.WithTimeout(b.base, time.Minute)
		defer cancel()
		res, err := b.o.Runner.Schedule(ctx, a, b.Name()+":"+strconv.FormatInt(chat, 10))
		if err != nil {
			res = err.Error()
		}
		b.reply(chat, "🗓 "+res)
	})
}
