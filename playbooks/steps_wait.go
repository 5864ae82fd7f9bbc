package playbooks

import (
	"strconv"
	"time"
)

// Wait steps: for an element, for a still screen, for a fixed time. Each step's node, parser and code generator sit together here.

func waitStepDefs() []*stepDef {
	return []*stepDef{
		define(stepDef{Name: "wait_for", Short: "@sel", Sel: true, Keys: []string{"visible", "gone"}, Example: "wait_for: Welcome",
			Doc: "Wait until an element is visible (or gone)."}, parseWaitFor, genWaitFor),
		define(stepDef{Name: "wait_idle", Bare: true, Doc: "Wait until the screen stops changing."}, parseNothing, genWaitIdle),
		define(stepDef{Name: "sleep", Short: "duration", Keys: []string{"duration"}, Example: "sleep: 500ms",
			Doc: "Wait a fixed time (prefer wait_for)."}, parseSleep, genSleep),
	}
}

// waitForNode is wait_for: the step's selector, visible or gone.
type waitForNode struct {
	Gone bool // wait until the element is gone rather than visible
}

func (*waitForNode) stepNode() {}

// sleepNode is sleep.
type sleepNode struct {
	Duration time.Duration
}

func (*sleepNode) stepNode() {}

func parseWaitFor(p *parser, s *Step, f *fields, n *waitForNode) {
	mode := "visible"
	if s.Sel == nil {
		s.Sel = f.sel()
	}
	for _, k := range []string{"visible", "gone"} {
		if node := f.node(k); node != nil {
			if s.Sel != nil {
				p.errAt(f.key[k], s.Path, "wait_for takes one selector: either %s: or selector keys", k)
				continue
			}
			s.Sel = p.selector(node, s.Path+"."+k, false)
			mode = k
		}
	}
	if s.Sel == nil {
		p.need(s, f, "wait_for needs a selector, e.g. `wait_for: Welcome` or `wait_for: {gone: Loading}`")
		return
	}
	n.Gone = mode == "gone"
	s.summary = "wait for " + s.Sel.String()
	if mode == "gone" {
		s.summary += " to be gone"
	}
}

func parseSleep(p *parser, s *Step, f *fields, n *sleepNode) {
	node := f.node("duration")
	if node == nil {
		p.need(s, f, "sleep needs a duration, e.g. `sleep: 500ms`")
		return
	}
	d := p.duration(node, s.Path+".duration")
	n.Duration = d
	s.summary = "sleep " + d.String()
	p.warnAt(s.Pos, s.Path, "sleep waits a fixed time; prefer wait_for or wait_idle")
}

func genWaitFor(g *gen, s *Step, n *waitForNode, id string) {
	w := g.w
	to := strconv.FormatInt(g.timeoutMs(s), 10)
	fn := "wait"
	if n.Gone {
		fn = "wait_gone"
	}
	w.f("flow.must(%s.%s(%s, {timeout_ms = %s}))", g.use("ui"), fn, g.sel(s.Sel), to)
}

func genWaitIdle(g *gen, s *Step, _ *bareNode, id string) {
	w := g.w
	to := strconv.FormatInt(g.timeoutMs(s), 10)
	w.f("flow.must(%s.idle({timeout_ms = %s}))", g.use("wait"), to)
}

func genSleep(g *gen, s *Step, n *sleepNode, id string) {
	w := g.w
	w.f("%s.ms(%d)", g.use("wait"), n.Duration.Milliseconds())
}
