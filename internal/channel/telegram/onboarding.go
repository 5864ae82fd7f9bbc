package telegram

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Chat onboarding (docs/formats.md): until workspace-state.json has
// onboardingCompletedAt, a chat is greeted once and asked how to address
// the person; the answer completes it. Tasks are refused until then, with
// a short explanation; /help, /status, /screen, /auth and /stop still work.

const onboardingQuestion = "Before I do things on your phone, one question: what should I call you?"

// needsOnboarding reports whether setup is still to do (cached once done).
func (b *Bot) needsOnboarding() bool {
	b.mu.Lock()
	done := b.onboarded
	b.mu.Unlock()
	if done {
		return false
	}
	ctx, cancel := context.WithTimeout(b.base, 10*time.Second)
	defer cancel()
	ok, err := b.o.Runner.Onboarded(ctx)
	if err != nil {
		b.log.Warn("telegram: onboarding state unreadable; treating setup as done", "err", err)
		ok = true
	}
	if ok {
		b.mu.Lock()
		b.onboarded = true
		b.mu.Unlock()
	}
	return !ok
}

// onboard handles a message while setup is not complete; it reports
// whether the message was consumed.
func (b *Bot) onboard(chat int64, text string) bool {
	cmd, _, _ := strings.Cut(text, " ")
	switch strings.ToLower(cmd) {
	case "/help", "/status", "/screen", "/auth", "/stop":
		return false
	}
	if !b.needsOnboarding() {
		return false
	}
	b.mu.Lock()
	greeted := b.greeted[chat]
	b.greeted[chat] = true
	b.mu.Unlock()
	isCmd := strings.HasPrefix(text, "/")
	switch {
	case !greeted:
		msg := "👋 Hi, I'm OpenPocket: I can operate your Android phone for you, answer questions and run things on a schedule.\n" + onboardingQuestion
		if isCmd && cmd != "/start" {
			msg += "\n(I'll run tasks once this is done.)"
		}
		b.reply(chat, msg)
	case isCmd:
		b.reply(chat, "Tasks wait until setup is done. "+onboardingQuestion)
	default:
		name := clip(strings.Join(strings.Fields(text), " "), 60)
		b.goWork(func() {
			ctx, cancel := context.WithTimeout(b.base, 30*time.Second)
			defer cancel()
			if err := b.o.Runner.CompleteOnboarding(ctx, name); err != nil {
				b.log.Warn("telegram: onboarding not saved", "err", err)
				b.reply(chat, "I could not save that: "+err.Error())
				return
			}
			b.mu.Lock()
			b.onboarded = true
			b.mu.Unlock()
			b.reply(chat, fmt.Sprintf("Nice to meet you, %s! Setup is done. Tell me what to do (\"turn Wi-Fi off\"), use /run <task>, or /help.", name))
		})
	}
	return true
}
