package agent

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
)

// UserInputFunc asks the person who gave the task a question (in their
// chat) and returns the answer; an error means nobody can be asked.
type UserInputFunc func(ctx context.Context, question string, timeout time.Duration) (string, error)

// ScheduleFunc executes cron_add, cron_list and cron_remove against the
// gateway's jobs and returns the result told to the model.
type ScheduleFunc func(ctx context.Context, a action.Action) (string, error)

// offeredTools drops the actions nobody can execute in this run: no chat
// to ask (request_user_input), no jobs file (cron_*), no executor for a
// script, coding or memory action (codingTools.enabled=false leaves the
// coding actions out of the executors). The system prompt follows this
// list, so it never advertises a tool the run cannot run.
func offeredTools(tools []action.Tool, o Options, executors map[string]engine.Executor) []action.Tool {
	return slices.DeleteFunc(tools, func(t action.Tool) bool {
		s, _ := action.Lookup(t.Name)
		switch s.Category {
		case action.CategoryChat:
			return o.UserInput == nil
		case action.CategorySchedule:
			return o.Schedule == nil
		case action.CategoryScript, action.CategoryCoding, action.CategoryMemory:
			return executors[s.Name] == nil
		}
		return false
	})
}

// userInput runs request_user_input. The model is told the answer
// (reply); the session, trace and events record only its length unless
// the question says the answer is not secret (secret = false): a booking
// code or an address is the user's, not the record's.
func (h *host) userInput(ctx context.Context, a action.Action) (out device.Outcome, reply string, err error) {
	out = device.Outcome{Device: a}
	if h.o.UserInput == nil {
		out.Result = "request_user_input unavailable: this task was not started from a chat. Decide yourself or finish and say what you need."
		return out, "", nil
	}
	q := cmp.Or(strings.TrimSpace(a.Str("question")), strings.TrimSpace(a.Str("instruction")))
	if q == "" {
		out.Result = "request_user_input needs a question (the question parameter): nothing was asked."
		return out, "", nil
	}
	if ph := strings.TrimSpace(a.Str("placeholder")); ph != "" {
		q += "\n(for example: " + ph + ")"
	}
	ans, err := h.o.UserInput(ctx, q, time.Duration(a.Int("timeoutSec"))*time.Second)
	switch {
	case ctx.Err() != nil:
		return out, "", ctx.Err()
	case err != nil:
		out.Result = fmt.Sprintf("request_user_input: no answer (%v). Decide yourself or finish and say what you need.", err)
		return out, "", nil
	}
	reply = "User replied: " + ans
	if secret, ok := a.Params["secret"].(bool); ok && !secret {
		out.Result = reply
		return out, "", nil
	}
	out.Result = fmt.Sprintf("User replied (%d characters; the answer is not recorded)", len([]rune(ans)))
	return out, reply, nil
}

// schedule runs cron_add / cron_list / cron_remove.
func (h *host) schedule(ctx context.Context, a action.Action) (device.Outcome, error) {
	out := device.Outcome{Device: a}
	if h.o.Schedule == nil {
		out.Result = a.Type + " unavailable in this run."
		return out, nil
	}
	res, err := h.o.Schedule(ctx, a)
	if err != nil {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		res = a.Type + " failed: " + err.Error()
	}
	out.Result = res
	return out, nil
}

// OfferedTools is the tool list a run with these options and executors
// offers the model (what `openpocket context` shows).
func OfferedTools(o Options, executors map[string]engine.Executor) []action.Tool {
	return offeredTools(action.Tools(nil), o, executors)
}
