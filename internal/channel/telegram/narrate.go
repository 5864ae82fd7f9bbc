package telegram

import (
	"fmt"
	"strings"
	"sync"
)

// narrator keeps one status message per task up to date: sent at the
// start, edited every few steps or when the app changes, on human-auth
// pauses and at the end — never one message per step.
type narrator struct {
	bot   *Bot
	chat  int64
	task  string
	every int

	mu       sync.Mutex
	msgID    int
	lastStep int
	lastApp  string
	lastText string
}

func (n *narrator) start() {
	text := fmt.Sprintf("▶ Starting: %s", n.task)
	id, err := n.bot.send(n.bot.base, n.chat, text, nil)
	if err != nil {
		n.bot.log.Warn("telegram: status message not sent", "chat", n.chat, "err", redactToken(err.Error()))
		return
	}
	n.mu.Lock()
	n.msgID, n.lastText = id, text
	n.mu.Unlock()
}

// step is called after each agent step (and each replayed skill step).
func (n *narrator) step(s taskState) {
	n.mu.Lock()
	appChanged := s.app != "" && n.lastApp != "" && s.app != n.lastApp
	due := s.step-n.lastStep >= n.every
	if n.lastApp == "" {
		n.lastApp = s.app
	}
	if !due && !appChanged {
		n.mu.Unlock()
		return
	}
	n.lastStep, n.lastApp = s.step, s.app
	n.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "▶ %s\nstep %d", n.task, s.step)
	if s.maxSteps > 0 {
		fmt.Fprintf(&b, "/%d", s.maxSteps)
	}
	if s.app != "" {
		fmt.Fprintf(&b, " · %s", s.app)
	}
	if s.action != "" {
		fmt.Fprintf(&b, "\nlast: %s", s.action)
	}
	n.set(b.String())
}

// paused says the task waits for a person.
func (n *narrator) paused(what string) {
	n.set(fmt.Sprintf("⏸ %s\nwaiting for you: %s", n.task, what))
}

// finish writes the verdict into the status message.
func (n *narrator) finish(ok bool, steps int, msg string) {
	verdict := "✗ Failed"
	if ok {
		verdict = "✓ Done"
	}
	n.set(fmt.Sprintf("%s after %d steps: %s\n%s", verdict, steps, n.task, msg))
}

// set edits the status message (or sends one when the first send failed);
// an unchanged text is not sent (the API refuses it).
func (n *narrator) set(text string) {
	n.mu.Lock()
	if text == n.lastText {
		n.mu.Unlock()
		return
	}
	id := n.msgID
	n.lastText = text
	n.mu.Unlock()
	if id == 0 {
		newID, err := n.bot.send(n.bot.base, n.chat, text, nil)
		if err == nil {
			n.mu.Lock()
			n.msgID = newID
			n.mu.Unlock()
		}
		return
	}
	if err := n.bot.edit(n.chat, id, text); err != nil {
		n.bot.log.Warn("telegram: status message not edited", "chat", n.chat, "err", redactToken(err.Error()))
	}
}
