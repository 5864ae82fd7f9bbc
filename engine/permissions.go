package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/capability"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
)

// guard binds the permission policy to this session's phone: every UI
// dump of the run (the agent's capture, a playbook's wait, a replay) sees
// the permission controller's dialogs answered by policy first.
func (s *Session) guard(p *device.Phone) {
	if s.engine.Permissions == nil {
		p.SetGuard(nil)
		return
	}
	p.SetGuard(&capability.Guard{Policy: s.engine.Permissions, Note: s.note})
}

// runsCode are the actions that run a command able to reach the phone as
// adb's shell user: the device's shell, and host commands (run_script,
// exec, process), which reach it through the run's adb gate.
var runsCode = map[string]bool{"shell": true, "run_script": true, "exec": true, "process": true}

// HoldToPolicy runs a code-running action (a, run by run) of the session
// held to the permission policy (heldToPolicy); any other action, or a
// session without a policy, just runs. The Lua device module holds its
// shell calls with it: a replayed skill learned from a model's run may
// repeat a `pm grant` the run's hold took back.
func (s *Session) HoldToPolicy(ctx context.Context, a action.Action, run func() (device.Outcome, error)) (device.Outcome, error) {
	if s.engine.Permissions == nil || !runsCode[a.Type] {
		return run()
	}
	return s.heldToPolicy(ctx, a, run)
}

// heldToPolicy runs one of the session's code-running actions (the
// agent's, and through HoldToPolicy a script's or a replay's) and holds
// the grants it made to the permission policy. adb's shell user may `pm grant`, or tap a dialog's Allow in the
// same command that opens it, before any dump lets the guard answer; so
// the phone's grants are read before and after the action — its effect,
// not its text — and each new grant the policy does not allow is revoked,
// recorded as a local_vm_permission= line and told to the model (first
// in the action's result). A phone
// whose grants cannot be read after the action fails it.
func (s *Session) heldToPolicy(ctx context.Context, a action.Action, run func() (device.Outcome, error)) (device.Outcome, error) {
	p, err := s.Phone()
	if err != nil {
		return run() // no phone: nothing on it to hold
	}
	before, err := capability.ReadGrants(ctx, p)
	if err != nil {
		// Nothing known before: every grant in a group the policy does
		// not allow counts as new (fail closed).
		s.Logger().Warn("permission policy: grants before "+a.Type, "err", err)
		before = capability.Grants{}
	}
	out, runErr := run()
	after, err := capability.ReadGrants(context.WithoutCancel(ctx), p)
	if err != nil {
		return out, fmt.Errorf("permission policy: %w", err)
	}
	held, err := s.engine.Permissions.Hold(ctx, p, before, after)
	var lines []string
	for _, h := range held {
		s.noteRevoked(h.Line(a.Type))
		lines = append(lines, h.Line(a.Type))
	}
	if len(lines) > 0 {
		// First: the model's history shortens a long result (a command's
		// output) from its end.
		out.Result = strings.Join(lines, "\n") + "\n" + out.Result
	}
	if err != nil {
		return out, fmt.Errorf("permission policy: %w", err)
	}
	return out, runErr
}

// note keeps a local_vm_permission= line for the next recorded step and
// emits it as an event.
func (s *Session) note(line string) {
	s.mu.Lock()
	s.notes = append(s.notes, line)
	s.mu.Unlock()
	s.Emit("local_vm_permission", map[string]any{"line": line})
	s.Logger().Info("permission dialog answered by policy", "line", line)
}

// noteRevoked emits a grant taken back as an event; its line is part of
// the action's result, which the step records.
func (s *Session) noteRevoked(line string) {
	s.Emit("local_vm_permission", map[string]any{"line": line})
	s.Logger().Info("permission grant revoked by policy", "line", line)
}

// recordNotes writes lines no step took (a run that ended right after a
// dialog) as a step of their own.
func (s *Session) recordNotes(lines []string, step int) {
	res := ""
	for i, l := range lines {
		if i > 0 {
			res += "\n"
		}
		res += l
	}
	err := s.log.AppendStep(StepRecord{Step: step, At: time.Now(), Thought: "permission policy",
		ActionJSON: []byte(`{"type":"permission_policy"}`), Result: res})
	if err != nil {
		s.Logger().Error("record permission policy lines", "err", err)
	}
}

// maxGuardedCaptures bounds the captures of one snapshot when a guard
// keeps answering dialogs.
const maxGuardedCaptures = 3

// guardedCapture captures again when the guard acted during a capture:
// the screenshot, taken beside the dump, may still show the dialog it
// answered, and the model must see neither.
func guardedCapture(ctx context.Context, p *device.Phone, o device.CaptureOptions) (*screen.Snapshot, error) {
	for i := 1; ; i++ {
		gen := p.ActionGeneration()
		snap, err := p.Capture(ctx, o)
		if err != nil || p.ActionGeneration() == gen || i == maxGuardedCaptures {
			return snap, err
		}
	}
}
