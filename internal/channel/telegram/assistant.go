package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/internal/atomicfile"
)

// assistantReply is the model's answer: words, or one tool call.
type assistantReply struct{ Text, Tool, Arguments string }

// turn is one message of a chat's conversation with the assistant.
type turn struct {
	Role string    `json:"role"` // user or assistant
	Text string    `json:"text"`
	At   time.Time `json:"at"`
}

// history is the persisted conversation of one chat (bounded).
type history struct {
	Version int    `json:"version"`
	Turns   []turn `json:"turns"`
}

const assistantSystem = `You are OpenPocket, a personal assistant that can operate the user's Android phone. You talk with the user in a Telegram chat.
For each message decide:
- If the user asks for something to be done on the phone now, call start_task with the task in plain words (one clear instruction).
- If the user asks for something to happen later or repeatedly ("every day at 8 …"), call cron_add (5-field cron expression in expr, or kind at/every); cron_list and cron_remove manage existing jobs.
- Otherwise answer in words, briefly, from the conversation and what you know about the user.
Never invent results of phone tasks you did not run.`

// startTaskTool is the assistant's tool that hands a request to the phone agent.
var startTaskTool = action.Tool{Name: "start_task", Description: "Do something on the phone now: start a task for the phone agent.",
	Parameters: map[string]any{"type": "object", "additionalProperties": false, "required": []string{"task"},
		"properties": map[string]any{"task": map[string]any{"type": "string", "description": "The task, as one clear instruction."}}}}

// assistantTools are start_task plus the schedule actions of the action table.
func assistantTools() []action.Tool {
	tools := []action.Tool{startTaskTool}
	for _, t := range action.Tools(nil) {
		if s, _ := action.Lookup(t.Name); s.Category == action.CategorySchedule {
			tools = append(tools, t)
		}
	}
	return tools
}

// chatLocks serializes one chat's assistant turns (history read-modify-write).
type chatLocks struct {
	mu sync.Mutex
	m  map[int64]*sync.Mutex
}

func (c *chatLocks) lock(chat int64) func() {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[int64]*sync.Mutex{}
	}
	l := c.m[chat]
	if l == nil {
		l = &sync.Mutex{}
		c.m[chat] = l
	}
	c.mu.Unlock()
	l.Lock()
	return l.Unlock
}

// converse answers a plain message: the model answers in words, starts a
// task or schedules one, and the reply says which it decided.
func (b *Bot) converse(chat int64, text string) {
	unlock := b.chats.lock(chat)
	defer unlock()
	ctx, cancel := context.WithTimeout(b.base, 3*time.Minute)
	defer cancel()
	h := b.loadHistory(chat)
	var transcript strings.Builder
	for _, t := range h.Turns {
		fmt.Fprintf(&transcript, "%s: %s\n", t.Role, t.Text)
	}
	fmt.Fprintf(&transcript, "user: %s\n", text)
	var rep assistantReply
	var err error
	rep.Text, rep.Tool, rep.Arguments, err = b.o.Runner.Converse(ctx, engine.ModelRequest{System: assistantSystem, Text: transcript.String(), Tools: assistantTools()})
	if err != nil {
		b.log.Warn("telegram: assistant failed", "chat", chat, "err", err)
		b.reply(chat, "I could not reach the model: "+clip(err.Error(), 300))
		return
	}
	answer := b.act(ctx, chat, rep)
	h.Turns = append(h.Turns, turn{Role: "user", Text: text, At: time.Now().UTC()}, turn{Role: "assistant", Text: answer, At: time.Now().UTC()})
	b.saveHistory(chat, h)
}

// act carries out the assistant's decision and returns what was said.
func (b *Bot) act(ctx context.Context, chat int64, rep assistantReply) string {
	switch {
	case rep.Tool == startTaskTool.Name:
		var args struct {
			Task string `json:"task"`
		}
		_ = json.Unmarshal([]byte(rep.Arguments), &args)
		task := strings.TrimSpace(args.Task)
		if task == "" {
			msg := "I understood you want something done on the phone, but not what. Could you say it in one sentence?"
			b.reply(chat, msg)
			return msg
		}
		msg := "🤖 That is a task for the phone, starting it: " + task
		b.reply(chat, msg)
		b.startTask(chat, task)
		return msg
	case rep.Tool != "":
		var raw map[string]any
		_ = json.Unmarshal([]byte(rep.Arguments), &raw)
		a, _ := action.NormalizeTool(rep.Tool, raw, nil)
		if s, _ := action.Lookup(a.Type); s.Category != action.CategorySchedule {
			msg := "💬 " + strings.TrimSpace(rep.Text)
			if rep.Text == "" {
				msg = "I am not sure what to do with that. /help lists what I can do."
			}
			b.reply(chat, msg)
			return msg
		}
		res, err := b.o.Runner.Schedule(ctx, a, b.Name()+":"+strconv.FormatInt(chat, 10))
		msg := "🗓 " + res
		if err != nil {
			msg = "🗓 I could not do that: " + err.Error()
		}
		b.reply(chat, msg)
		return msg
	default:
		msg := "💬 " + strings.TrimSpace(rep.Text)
		b.reply(chat, msg)
		return msg
	}
}

func (b *Bot) historyPath(chat int64) string {
	return filepath.Join(b.o.StateDir, "telegram", "chat-"+strconv.FormatInt(chat, 10)+".json")
}

// loadHistory reads a chat's conversation; a missing or unreadable file
// starts a new one (logged when unreadable).
func (b *Bot) loadHistory(chat int64) history {
	h := history{Version: 1}
	if b.o.StateDir == "" {
		return h
	}
	data, err := os.ReadFile(b.historyPath(chat))
	if errors.Is(err, os.ErrNotExist) {
		return h
	}
	if err == nil {
		err = json.Unmarshal(data, &h)
	}
	if err != nil {
		b.log.Warn("telegram: chat history unreadable, starting afresh", "file", b.historyPath(chat), "err", err)
		return history{Version: 1}
	}
	return h
}

// saveHistory keeps the newest HistoryTurns turns, written atomically.
func (b *Bot) saveHistory(chat int64, h history) {
	if b.o.StateDir == "" {
		return
	}
	if n := len(h.Turns) - b.o.HistoryTurns; n > 0 {
		h.Turns = h.Turns[n:]
	}
	data, err := json.MarshalIndent(h, "", "  ")
	if err == nil {
		err = os.MkdirAll(filepath.Dir(b.historyPath(chat)), 0o700)
	}
	if err == nil {
		err = atomicfile.WriteFile(b.historyPath(chat), append(data, '\n'), 0o600)
	}
	if err != nil {
		b.log.Warn("telegram: chat history not saved", "chat", chat, "err", err)
	}
}
