package airesolve

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strings"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/screen"
)

// Locator is a resolved element as a selector: what later runs find it by
// without asking a model. It is the primary selector learned skills
// replay (engine.PrimarySelector) plus the element's position among its
// matches and the label beside it (the row's title beside a switch), which
// tells same-looking elements apart.
type Locator struct {
	Text  string `json:"text,omitempty"`
	ID    string `json:"id,omitempty"`
	Desc  string `json:"desc,omitempty"`
	Class string `json:"class,omitempty"`
	Index int    `json:"index,omitempty"`
	Near  string `json:"near,omitempty"`
}

// LocatorOf is the locator of a recorded target; ok is false when the
// target has nothing to be found by.
func LocatorOf(t *engine.Target) (Locator, bool) {
	sel, ok := engine.PrimarySelector(t)
	if !ok {
		return Locator{}, false
	}
	l := Locator{Text: sel.Text, ID: sel.ID, Desc: sel.Desc, Class: sel.Class, Near: t.Near}
	if l.Near == "" {
		l.Index = t.Index
	}
	return l, true
}

// Selector is the locator's selector without index and neighbour.
func (l Locator) Selector() screen.Selector {
	return screen.Selector{Text: l.Text, ID: l.ID, Desc: l.Desc, Class: l.Class}
}

// Empty reports a locator that selects nothing specific.
func (l Locator) Empty() bool { return l.Text == "" && l.ID == "" && l.Desc == "" && l.Class == "" }

// String names the locator in messages and reports.
func (l Locator) String() string {
	s := l.Selector()
	if l.Index > 0 {
		s.Index = screen.Int(l.Index)
	}
	out := s.String()
	if l.Near != "" {
		out += " beside \"" + l.Near + "\""
	}
	return out
}

// Find is the locator's element in the tree under root: the match beside
// the recorded label among same-looking ones, else the match at the
// recorded index; nil when there is none (or the alike matches cannot be
// told apart because the label is gone).
func (l Locator) Find(root *screen.Node) *screen.Node {
	if root == nil || l.Empty() {
		return nil
	}
	m, err := l.Selector().Compile()
	if err != nil {
		return nil
	}
	all := m.FindAll(root)
	switch {
	case len(all) == 0:
		return nil
	case l.Near != "" && len(all) > 1:
		return nearest(root, all, l.Near)
	case l.Index < len(all):
		return all[l.Index]
	}
	return nil
}

// nearest is the match closest to a node labelled near; nil when no node
// carries that label.
func nearest(root *screen.Node, matches []*screen.Node, near string) *screen.Node {
	var best *screen.Node
	bestD := math.MaxFloat64
	root.Walk(func(x *screen.Node) bool {
		l := strings.Join(strings.Fields(x.Text), " ")
		if l == "" {
			l = strings.Join(strings.Fields(x.ContentDesc), " ")
		}
		if l != near || !x.Visible() {
			return true
		}
		lc := x.Center()
		for _, m := range matches {
			c := m.Center()
			if d := math.Hypot(float64(c.X-lc.X), float64(c.Y-lc.Y)); d < bestD {
				best, bestD = m, d
			}
		}
		return true
	})
	return best
}

// Finder adapts a locator to engine/device's UI service (Wait, Poll).
type Finder struct{ Locator Locator }

// Find implements device.Finder.
func (f Finder) Find(root *screen.Node) *screen.Node { return f.Locator.Find(root) }

// String implements device.Finder.
func (f Finder) String() string { return f.Locator.String() }

// Fingerprint identifies what a screen shows for the purpose of reusing a
// judgement about it: every visible element's package, class,
// id, text, description and checked state, in tree order. The same
// screen in the same state gives the same fingerprint; a changed label, a
// toggled switch or another screen gives another one.
func Fingerprint(root *screen.Node) string {
	h := sha256.New()
	var parts []string
	if root != nil {
		root.Walk(func(n *screen.Node) bool {
			if !n.Visible() {
				return false
			}
			if n.Text == "" && n.ContentDesc == "" && n.ResourceID == "" && !n.Checkable {
				return true
			}
			parts = append(parts, strings.Join([]string{n.Package, engine.SimpleClass(n.Class), n.ResourceID, n.Text, n.ContentDesc,
				boolStr(n.Checked)}, "\x1f"))
			return true
		})
	}
	// Tree order, not a sorted set: which row's switch is checked matters
	// (a sorted set of parts would not tell Wi-Fi on from Bluetooth on).
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func boolStr(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
