package skills

import (
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

// containerClass reports classes whose text is usually borrowed from a child
// label (a clickable row), so the selector must match the label instead.
func containerClass(class string) bool {
	c := simpleClass(class)
	switch c {
	case "View", "ViewGroup", "RecyclerView", "ListView", "ScrollView", "CardView", "GridView":
		return true
	}
	return strings.HasSuffix(c, "Layout")
}

func editableClass(class string) bool {
	return strings.Contains(simpleClass(class), "EditText")
}

func simpleClass(c string) string {
	if i := strings.LastIndexByte(c, '.'); i >= 0 {
		return c[i+1:]
	}
	return c
}

// PrimarySelector is the first selector a replay tries for a recorded
// element: every identifying field that is stable — resource-id,
// content-desc, class and the text (except a field's typed contents). A
// container whose text was borrowed from a child label is found by that
// label instead ({text=…}; tapping a label taps its clickable row). ok is
// false when the target has nothing to select by.
func PrimarySelector(t *engine.Target) (screen.Selector, bool) {
	if t == nil {
		return screen.Selector{}, false
	}
	text := strings.TrimSpace(t.Text)
	if containerClass(t.ClassName) && text != "" && t.ResourceID == "" && t.ContentDesc == "" {
		return screen.Selector{Text: text}, true
	}
	s := screen.Selector{ID: t.ResourceID, Desc: strings.TrimSpace(t.ContentDesc), Class: t.ClassName}
	if !editableClass(t.ClassName) && !containerClass(t.ClassName) {
		s.Text = text
	}
	if s.ID == "" && s.Desc == "" && s.Text == "" {
		if s.Class == "" {
			return screen.Selector{}, false
		}
		// Nothing but the class (a container recorded without its
		// borrowed label): class and index among matches.
		return screen.Selector{Class: s.Class}, true
	}
	return s, true
}

// identifiable reports whether a target has more than its class to be
// found by (a resource-id, text or content-desc).
func identifiable(t *engine.Target) bool {
	s, ok := PrimarySelector(t)
	return ok && (s.ID != "" || s.Text != "" || s.Desc != "")
}

// Candidates are the selectors a replay tries in order: the primary
// selector (with the recorded index among its matches), then resource-id,
// text and content-desc each with the class, accepted only when unique.
func Candidates(t *engine.Target) []Candidate {
	prim, ok := PrimarySelector(t)
	if !ok {
		return nil
	}
	if t.Index > 0 {
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
	if text != "" && !editableClass(t.ClassName) {
		if containerClass(t.ClassName) {
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

// TargetOf describes node n of the tree under root the way replay finds it
// again: its own attributes (a container without a label of its own gets
// the label it borrows from a child), device bounds, and Index, n's
// position among the matches of [PrimarySelector]. The agent loop can use
// it to fill engine.TraceStep.Target.
func TargetOf(root, n *screen.Node) *engine.Target {
	if n == nil {
		return nil
	}
	t := &engine.Target{
		Text:        strings.TrimSpace(n.Text),
		ResourceID:  n.ResourceID,
		ContentDesc: strings.TrimSpace(n.ContentDesc),
		ClassName:   n.Class,
		Bounds:      n.Bounds,
	}
	if t.Text == "" && t.ContentDesc == "" && !editableClass(n.Class) {
		t.Text = n.Label()
	}
	if sel, ok := PrimarySelector(t); ok && root != nil {
		if m, err := sel.Compile(); err == nil {
			all := m.FindAll(root)
			target := screen.ActionTarget(n)
			for i, c := range all {
				if c == n || screen.ActionTarget(c) == target {
					t.Index = i
					break
				}
			}
		}
	}
	return t
}

// TargetOfElement is [TargetOf] for a numbered element of a snapshot (the
// element a tap_element acted on).
func TargetOfElement(snap *screen.Snapshot, el *screen.UIElement) *engine.Target {
	if el == nil {
		return nil
	}
	if el.Node != nil && snap != nil {
		return TargetOf(snap.Tree, el.Node)
	}
	return &engine.Target{Text: el.Text, ResourceID: el.ResourceID, ContentDesc: el.ContentDesc, ClassName: el.ClassName, Bounds: el.Bounds}
}
