package playbooks

import (
	"fmt"
	"strconv"

	"github.com/openpocket/openpocket/engine/action"
	"go.yaml.in/yaml/v3"
)

// Gesture steps: swipes and scrolling an element into view. Each step's parser and code generator sit together here.

func gestureStepDefs() []*stepDef {
	return []*stepDef{
		{Name: "swipe", Short: "direction", Keys: []string{"direction", "from", "to", "duration", "x1", "y1", "x2", "y2", "durationMs", "reason"}, parse: parseSwipe, gen: genSwipe,
			Doc: "Swipe in a direction (the finger's movement), from a point or element, or between two points."},
		{Name: "scroll_until_visible", Short: "@sel", Sel: true, Keys: []string{"direction", "max_swipes", "speed", "visibility_percentage", "centered"}, parse: parseScroll, gen: genScroll, Doc: "Scroll until an element is visible."},
	}
}

var directions = []string{"up", "down", "left", "right"}

func parseSwipe(p *parser, s *Step, f *fields) {
	if f.has("x1") || f.has("y1") || f.has("x2") || f.has("y2") {
		for _, k := range []string{"direction", "from", "to", "duration"} {
			if f.has(k) {
				p.errAt(f.key[k], s.Path, "%s cannot be combined with x1/y1/x2/y2 (the swipe action)", k)
			}
		}
		spec, _ := action.Lookup("swipe")
		p.actionParams(s, spec, f)
		return
	}
	for _, k := range []string{"durationMs", "reason"} {
		if f.has(k) {
			p.errAt(f.key[k], s.Path, "%s only goes with the x1/y1/x2/y2 form of swipe (use duration)", k)
		}
	}
	if f.has("direction") {
		d := f.str("direction")
		ds, _ := d.Static()
		if !contains(directions, ds) {
			p.errAt(f.node("direction"), s.Path, "direction must be up, down, left or right, got %q%s", d.Raw, didYouMean(d.Raw, directions))
		}
		s.Args["direction"] = &Value{Kind: VString, Str: d}
	}
	if n := f.node("from"); n != nil {
		if n.Kind == yaml.ScalarNode && pointRe.MatchString(n.Value) {
			s.Args["from"] = p.point(n, s.Path+".from")
		} else {
			s.Sel = p.selector(n, s.Path+".from", false)
		}
	}
	if n := f.node("to"); n != nil {
		s.Args["to"] = p.point(n, s.Path+".to")
		if s.Args["from"] == nil {
			p.errAt(f.key["to"], s.Path, "to needs from: a point (e.g. from: \"50%%,80%%\", to: \"50%%,20%%\")")
		}
		if f.has("direction") {
			p.errAt(f.key["direction"], s.Path, "give either direction or to, not both")
		}
	} else if !f.has("direction") {
		p.need(s, f, "swipe needs a direction (up, down, left, right) or from/to points")
	}
	if f.has("duration") {
		d := p.duration(f.node("duration"), s.Path+".duration")
		s.Args["duration_ms"] = &Value{Kind: VInt, Int: d.Milliseconds()}
	}
	switch {
	case s.Args["to"] != nil && s.Args["from"] != nil:
		s.summary = fmt.Sprintf("swipe %s → %s", f.node("from").Value, f.node("to").Value)
	default:
		s.summary = "swipe " + valueSummary(s.Args["direction"])
		if s.Sel != nil {
			s.summary += " from " + s.Sel.String()
		} else if s.Args["from"] != nil {
			s.summary += " from " + f.node("from").Value
		}
	}
}

func parseScroll(p *parser, s *Step, f *fields) {
	if s.Sel == nil {
		s.Sel = f.sel()
	}
	if s.Sel == nil {
		p.need(s, f, "scroll_until_visible needs a selector, e.g. %s", exampleOf(f.def))
		return
	}
	dir := "down"
	if f.has("direction") {
		d := f.str("direction")
		dir, _ = d.Static()
		if !contains(directions, dir) {
			p.errAt(f.node("direction"), s.Path, "direction must be up, down, left or right, got %q%s", d.Raw, didYouMean(d.Raw, directions))
		}
	}
	s.Args["direction"] = &Value{Kind: VString, Str: &Str{Raw: dir, Parts: []StrPart{{Text: dir}}}}
	if f.has("max_swipes") {
		s.Args["max_swipes"] = f.intValue("max_swipes")
	}
	scrollOptions(p, s, f)
	s.summary = "scroll " + dir + " until " + s.Sel.String() + " is visible"
}

func genSwipe(g *gen, s *Step, id string) {
	w := g.w
	to := strconv.FormatInt(g.timeoutMs(s), 10)
	dev := g.use("device")
	dur := "300"
	if v := s.Args["duration_ms"]; v != nil {
		dur = strconv.FormatInt(v.Int, 10)
	}
	if dest := s.Args["to"]; dest != nil {
		x1, y1 := g.pointXY(s.Args["from"])
		x2, y2 := g.pointXY(dest)
		w.f("flow.must(%s.swipe(%s, %s, %s, %s, {duration_ms = %s}))", dev, x1, y1, x2, y2, dur)
	} else {
		from := "nil"
		switch {
		case s.Sel != nil:
			g.use("ui")
			from = g.sel(s.Sel)
		case s.Args["from"] != nil:
			pt := s.Args["from"]
			from = fmt.Sprintf("{x = %s, y = %s, pct = %t}", numLit(pt.List[0].Num), numLit(pt.List[1].Num), pt.Bool)
		}
		w.f("flow.swipe(%s, %s, {duration_ms = %s, timeout_ms = %s})", g.literal(s.Args["direction"]), from, dur, to)
	}
	g.settle()
}

func genScroll(g *gen, s *Step, id string) {
	w := g.w
	to := strconv.FormatInt(g.timeoutMs(s), 10)
	if g.genScroll(s, to) {
		return
	}
	o := g.opts("direction", g.literal(s.Args["direction"]), "max_swipes", g.argTyped(s, "max_swipes"), "timeout_ms", to)
	w.f("flow.must(%s.scroll_into_view(%s, %s))", g.use("ui"), g.sel(s.Sel), o)
}
