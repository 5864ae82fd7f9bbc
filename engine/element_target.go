package engine

import (
	"math"
	"strings"

	"github.com/openpocket/openpocket/engine/screen"
)

// TargetOfElement is [TargetOf] for a numbered element of a snapshot
// (the element a tap acted on); the agent records TraceStep.Target with it.
// An element without its tree node keeps its own attributes, without Index.
func TargetOfElement(snap *screen.Snapshot, el *screen.UIElement) *Target {
	if el == nil {
		return nil
	}
	if el.Node != nil && snap != nil {
		t := TargetOf(snap.Tree, el.Node)
		if t != nil && (ambiguous(snap.Tree, t) || DialogPackage(el.Node.Package)) {
			t.Near = NearLabel(el.Node)
		}
		if t != nil {
			t.Password = el.Node.Password
		}
		return t
	}
	return &Target{Text: el.Text, ResourceID: el.ResourceID, ContentDesc: el.ContentDesc, ClassName: el.ClassName, Bounds: el.Bounds}
}

// ambiguous reports whether the target's primary selector matches more than
// one node of the recorded tree (list rows, repeated toggles).
func ambiguous(root *screen.Node, t *Target) bool {
	sel, ok := PrimarySelector(t)
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

// DialogPackage reports the packages whose windows are system dialogs that
// interrupt a task and may or may not show up again: runtime permission
// prompts, and the system server's own dialogs (package "android": "app
// isn't responding", "Open with", the keyboard picker).
func DialogPackage(pkg string) bool {
	switch pkg {
	case "com.android.permissioncontroller", "com.google.android.permissioncontroller",
		"com.android.packageinstaller", "com.google.android.packageinstaller", "android":
		return true
	}
	return false
}
