package engine

import (
	"context"
	"time"

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

// note keeps a local_vm_permission= line for the next recorded step and
// emits it as an event.
func (s *Session) note(line string) {
	s.mu.Lock()
	s.notes = append(s.notes, line)
	s.mu.Unlock()
	s.Emit("local_vm_permission", map[string]any{"line": line})
	s.Logger().Info("permission dialog answered by policy", "line", line)
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
