package dashboard

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Jobs and replays started from a page ("Run now", "Replay") may take
// minutes: the form waits a little for the outcome and otherwise says the
// run goes on; either way the agent page lists each action with how it
// really ended (the job's message, or the reason it failed), so a click
// never reports a success that did not happen.

// actionWait is how long a form waits for an action's outcome.
const actionWait = 15 * time.Second

// maxActions bounds the actions an agent page lists.
const maxActions = 10

// action is one background action and, once it ended, its outcome.
type action struct {
	What    string
	Started time.Time
	Done    bool
	Failed  bool
	Result  string
}

// actions are the recent actions of each agent, newest first.
type actions struct {
	mu   sync.Mutex
	byAg map[string][]*action
}

// start runs fn in the background as agent id's action what, waits up to
// wait for it and returns the message the form answers with.
func (a *actions) start(id, what string, wait time.Duration, fn func(ctx context.Context) (string, error)) string {
	act := &action{What: what, Started: time.Now()}
	a.mu.Lock()
	if a.byAg == nil {
		a.byAg = map[string][]*action{}
	}
	list := append([]*action{act}, a.byAg[id]...)
	if len(list) > maxActions {
		list = list[:maxActions]
	}
	a.byAg[id] = list
	a.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		res, err := fn(context.Background())
		a.mu.Lock()
		defer a.mu.Unlock()
		act.Done, act.Result = true, res
		if err != nil {
			act.Failed, act.Result = true, err.Error()
		}
	}()
	select {
	case <-done:
	case <-time.After(wait):
		return fmt.Sprintf("%s: still running; its result appears under Recent actions", what)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if act.Failed {
		return fmt.Sprintf("failed: %s: %s", what, act.Result)
	}
	return fmt.Sprintf("%s: done: %s", what, act.Result)
}

// list is agent id's recent actions (copies), newest first.
func (a *actions) list(id string) []action {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]action, 0, len(a.byAg[id]))
	for _, act := range a.byAg[id] {
		out = append(out, *act)
	}
	return out
}
