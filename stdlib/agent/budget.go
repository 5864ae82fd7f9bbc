package agent

import (
	"fmt"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/lua"
)

// budget is a run's token budget (agent.maxTokens, --max-tokens): every
// model call counts, a rejected reply included.
type budget struct {
	max   int64 // 0: none
	used  engine.Usage
	calls int
	// largest is the largest single call so far: the estimate of the next
	// one (the prompt only grows with the history).
	largest int64
}

func tokens(u engine.Usage) int64 {
	if u.TotalTokens > 0 {
		return u.TotalTokens
	}
	return u.InputTokens + u.OutputTokens
}

// before says why the next call would exceed the budget ("" when it may
// go ahead).
func (b *budget) before() string {
	if b.max <= 0 || b.calls == 0 {
		return ""
	}
	if used := tokens(b.used); used+b.largest > b.max {
		return fmt.Sprintf("token budget: the next model call would exceed the limit of %d tokens (%d used in %d call(s), the largest took %d)",
			b.max, used, b.calls, b.largest)
	}
	return ""
}

// spent counts one call's usage and says why the run must stop ("" when
// it is within the budget).
func (b *budget) spent(u engine.Usage) string {
	n := tokens(u)
	if n == 0 {
		return ""
	}
	b.calls++
	b.used.InputTokens += u.InputTokens
	b.used.OutputTokens += u.OutputTokens
	b.used.TotalTokens += n
	b.largest = max(b.largest, n)
	if b.max > 0 && tokens(b.used) > b.max {
		return fmt.Sprintf("token budget exceeded: %d tokens used in %d call(s), more than the limit of %d; the last reply was not acted on",
			tokens(b.used), b.calls, b.max)
	}
	return ""
}

// overBudget stops the run (no action runs after it, whatever the loop
// does) and returns nil, why, "budget" to decide's caller.
func (h *host) overBudget(L *lua.LState, why string) int {
	h.stopped = why
	L.Push(lua.LNil)
	L.Push(lua.LString(why))
	L.Push(lua.LString("budget"))
	return 3
}

// finish finalizes the session; the result's tokens count every model
// call, a rejected reply and one over the budget included.
func (h *host) finish(ok bool, msg string) engine.RunResult {
	res := h.sess.Finish(ok, msg)
	if tokens(h.budget.used) > tokens(res.Usage) {
		res.Usage = h.budget.used
	}
	return res
}
