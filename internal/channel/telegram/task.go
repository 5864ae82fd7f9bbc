package telegram

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/channel"
)

// runningTask is the one task the bot runs at a time (one phone).
type runningTask struct {
	chat    int64
	task    string
	started time.Time
	cancel  context.CancelCauseFunc

	mu       sync.Mutex
	step     int
	maxSteps int
	app      string
	action   string
}

// runFunc runs one piece of phone work, reporting steps to onStep.
type runFunc func(ctx context.Context, t *runningTask, n *narrator, onStep func(engine.Event)) (engine.RunResult, error)

// startTask starts task for chat unless one is running.
func (b *Bot) startTask(chat int64, task string) {
	if task == "" {
		b.reply(chat, "Say what to do: /run turn Wi-Fi off")
		return
	}
	b.startRun(chat, task, func(ctx context.Context, t *runningTask, n *narrator, onStep func(engine.Event)) (engine.RunResult, error) {
		replyTo := fmt.Sprintf("%s:%d", b.Name(), t.chat)
		return b.o.Runner.RunTask(ctx, t.task, replyTo, onStep, b.humanAuth(t.chat, n), b.askUser(t.chat, n))
	})
}

// startRun runs work labelled task for chat unless something is running
// (one phone, one run at a time).
func (b *Bot) startRun(chat int64, task string, run runFunc) {
	b.mu.Lock()
	if cur := b.task; cur != nil {
		b.mu.Unlock()
		b.reply(chat, fmt.Sprintf("Busy with %q (step %d). /stop it first, or wait.", cur.task, cur.snapshot().step))
		return
	}
	if b.base.Err() != nil {
		b.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancelCause(b.base)
	t := &runningTask{chat: chat, task: task, started: time.Now(), cancel: cancel}
	b.task = t
	b.mu.Unlock()
	b.goWork(func() {
		defer cancel(nil)
		b.runTask(ctx, t, run)
		b.mu.Lock()
		b.task = nil
		b.mu.Unlock()
	})
}

// runTask runs t and narrates it in one status message.
func (b *Bot) runTask(ctx context.Context, t *runningTask, run runFunc) {
	n := &narrator{bot: b, chat: t.chat, task: t.task, every: b.o.ProgressEvery}
	n.start()
	res, err := run(ctx, t, n, func(ev engine.Event) {
		if ev.Kind != "agent_step" && ev.Kind != channel.ReplayStep {
			return
		}
		t.mu.Lock()
		t.step, t.maxSteps = ev.Int("step"), ev.Int("max_steps") // a replay has no budget: 0
		t.action, _ = ev.Fields["action"].(string)
		if app, _ := ev.Fields["app"].(string); app != "" {
			t.app = app
		}
		snap := t.snapshotLocked()
		t.mu.Unlock()
		n.step(snap)
	})
	msg := res.Message
	if msg == "" && err != nil {
		msg = err.Error()
		if channel.IsStopped(context.Cause(ctx)) {
			msg = context.Cause(ctx).Error()
		}
	}
	n.finish(res.Success, res.Steps, msg)
	caption := "✓ " + msg
	if !res.Success {
		caption = "✗ " + msg
	}
	b.sendScreen(t.chat, caption)
}

// stopTask cancels the running task; its session ends FAILED "stopped by user".
func (b *Bot) stopTask(chat int64) {
	b.mu.Lock()
	t := b.task
	b.mu.Unlock()
	if t == nil {
		b.reply(chat, "Nothing is running.")
		return
	}
	t.cancel(channel.ErrStoppedByUser)
	b.reply(chat, fmt.Sprintf("Stopping %q…", t.task))
}

// status is /status's answer.
func (b *Bot) status() string {
	b.mu.Lock()
	t := b.task
	b.mu.Unlock()
	target := b.o.Runner.Target()
	if target == "" {
		target = "the attached device"
	}
	if t == nil {
		return "Idle: no task running. Phone: " + target + "."
	}
	s := t.snapshot()
	var sb strings.Builder
	fmt.Fprintf(&sb, "Busy: %q for %s", s.task, time.Since(s.started).Round(time.Second))
	if s.step > 0 {
		fmt.Fprintf(&sb, "\nstep %d/%d", s.step, s.maxSteps)
	}
	if s.app != "" {
		fmt.Fprintf(&sb, " · app %s", s.app)
	}
	if s.action != "" {
		fmt.Fprintf(&sb, "\nlast action: %s", s.action)
	}
	fmt.Fprintf(&sb, "\nphone: %s", target)
	return sb.String()
}

// taskState is a copy of a running task's progress.
type taskState struct {
	task           string
	started        time.Time
	step, maxSteps int
	app, action    string
}

func (t *runningTask) snapshot() taskState {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.snapshotLocked()
}

func (t *runningTask) snapshotLocked() taskState {
	return taskState{task: t.task, started: t.started, step: t.step, maxSteps: t.maxSteps, app: t.app, action: t.action}
}
