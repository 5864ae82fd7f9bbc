package skills

import (
	"math"
	"strings"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/screen"
)

// Candidate is one selector a replay tries to find a recorded element with.
// Unique candidates are accepted only when they match exactly one node (a
// relaxed selector that matches several would be a guess).
type Candidate struct {
	Sel    screen.Selector
	Unique bool
	// Why names the candidate in logs ("resource-id", "text", …).
	Why string
}

// identifiable reports whether a target has more than its class to be
// found by (a resource-id, text or content-desc).
func identifiable(t *engine.Target) bool {
	s, ok := engine.PrimarySelector(t)
	return ok && (s.ID != "" || s.Text != "" || s.Desc != "")
}

// Candidates are the selectors a replay tries in order: the primary
// selector (with the recorded index among its matches), then resource-id,
// text and content-desc each with the class, accepted only when unique.
func Candidates(t *engine.Target) []Candidate {
	prim, ok := engine.PrimarySelector(t)
	if !ok {
		return nil
	}
	if t.Index > 0 && t.Near == "" {
		prim.Index = screen.Int(t.Index)
	}
	out := []Candidate{{Sel: prim, Why: "recorded selector"}}
	seen := map[string]bool{prim.String(): true}
	add := func(s screen.Selector, why string) {
		if k := s.String(); !seen[k] {
			seen[k] = true
			out = append(out, Candidate{Sel: s, Unique: true, Why: why})
		}
	}
	text := strings.TrimSpace(t.Text)
	if t.ResourceID != "" {
		add(screen.Selector{ID: t.ResourceID, Class: t.ClassName}, "resource-id")
	}
	if text != "" && !engine.EditableClass(t.ClassName) {
		if engine.ContainerClass(t.ClassName) {
			add(screen.Selector{Text: text}, "text")
		} else {
			add(screen.Selector{Text: text, Class: t.ClassName}, "text")
		}
	}
	if d := strings.TrimSpace(t.ContentDesc); d != "" {
		add(screen.Selector{Desc: d, Class: t.ClassName}, "content-desc")
	}
	return out
}

// TargetOfElement is [engine.TargetOf] for a numbered element of a snapshot
// (the element a tap acted on); the agent records TraceStep.Target with it.
// An element without its tree node keeps its own attributes, without Index.
func TargetOfElement(snap *screen.Snapshot, el *screen.UIElement) *engine.Target {
	if el == nil {
		return nil
	}
	if el.Node != nil && snap != nil {
		t := engine.TargetOf(snap.Tree, el.Node)
		if t != nil && (ambiguous(snap.Tree, t) || DialogPackage(el.Node.Package)) {
			t.Near = NearLabel(el.Node)
		}
		if t != nil {
			t.Password = el.Node.Password
		}
		return t
	}
	return &engine.Target{Text: el.Text, ResourceID: el.ResourceID, ContentDesc: el.ContentDesc, ClassName: el.ClassName, Bounds: el.Bounds}
}

// ambiguous reports whether the target's primary selector matches more than
// one node of the recorded tree (list rows, repeated toggles).
func ambiguous(root *screen.Node, t *engine.Target) bool {
	sel, ok := engine.PrimarySelector(t)
	if !ok || root == nil {
		return false
	}
	m, err := sel.Compile()
	return err == nil && len(m.FindAll(root)) > 1
}

// maxNearDepth bounds how far up NearLabel looks for a neighbouring label.
const maxNearDepth = 4

// NearLabel is the label beside node n: the nearest (by centre distance)
// non-clickable text or content-desc outside n's action target, looked for
// in the closest ancestor that has one (a row's title beside its switch, the
// caption under an icon, a dialog's message above its buttons). "" when
// there is none within a few levels.
func NearLabel(n *screen.Node) string {
	target := screen.ActionTarget(n)
	own := target.Label()
	c := target.Center()
	depth := 0
	for anc := target.Parent; anc != nil && !anc.IsRoot() && depth < maxNearDepth; anc, depth = anc.Parent, depth+1 {
		best, bestD := "", math.MaxFloat64
		anc.Walk(func(x *screen.Node) bool {
			if x == target {
				return false
			}
			if x.Clickable || !x.Visible() {
				return true
			}
			l := strings.Join(strings.Fields(x.Text), " ")
			if l == "" {
				l = strings.Join(strings.Fields(x.ContentDesc), " ")
			}
			if l == "" || l == own {
				return true
			}
			xc := x.Center()
			if d := math.Hypot(float64(xc.X-c.X), float64(xc.Y-c.Y)); d < bestD {
				best, bestD = l, d
			}
			return true
		})
		if best != "" {
			return best
		}
	}
	return ""
}
