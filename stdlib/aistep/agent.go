package aistep

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/airesolve"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/prompt"
	"github.com/openpocket/openpocket/lua"
)

// DefaultAgentSteps bounds an agent: step without max_steps.
const DefaultAgentSteps = 10

// maxBadReplies is how often in a row the model may answer without a
// usable action before the step fails (as in the agent loop).
const maxBadReplies = 3

// parentStep is the playbook step an agent: step runs in: its sub-steps
// are reported under it (id "4.1", "4.2", one level deeper).
type parentStep struct {
	id, file string
	line     int
	depth    int
}

func readParent(L *lua.LState, idx int) parentStep {
	p := parentStep{id: "agent"}
	t, ok := L.Get(idx).(*lua.LTable)
	if !ok {
		return p
	}
	st, ok := t.RawGetString("step").(*lua.LTable)
	if !ok {
		return p
	}
	if v := st.RawGetString("id"); v != lua.LNil {
		p.id = v.String()
	}
	if v, ok := st.RawGetString("file").(lua.LString); ok {
		p.file = string(v)
	}
	if v, ok := st.RawGetString("line").(lua.LNumber); ok {
		p.line = int(v)
	}
	if v, ok := st.RawGetString("depth").(lua.LNumber); ok {
		p.depth = int(v)
	}
	return p
}

// ai.agent(task, {max_steps, step = flow.current()}) → summary | nil, err
func (m *Module) luaAgent(c call) (lua.LValue, error) {
	task := description(c.L, "ai.agent: the task")
	max := DefaultAgentSteps
	if t, ok := c.L.Get(2).(*lua.LTable); ok {
		if v, ok := t.RawGetString("max_steps").(lua.LNumber); ok {
			max = int(v)
		}
	}
	if max < 1 {
		c.L.ArgError(2, "max_steps must be at least 1")
	}
	s, err := m.agent(c.ctx, c.sess, task, max, readParent(c.L, 2))
	return lua.LString(s), err
}

// agentTools are what an agent: step may do: the device actions and the
// control ones (wait, finish); no scripts, files, people or schedules.
func agentTools() []action.Tool {
	return action.Tools(func(s action.Spec) bool {
		return s.Category == action.CategoryDevice || s.Category == action.CategoryControl
	})
}

// agent runs a model-driven sub-task: capture, one model call, act, until
// the model calls finish or max steps pass. Every step is reported as a
// step of the playbook under the agent: step.
func (m *Module) agent(ctx context.Context, sess *engine.Session, task string, max int, parent parentStep) (string, error) {
	model, err := m.needModel(sess, "agent", task, "an agent step always asks the model")
	if err != nil {
		return "", err
	}
	tools := agentTools()
	system := prompt.System(prompt.SystemOptions{Mode: prompt.ModeMinimal, Tools: tools})
	var history []prompt.HistoryEntry
	var problems []string
	bad := 0
	for step := 1; step <= max; step++ {
		snap, err := capture(sess)
		if err != nil {
			return "", err
		}
		id := parent.id + "." + strconv.Itoa(step)
		start := time.Now()
		ev := map[string]any{"id": id, "label": fmt.Sprintf("agent step %d", step), "file": parent.file, "line": parent.line, "depth": parent.depth + 1}
		sess.Emit("step_start", ev)
		rep, err := model.Decide(ctx, engine.ModelRequest{System: system, Tools: tools, ImagePNG: airesolve.ModelImage(snap),
			Text: prompt.Step(prompt.StepOptions{Task: task, Step: step, MaxSteps: max, Snapshot: snap, History: history, Problems: problems})})
		end := func(label, status, msg string) {
			ev := map[string]any{"id": id, "label": label, "file": parent.file, "line": parent.line, "depth": parent.depth + 1,
				"status": status, "duration_ms": time.Since(start).Milliseconds()}
			if msg != "" {
				ev["error"] = msg
			}
			sess.Emit("step_end", ev)
		}
		if err != nil {
			if errors.Is(err, engine.ErrNoAction) && bad < maxBadReplies && ctx.Err() == nil {
				bad++
				problems = []string{err.Error()}
				end(fmt.Sprintf("agent step %d: reply rejected", step), "warned", err.Error())
				continue
			}
			end(fmt.Sprintf("agent step %d", step), "failed", err.Error())
			return "", fmt.Errorf("agent step %d: %w", step, err)
		}
		bad, problems = 0, rep.Problems
		label := fmt.Sprintf("agent step %d: %s", step, rep.Action)
		if rep.Action.Type == "finish" {
			end(label, "passed", "")
			return rep.Action.Str("message"), nil
		}
		out, err := sess.Act(rep.Action, device.ActOptions{Snapshot: snap, Scaled: true, Observe: true})
		if err != nil {
			end(label, "failed", err.Error())
			return "", fmt.Errorf("agent step %d %s: %w", step, rep.Action, err)
		}
		end(label, "passed", "")
		history = append(history, prompt.HistoryEntry{Step: step, App: snap.CurrentApp, Action: rep.Action.String(), Result: out.Result})
	}
	return "", fmt.Errorf("the agent did not finish %q within %d steps", task, max)
}
