package playbooks

import (
	"fmt"
	"strconv"

	"github.com/openpocket/openpocket/engine/action"
)

// Tap steps: tap, double_tap and long_press on an element or a point. Each step's parser and code generator sit together here.

func tapStepDefs() []*stepDef {
	return []*stepDef{
		{Name: "tap", Short: "@sel", Sel: true, Keys: []string{"point", "x", "y", "reason", "repeat", "delay"}, parse: parseTap, gen: genTap, Doc: "Tap an element (or a point; x/y is the tap action)."},
		{Name: "double_tap", Short: "@sel", Sel: true, Keys: []string{"point"}, parse: parseTap, gen: genTap, Doc: "Double-tap an element or point."},
		{Name: "long_press", Short: "@sel", Sel: true, Keys: []string{"point", "duration"}, parse: parseTap, gen: genTap, Doc: "Long-press an element or point."},
	}
}

func parseTap(p *parser, s *Step, f *fields) {
	if s.Kind == "tap" && (f.has("x") || f.has("y")) {
		if s.Sel != nil || f.sel() != nil || f.has("point") {
			p.errAt(f.key["x"], s.Path, "tap takes either a selector, a point or x/y, not several")
		}
		spec, _ := action.Lookup("tap")
		p.actionParams(s, spec, f)
		return
	}
	if f.has("reason") {
		p.errAt(f.key["reason"], s.Path, "reason only goes with the x/y form of tap")
	}
	if pt := f.node("point"); pt != nil {
		if s.Sel != nil || f.sel() != nil {
			p.errAt(f.key["point"], s.Path, "%s takes either a selector or a point, not both", s.Kind)
		}
		s.Args["point"] = p.point(pt, s.Path+".point")
		s.summary = fmt.Sprintf("%s point %s", s.Kind, pt.Value)
	} else {
		if s.Sel == nil {
			s.Sel = f.sel()
		}
		if s.Sel == nil {
			p.need(s, f, "%s needs a selector or point, e.g. %s", s.Kind, exampleOf(f.def))
			return
		}
		s.summary = s.Kind + " " + s.Sel.String()
	}
	if f.has("duration") {
		d := p.duration(f.node("duration"), s.Path+".duration")
		s.Args["duration_ms"] = &Value{Kind: VInt, Int: d.Milliseconds()}
	}
	tapRepeat(p, s, f)
}

func genTap(g *gen, s *Step, id string) {
	w := g.w
	to := strconv.FormatInt(g.timeoutMs(s), 10)
	if g.genTapRepeat(s, id) {
		return
	}
	dur := ""
	if v := s.Args["duration_ms"]; v != nil {
		dur = strconv.FormatInt(v.Int, 10)
	}
	if pt := s.Args["point"]; pt != nil {
		x, y := g.pointXY(pt)
		dev := g.use("device")
		switch s.Kind {
		case "tap":
			w.f("flow.must(%s.tap(%s, %s))", dev, x, y)
		case "double_tap":
			w.f("flow.must(%s.tap(%s, %s))", dev, x, y)
			w.f("flow.must(%s.tap(%s, %s))", dev, x, y)
		default:
			if dur != "" {
				w.f("flow.must(%s.long_press(%s, %s, {duration_ms = %s}))", dev, x, y, dur)
			} else {
				w.f("flow.must(%s.long_press(%s, %s))", dev, x, y)
			}
		}
	} else if s.Sel != nil {
		sel := g.sel(s.Sel)
		switch {
		case s.Kind == "tap" && g.pb.Defaults.TapRetry > 0:
			g.use("ui")
			w.f("flow.tap(%s, {timeout_ms = %s}, %d)", sel, to, g.pb.Defaults.TapRetry)
		case s.Kind == "long_press":
			w.f("flow.must(%s.long_press(%s, %s))", g.use("ui"), sel, g.opts("timeout_ms", to, "duration_ms", dur))
		default:
			w.f("flow.must(%s.%s(%s, {timeout_ms = %s}))", g.use("ui"), s.Kind, sel, to)
		}
	}
	g.settle()
}
