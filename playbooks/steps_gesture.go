package playbooks

import (
	"fmt"
	"strconv"
	"time"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/lua/luasrc"
	"go.yaml.in/yaml/v3"
)

// Gesture steps: swipes and scrolling an element into view. Each step's node, parser and code generator sit together here.

func gestureStepDefs() []*stepDef {
	return []*stepDef{
		define(stepDef{Name: "swipe", Short: "direction", Keys: []string{"direction", "from", "to", "duration", "x1", "y1", "x2", "y2", "durationMs", "reason"}, Example: "swipe: up",
			Doc: "Swipe in a direction (the finger's movement), from a point or element, or between two points."}, parseSwipe, genSwipe),
		define(stepDef{Name: "scroll_until_visible", Short: "@sel", Sel: true, Keys: []string{"direction", "max_swipes", "speed", "visibility_percentage", "centered"},
			Example: "scroll_until_visible: Zoe Zimmerman", Doc: "Scroll until an element is visible."}, parseScroll, genScroll),
	}
}

// swipeNode is swipe: in a direction (from the step's selector, a point or
// the screen's middle), between two points, or (its x1/y1/x2/y2 form) the
// swipe action.
type swipeNode struct {
	Direction *Str
	From      *Value         // a point; nil = the selector or the middle
	To        *Value         // a point: swipe From → To
	Duration  *time.Duration // nil = 300ms
	Action    *actionNode    // the x1/y1/x2/y2 form
}

func (*swipeNode) stepNode() {}

// scrollNode is scroll_until_visible (the element is the step's selector).
type scrollNode struct {
	Direction string // up, down, left or right
	MaxSwipes *Value // an integer or ${expr}; nil = the runtime's default
	// Maestro's options; any of them selects the runtime's own loop.
	Speed      *int  // 0-100
	Visibility *int  // visibility_percentage, 0-100
	Centered   *bool // nil = not given
}

func (*scrollNode) stepNode() {}

var directions = []string{"up", "down", "left", "right"}

func parseSwipe(p *parser, s *Step, f *fields, n *swipeNode) {
	if f.has("x1") || f.has("y1") || f.has("x2") || f.has("y2") {
		for _, k := range []string{"direction", "from", "to", "duration"} {
			if f.has(k) {
				p.errAt(f.key[k], s.Path, "%s cannot be combined with x1/y1/x2/y2 (the swipe action)", k)
			}
		}
		spec, _ := action.Lookup("swipe")
		n.Action = &actionNode{}
		p.actionParams(s, spec, f, n.Action)
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
		n.Direction = d
	}
	if node := f.node("from"); node != nil {
		if node.Kind == yaml.ScalarNode && pointRe.MatchString(node.Value) {
			n.From = p.point(node, s.Path+".from")
		} else {
			s.Sel = p.selector(node, s.Path+".from", false)
		}
	}
	if node := f.node("to"); node != nil {
		n.To = p.point(node, s.Path+".to")
		if n.From == nil {
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
		n.Duration = &d
	}
	switch {
	case n.To != nil && n.From != nil:
		s.summary = fmt.Sprintf("swipe %s → %s", f.node("from").Value, f.node("to").Value)
	default:
		s.summary = "swipe " + strSummary(n.Direction)
		if s.Sel != nil {
			s.summary += " from " + s.Sel.String()
		} else if n.From != nil {
			s.summary += " from " + f.node("from").Value
		}
	}
}

func parseScroll(p *parser, s *Step, f *fields, n *scrollNode) {
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
	n.Direction = dir
	if f.has("max_swipes") {
		n.MaxSwipes = f.intValue("max_swipes")
	}
	scrollOptions(p, s, f, n)
	s.summary = "scroll " + dir + " until " + s.Sel.String() + " is visible"
}

func genSwipe(g *gen, s *Step, n *swipeNode, id string) {
	if n.Action != nil {
		genAction(g, s, n.Action, id)
		return
	}
	w := g.w
	to := strconv.FormatInt(g.timeoutMs(s), 10)
	dev := g.use("device")
	dur := "300"
	if n.Duration != nil {
		dur = strconv.FormatInt(n.Duration.Milliseconds(), 10)
	}
	if dest := n.To; dest != nil {
		x1, y1 := g.pointXY(n.From)
		x2, y2 := g.pointXY(dest)
		w.f("flow.must(%s.swipe(%s, %s, %s, %s, {duration_ms = %s}))", dev, x1, y1, x2, y2, dur)
	} else {
		from := "nil"
		switch {
		case s.Sel != nil:
			g.use("ui")
			from = g.sel(s.Sel)
		case n.From != nil:
			pt := n.From
			from = fmt.Sprintf("{x = %s, y = %s, pct = %t}", numLit(pt.List[0].Num), numLit(pt.List[1].Num), pt.Bool)
		}
		dir := "nil"
		if n.Direction != nil {
			dir = g.str(n.Direction)
		}
		w.f("flow.swipe(%s, %s, {duration_ms = %s, timeout_ms = %s})", dir, from, dur, to)
	}
	g.settle()
}

func genScroll(g *gen, s *Step, n *scrollNode, id string) {
	w := g.w
	to := strconv.FormatInt(g.timeoutMs(s), 10)
	if g.genScroll(s, n, to) {
		return
	}
	o := g.opts("direction", luasrc.Quote(n.Direction), "max_swipes", g.typedOpt(n.MaxSwipes), "timeout_ms", to)
	w.f("flow.must(%s.scroll_into_view(%s, %s))", g.use("ui"), g.sel(s.Sel), o)
}
