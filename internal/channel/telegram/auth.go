package telegram

import (
	"context"
	"fmt"
	"strings"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/openpocket/openpocket/stdlib/agent"
)

// pendingAuth is a request_human_auth waiting for a person in a chat.
type pendingAuth struct {
	req    agent.HumanAuthRequest
	chat   int64
	answer chan agent.HumanAuthDecision // buffered 1; the first answer wins
}

const (
	approvePrefix = "auth:approve:"
	rejectPrefix  = "auth:reject:"
)

// humanAuth answers a task's request_human_auth in chat: a message with
// approve/reject buttons (and the relay link when there is one); a code
// typed as a reply approves and becomes the text artifact.
func (b *Bot) humanAuth(chat int64, n *narrator) agent.HumanAuthFunc {
	return func(ctx context.Context, req agent.HumanAuthRequest) (agent.HumanAuthDecision, error) {
		if req.Timeout <= 0 {
			req.Timeout = 300 * time.Second
		}
		p := &pendingAuth{req: req, chat: chat, answer: make(chan agent.HumanAuthDecision, 1)}
		b.mu.Lock()
		b.auths[req.ID] = p
		b.mu.Unlock()
		defer func() {
			b.mu.Lock()
			delete(b.auths, req.ID)
			b.mu.Unlock()
		}()
		n.paused(fmt.Sprintf("human authorization (%s)", req.Capability))
		if _, err := b.send(ctx, chat, b.authText(p), b.authButtons(req.ID)); err != nil {
			return agent.HumanAuthDecision{}, fmt.Errorf("telegram: cannot ask for authorization: %s", redactToken(err.Error()))
		}
		timer := time.NewTimer(req.Timeout)
		defer timer.Stop()
		select {
		case d := <-p.answer:
			return d, nil
		case <-timer.C:
			b.reply(chat, fmt.Sprintf("Authorization request %s timed out.", req.ID))
			return agent.HumanAuthDecision{Status: "timeout", Message: "nobody answered in time"}, nil
		case <-ctx.Done():
			return agent.HumanAuthDecision{}, ctx.Err()
		}
	}
}

func (b *Bot) authText(p *pendingAuth) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "🔐 Authorization needed (%s, request %s):\n%s\n\n", p.req.Capability, p.req.ID, p.req.Instruction)
	sb.WriteString("Approve or reject with the buttons, or reply with a code to approve and have it typed into the phone.")
	if b.o.RelayURL != nil {
		if u := b.o.RelayURL(p.req.ID); u != "" {
			fmt.Fprintf(&sb, "\nRelay page: %s", u)
		}
	}
	return sb.String()
}

func (b *Bot) authButtons(id string) models.ReplyMarkup {
	row := []models.InlineKeyboardButton{
		{Text: "✅ Approve", CallbackData: approvePrefix + id},
		{Text: "❌ Reject", CallbackData: rejectPrefix + id},
	}
	kb := [][]models.InlineKeyboardButton{row}
	if b.o.RelayURL != nil {
		if u := b.o.RelayURL(id); strings.HasPrefix(u, "https://") {
			// Telegram accepts only public https links on buttons; a
			// loopback relay is named in the text instead.
			kb = append(kb, []models.InlineKeyboardButton{{Text: "Open relay page", URL: u}})
		}
	}
	return &models.InlineKeyboardMarkup{InlineKeyboard: kb}
}

// answerPending takes text as the code for the oldest request pending in
// chat; it reports whether there was one.
func (b *Bot) answerPending(chat int64, text string) bool {
	b.mu.Lock()
	var p *pendingAuth
	for _, a := range b.auths {
		if a.chat == chat {
			p = a
			break
		}
	}
	b.mu.Unlock()
	if p == nil {
		return false
	}
	if b.resolve(p, agent.HumanAuthDecision{Status: "approved", Text: text, Message: "approved in Telegram with a code"}) {
		b.reply(chat, fmt.Sprintf("Approved request %s; the code will be typed.", p.req.ID))
	}
	return true
}

// resolve answers p once; it reports whether this answer was the first.
func (b *Bot) resolve(p *pendingAuth, d agent.HumanAuthDecision) bool {
	select {
	case p.answer <- d:
		return true
	default:
		return false
	}
}

// onCallback handles an inline button press.
func (b *Bot) onCallback(q *models.CallbackQuery) {
	var chat int64
	if m := q.Message.Message; m != nil {
		chat = m.Chat.ID
	}
	if !b.allowed(q.From.ID, chat) {
		b.log.Warn("telegram: ignored a button press from someone not allowed", "user", q.From.ID, "chat", chat)
		return
	}
	note := "This request is no longer pending."
	id, approve := strings.CutPrefix(q.Data, approvePrefix)
	if !approve {
		id, _ = strings.CutPrefix(q.Data, rejectPrefix)
	}
	b.mu.Lock()
	p := b.auths[id]
	b.mu.Unlock()
	if p != nil {
		d := agent.HumanAuthDecision{Status: "rejected", Message: "rejected in Telegram"}
		if approve {
			d = agent.HumanAuthDecision{Status: "approved", Message: "approved in Telegram"}
		}
		if b.resolve(p, d) {
			note = "Rejected."
			if approve {
				note = "Approved."
			}
		}
	}
	b.goWork(func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(b.base), time.Minute)
		defer cancel()
		if _, err := b.api.AnswerCallbackQuery(ctx, &tgbot.AnswerCallbackQueryParams{CallbackQueryID: q.ID, Text: note}); err != nil {
			b.log.Warn("telegram: button press not acknowledged", "err", redactToken(err.Error()))
		}
	})
}

// listAuth is /auth: every pending request with its buttons.
func (b *Bot) listAuth(chat int64) {
	b.mu.Lock()
	var pending []*pendingAuth
	for _, p := range b.auths {
		pending = append(pending, p)
	}
	b.mu.Unlock()
	if len(pending) == 0 {
		b.reply(chat, "No human-auth request is pending.")
		return
	}
	for _, p := range pending {
		b.goWork(func() {
			if _, err := b.send(b.base, chat, b.authText(p), b.authButtons(p.req.ID)); err != nil {
				b.log.Warn("telegram: reply not sent", "chat", chat, "err", redactToken(err.Error()))
			}
		})
	}
}
