package engine

import (
	"strings"

	"github.com/openpocket/openpocket/engine/screen"
)

// ContainerClass reports classes whose text is usually borrowed from a child
// label (a clickable row), so the selector must match the label instead.
func ContainerClass(class string) bool {
	c := SimpleClass(class)
	switch c {
	case "View", "ViewGroup", "RecyclerView", "ListView", "ScrollView", "CardView", "GridView":
		return true
	}
	return strings.HasSuffix(c, "Layout")
}

func EditableClass(class string) bool {
	return strings.Contains(SimpleClass(class), "EditText")
}

func SimpleClass(c string) string {
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
func PrimarySelector(t *Target) (screen.Selector, bool) {
	if t == nil {
		return screen.Selector{}, false
	}
	text := strings.TrimSpace(t.Text)
	if ContainerClass(t.ClassName) && text != "" && t.ResourceID == "" && t.ContentDesc == "" {
		return screen.Selector{Text: text}, true
	}
	s := screen.Selector{ID: t.ResourceID, Desc: strings.TrimSpace(t.ContentDesc), Class: t.ClassName}
	if !EditableClass(t.ClassName) && !ContainerClass(t.ClassName) {
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

// TargetOf describes node n of the tree under root the way replay finds it
// again: its own attributes (a container without a label of its own gets
// the label it borrows from a child), device bounds, and Index, n's
// position among the matches of [PrimarySelector]. The agent loop fills
// TraceStep.Target with it; replay selects by PrimarySelector.
func TargetOf(root, n *screen.Node) *Target {
	if n == nil {
		return nil
	}
	t := &Target{
		Text:        strings.TrimSpace(n.Text),
		ResourceID:  n.ResourceID,
		ContentDesc: strings.TrimSpace(n.ContentDesc),
		ClassName:   n.Class,
		Bounds:      n.Bounds,
	}
	if t.Text == "" && t.ContentDesc == "" && !EditableClass(n.Class) {
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
