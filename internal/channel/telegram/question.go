package telegram

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/openpocket/openpocket/stdlib/agent"
)

// pendingQuestion is a request_user_input waiting for the chat's reply.
type pendingQuestion struct {
	answer chan string // buffered 1
}

// askUser answers a task's request_user_input: the question goes to chat
// and the next plain message there is the answer (bounded by timeout).
func (b *Bot) askUser(chat int64, n *narrator) agent.UserInputFunc {
	return func(ctx context.Context, question string, timeout time.Duration) (string, error) {
		if timeout <= 0 {
			timeout = 300 * time.Second
		}
		q := &pendingQuestion{answer: make(chan string, 1)}
		b.mu.Lock()
		if b.questions[chat] != nil {
			b.mu.Unlock()
			return "", errors.New("another question is already waiting for an answer")
		}
		b.questions[chat] = q
		b.mu.Unlock()
		defer func() {
			b.mu.Lock()
			delete(b.questions, chat)
			b.mu.Unlock()
		}()
		n.paused("an answer to a question")
		if _, err := b.send(ctx, chat, "❓ "+question+"\n(Reply here; I wait "+timeout.Round(time.Second).String()+".)", nil); err != nil {
			return "", fmt.Errorf("telegram: question not sent: %s", redactToken(err.Error()))
		}
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		select {
		case a := <-q.answer:
			return a, nil
		case <-timer.C:
			b.reply(chat, "No answer in time; the task goes on without it.")
			return "", fmt.Errorf("no answer within %s", timeout.Round(time.Second))
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

// answerQuestion takes text as the answer to chat's pending question; it
// reports whether there was one.
func (b *Bot) answerQuestion(chat int64, text string) bool {
	b.mu.Lock()
	q := b.questions[chat]
	b.mu.Unlock()
	if q == nil {
		return false
	}
	select {
	case q.answer <- text:
	default:
	}
	return true
}
