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

// TargetOfElement is [engine.TargetOfElement] (the agent records
// TraceStep.Target with it; learning reads it back).
func TargetOfElement(snap *screen.Snapshot, el *screen.UIElement) *engine.Target {
	return engine.TargetOfElement(snap, el)
}

// NearLabel is [engine.NearLabel].
func NearLabel(n *screen.Node) string { return engine.NearLabel(n) }
