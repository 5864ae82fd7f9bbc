package agent

import (
	"fmt"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/capability"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/lua"
)

// The capability probe (Options.Probe, humanAuth.probe) looks at every
// screen the loop captures before the model is asked. On a camera, photo
// picker, payment sheet, location prompt or secure screen it takes the
// step itself: a request_human_auth for that capability, recorded like the
// model's own. In "auto" mode it is that request (a rejection ends the run
// FAILED, as when the model asks); in "ask" mode it offers the person to
// take over, and a "no" (or no answer) lets the agent go on. Each surface
// (kind and app) is escalated once per run.

// probeDecision is the probe's step, nil when the probe is off, nothing
// was found or the surface was escalated already.
func (h *host) probeDecision(snap *screen.Snapshot) *decision {
	mode, err := capability.ParseProbeMode(h.o.Probe)
	if err != nil || mode == capability.ProbeOff {
		return nil
	}
	s, ok := capability.Detect(snap)
	if !ok || h.probed[s.Key()] {
		return nil
	}
	if h.probed == nil {
		h.probed = map[string]bool{}
	}
	h.probed[s.Key()] = true
	instr := s.Instruction()
	if mode == capability.ProbeAsk {
		instr = "Take over this step? " + instr + " Reject to let the agent go on without you."
	}
	a, err := action.New("request_human_auth", map[string]any{"capability": s.Capability(), "instruction": instr})
	if err != nil {
		return nil
	}
	thought := fmt.Sprintf("capability probe (humanAuth.probe=%s): %s surface in %s (%s)", mode, s.Kind, s.App, s.Reason)
	h.sess.Emit("capability_probe", map[string]any{"mode": string(mode), "kind": s.Kind, "app": s.App, "reason": s.Reason})
	return &decision{rep: engine.ModelReply{Thought: thought, Action: a}, offer: mode == capability.ProbeAsk}
}

// declinedOffer reports whether the action at idx is the probe's offer:
// its "no" lets the run go on.
func declinedOffer(L *lua.LState, idx int) bool {
	if ud, ok := L.Get(idx).(*lua.LUserData); ok {
		if d, ok := ud.Value.(*decision); ok {
			return d.offer
		}
	}
	return false
}
