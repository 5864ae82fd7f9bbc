package playbooks

import (
	"strconv"
)

// Wait steps: for an element, for a still screen, for a fixed time. Each step's parser and code generator sit together here.

func waitStepDefs() []*stepDef {
	return []*stepDef{
		{Name: "wait_for", Short: "@sel", Sel: true, Keys: []string{"visible", "gone"}, parse: parseWaitFor, gen: genWaitFor, Doc: "Wait until an element is visible (or gone)."},
		{Name: "wait_idle", Bare: true, parse: parseNothing, gen: genWaitIdle, Doc: "Wait until the screen stops changing."},
		{Name: "sleep", Short: "duration", Keys: []string{"duration"}, parse: parseSleep, gen: genSleep, Doc: "Wait a fixed time (prefer wait_for)."},
	}
}

func parseWaitFor(p *parser, s *Step, f *fields) {
	mode := "visible"
	if s.Sel == nil {
		s.Sel = f.sel()
	}
	for _, k := range []string{"visible", "gone"} {
		if n := f.node(k); n != nil {
			if s.Sel != nil {
				p.errAt(f.key[k], s.Path, "wait_for takes one selector: either %s: or selector keys", k)
				continue
			}
			s.Sel = p.selector(n, s.Path+"."+k, false)
			mode = k
		}
	}
	if s.Sel == nil {
		p.need(s, f, "wait_for needs a selector, e.g. `wait_for: Welcome` or `wait_for: {gone: Loading}`")
		return
	}
	s.Args["mode"] = &Value{Kind: VString, Str: &Str{Raw: mode, Parts: []StrPart{{Text: mode}}}}
	s.summary = "wait for " + s.Sel.String()
	if mode == "gone" {
		s.summary += " to be gone"
	}
}

func parseSleep(p *parser, s *Step, f *fields) {
	n := f.node("duration")
	if n == nil {
		p.need(s, f, "sleep needs a duration, e.g. `sleep: 500ms`")
		return
	}
	d := p.duration(n, s.Path+".duration")
	s.Args["ms"] = &Value{Kind: VInt, Int: d.Milliseconds()}
	s.summary = "sleep " + d.String()
	p.warnAt(s.Pos, s.Path, "sleep waits a fixed time; prefer wait_for or wait_idle")
}

func genWaitFor(g *gen, s *Step, id string) {
	w := g.w
	to := strconv.FormatInt(g.timeoutMs(s), 10)
	fn := "wait"
	if m, _ := s.Args["mode"].Str.Static(); m == "gone" {
		fn = "wait_gone"
	}
	w.f("flow.must(%s.%s(%s, {timeout_ms = %s}))", g.use("ui"), fn, g.sel(s.Sel), to)
}

func genWaitIdle(g *gen, s *Step, id string) {
	w := g.w
	to := strconv.FormatInt(g.timeoutMs(s), 10)
	w.f("flow.must(%s.idle({timeout_ms = %s}))", g.use("wait"), to)
}

func genSleep(g *gen, s *Step, id string) {
	w := g.w
	w.f("%s.ms(%d)", g.use("wait"), s.Args["ms"].Int)
}
