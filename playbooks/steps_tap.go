package playbooks

import (
	"fmt"
	"strconv"
	"time"

	"github.com/openpocket/openpocket/engine/action"
)

// Tap steps: tap, double_tap and long_press on an element or a point. Each step's node, parser and code generator sit together here.

func tapStepDefs() []*stepDef {
	return []*stepDef{
		define(stepDef{Name: "tap", Short: "@sel", Sel: true, Keys: []string{"point", "x", "y", "reason", "repeat", "delay"}, Example: "tap: Save",
			Doc: "Tap an element (or a point; x/y is the tap action)."}, parseTap, genTap),
		define(stepDef{Name: "double_tap", Short: "@sel", Sel: true, Keys: []string{"point"}, Example: "double_tap: Save",
			Doc: "Double-tap an element or point."}, parseTap, genTap),
		define(stepDef{Name: "long_press", Short: "@sel", Sel: true, Keys: []string{"point", "duration"}, Example: "long_press: {id: note_item}",
			Doc: "Long-press an element or point."}, parseTap, genTap),
	}
}

// tapNode is tap, double_tap and long_press: on the step's selector or a
// point, or (tap's x/y form) the tap action.
type tapNode struct {
	Point    *Value         // from point(); nil = the selector
	Duration *time.Duration // long_press; nil = the device's default
	Repeat   *Value         // tap: how many taps (an integer or ${expr}); nil = once
	Delay    time.Duration  // tap: between repeated taps
	Action   *actionNode    // tap's x/y form
}

func (*tapNode) stepNode() {}

func parseTap(p *parser, s *Step, f *fields, n *tapNode) {
	if s.Kind == "tap" && (f.has("x") || f.has("y")) {
		if s.Sel != nil || f.sel() != nil || f.has("point") {
			p.errAt(f.key["x"], s.Path, "tap takes either a selector, a point or x/y, not several")
		}
		spec, _ := action.Lookup("tap")
		n.Action = &actionNode{}
		p.actionParams(s, spec, f, n.Action)
		return
	}
	if f.has("reason") {
		p.errAt(f.key["reason"], s.Path, "reason only goes with the x/y form of tap")
	}
	if pt := f.node("point"); pt != nil {
		if s.Sel != nil || f.sel() != nil {
			p.errAt(f.key["point"], s.Path, "%s takes either a selector or a point, not both", s.Kind)
		}
		n.Point = p.point(pt, s.Path+".point")
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
		n.Duration = &d
	}
	tapRepeat(p, s, f, n)
}

func genTap(g *gen, s *Step, n *tapNode, id string) {
	if n.Action != nil {
		genAction(g, s, n.Action, id)
		return
	}
	w := g.w
	to := strconv.FormatInt(g.timeoutMs(s), 10)
	if g.genTapRepeat(s, n, id) {
		return
	}
	dur := ""
	if n.Duration != nil {
		dur = strconv.FormatInt(n.Duration.Milliseconds(), 10)
	}
	if pt := n.Point; pt != nil {
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
