package run

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/prompt"
	"github.com/openpocket/openpocket/stdlib/skillsmod"
)

// KindReplayFirst is the event of an agent run's replay-first attempt:
// fields skill, location, script, by, status ("started", "passed", "failed"),
// passed (steps) and error.
const KindReplayFirst Kind = "replay_first"

// ReplayedSkill says which learned skill an agent run replayed before
// asking the model (AgentOptions.ReplayFirst), and how it went.
type ReplayedSkill struct {
	Name string `json:"name"`
	// Location is the skill's file (workspace-relative for workspace
	// skills) and Script the replay script that ran.
	Location string `json:"location"`
	Script   string `json:"script"`
	// By is how the task matched it (`task "…"`, `name`, `trigger "…"`).
	By     string `json:"matchedBy"`
	Passed int    `json:"passedSteps"`
	// Error is why the replay stopped ("" when it passed): the model was
	// then handed the task from the current screen.
	Error string `json:"error,omitempty"`
}

// replayFirst replays the skill task matches on sess, with zero model
// calls, and records it as the session's first step (an action of type
// replay_skill). ok reports whether a skill matched; rs.Error is empty
// when the replay did the task. A cancellation is returned as err.
func (lc *lifecycle) replayFirst(ctx context.Context, sess *engine.Session, task string) (rs ReplayedSkill, ok bool, err error) {
	l := lc.svc.cfg.Skills
	if l == nil {
		return rs, false, nil
	}
	m, ok := l.Match(task)
	if !ok {
		return rs, false, nil
	}
	rs = ReplayedSkill{Name: m.Skill.Name, Location: m.Skill.Location, Script: m.From, By: m.By}
	emit := func(status string) {
		sess.Emit(string(KindReplayFirst), map[string]any{"skill": rs.Name, "location": rs.Location, "script": rs.Script, "by": rs.By,
			"status": status, "passed": rs.Passed, "error": rs.Error})
	}
	emit("started")
	started := time.Now()
	r, rerr := skillsmod.Run(sess.Context(), sess, m.Script, skillsmod.RunOptions{Name: m.From, Registry: lc.registry()})
	rs.Passed = r.Passed
	if rerr != nil && (errors.Is(rerr, context.Canceled) || ctx.Err() != nil || sess.Context().Err() != nil) {
		return rs, true, rerr
	}
	status, result := "passed", fmt.Sprintf("Replayed skill %s: %d step(s) passed, no model calls.", rs.Name, rs.Passed)
	if rerr != nil {
		rs.Error = rerr.Error()
		status, result = "failed", fmt.Sprintf("Replay of skill %s stopped after %d passed step(s): %s. Handing the task to the model.", rs.Name, rs.Passed, rs.Error)
	}
	emit(status)
	a := action.Action{Type: "replay_skill", Params: map[string]any{"skill": rs.Name, "location": rs.Location, "script": rs.Script, "matchedBy": rs.By}}
	st := engine.TraceStep{At: started, Action: a, DeviceAction: a, Result: result,
		Thought: fmt.Sprintf("Replay first: the task matches the learned skill %s (%s).", rs.Name, rs.By)}
	if err := sess.Record(st); err != nil {
		return rs, true, err
	}
	return rs, true, nil
}

// handOver is what the model is told of a replay that stopped: the first
// entry of its history.
func (rs ReplayedSkill) handOver() []prompt.HistoryEntry {
	return []prompt.HistoryEntry{{Step: 0, Action: "replay_skill(" + rs.Name + ")",
		Result: fmt.Sprintf("A replay of the learned skill %s did %d step(s) and then stopped: %s. Continue the task from the current screen.", rs.Name, rs.Passed, rs.Error)}}
}
