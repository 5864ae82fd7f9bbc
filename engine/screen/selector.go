package screen

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
)

// Selector describes UI nodes by their attributes, state and position
// relative to other nodes. Zero-valued fields do not constrain; all set
// fields must hold (AND). See the package documentation for the exact
// semantics. Compile it once and reuse the Matcher.
type Selector struct {
	Text         string // exact label: text, content-desc or hint
	TextContains string // case-insensitive substring of text, content-desc or hint
	TextRegex    string // RE2 full match of text, content-desc or hint
	ID           string // resource-id, full or the part after ":id/"
	IDRegex      string // RE2 full match of the resource-id, full or the part after ":id/"
	Desc         string // exact content-desc
	DescContains string // case-insensitive substring of content-desc
	Class        string // full class name or simple name ("Button")
	Package      string // exact package

	Index *int // 0-based pick among the final ordered matches

	Clickable, Enabled, Checked, Focused, Selected, Scrollable, Checkable *bool

	Below, Above, LeftOf, RightOf, ChildOf, Contains *Selector

	ContainsChild *Selector // a direct child matches (Contains: any descendant)

	// ContainsAll: each of these matches some descendant (Maestro's
	// containsDescendants list).
	ContainsAll []*Selector
}

// Bool returns a pointer to b, for Selector state fields.
func Bool(b bool) *bool { return &b }

// Int returns a pointer to i, for Selector.Index.
func Int(i int) *int { return &i }

// maxSelectorDepth bounds relation nesting (and catches cycles).
const maxSelectorDepth = 16

// Matcher is a compiled Selector. It is immutable and safe for concurrent
// use.
type Matcher struct {
	sel Selector

	text, textContains, desc, descContains string
	re, idRe                               *regexp.Regexp

	below, above, leftOf, rightOf, childOf, contains, containsChild *Matcher
	containsAll                                                     []*Matcher
}

// Compile validates the selector and precompiles its regular expression and
// relations. Errors name the offending field (nested ones by their relation
// path, e.g. `below.textRegex`).
func (s Selector) Compile() (*Matcher, error) {
	return s.compile("", 0)
}

// MustCompile is Compile that panics on error, for selectors fixed in code.
func (s Selector) MustCompile() *Matcher {
	m, err := s.Compile()
	if err != nil {
		panic(err)
	}
	return m
}

func (s Selector) compile(path string, depth int) (*Matcher, error) {
	field := func(name string) string {
		if path == "" {
			return name
		}
		return path + "." + name
	}
	fail := func(name, format string, args ...any) error {
		return fmt.Errorf("screen: selector %s: %s", field(name), fmt.Sprintf(format, args...))
	}
	if depth > maxSelectorDepth {
		return nil, fmt.Errorf("screen: selector %s: relations nested more than %d deep (cycle?)", path, maxSelectorDepth)
	}
	if s.isEmpty() {
		where := "selector"
		if path != "" {
			where = "selector " + path
		}
		return nil, fmt.Errorf("screen: empty %s: set at least one of text, textContains, textRegex, id, idRegex, desc, descContains, class, package, a state (clickable, enabled, checked, focused, selected, scrollable, checkable) or a relation (below, above, leftOf, rightOf, childOf, contains, containsChild)", where)
	}
	m := &Matcher{sel: s}
	if s.Index != nil && *s.Index < 0 {
		return nil, fail("index", "must be >= 0, got %d", *s.Index)
	}
	for _, f := range []struct {
		name, raw string
		dst       *string
		lower     bool
	}{
		{"text", s.Text, &m.text, false},
		{"textContains", s.TextContains, &m.textContains, true},
		{"desc", s.Desc, &m.desc, false},
		{"descContains", s.DescContains, &m.descContains, true},
	} {
		if f.raw == "" {
			continue
		}
		v := normalize(f.raw)
		if v == "" {
			return nil, fail(f.name, "%q is blank after normalizing whitespace", f.raw)
		}
		if f.lower {
			v = strings.ToLower(v)
		}
		*f.dst = v
	}
	for _, rx := range []struct {
		name, src string
		dst       **regexp.Regexp
	}{{"textRegex", s.TextRegex, &m.re}, {"idRegex", s.IDRegex, &m.idRe}} {
		if rx.src == "" {
			continue
		}
		re, err := regexp.Compile(`^(?:` + rx.src + `)$`)
		if err != nil {
			var perr *syntax.Error
			if errors.As(err, &perr) {
				return nil, fail(rx.name, "invalid regular expression %q: %s: %q", rx.src, perr.Code, perr.Expr)
			}
			return nil, fail(rx.name, "invalid regular expression %q: %v", rx.src, err)
		}
		*rx.dst = re
	}
	for _, r := range []struct {
		name string
		sub  *Selector
		dst  **Matcher
	}{
		{"below", s.Below, &m.below},
		{"above", s.Above, &m.above},
		{"leftOf", s.LeftOf, &m.leftOf},
		{"rightOf", s.RightOf, &m.rightOf},
		{"childOf", s.ChildOf, &m.childOf},
		{"contains", s.Contains, &m.contains},
		{"containsChild", s.ContainsChild, &m.containsChild},
	} {
		if r.sub == nil {
			continue
		}
		sub, err := r.sub.compile(field(r.name), depth+1)
		if err != nil {
			return nil, err
		}
		*r.dst = sub
	}
	for i, sub := range s.ContainsAll {
		if sub == nil {
			return nil, fail(fmt.Sprintf("containsAll[%d]", i), "is nil")
		}
		cm, err := sub.compile(field(fmt.Sprintf("containsAll[%d]", i)), depth+1)
		if err != nil {
			return nil, err
		}
		m.containsAll = append(m.containsAll, cm)
	}
	return m, nil
}

func (s Selector) isEmpty() bool {
	return s.Text == "" && s.TextContains == "" && s.TextRegex == "" && s.ID == "" &&
		s.Desc == "" && s.DescContains == "" && s.Class == "" && s.Package == "" &&
		s.Clickable == nil && s.Enabled == nil && s.Checked == nil && s.Focused == nil &&
		s.Selected == nil && s.Scrollable == nil && s.Checkable == nil &&
		s.Below == nil && s.Above == nil && s.LeftOf == nil && s.RightOf == nil &&
		s.ChildOf == nil && s.Contains == nil && s.IDRegex == "" && s.ContainsChild == nil && len(s.ContainsAll) == 0
}

// Selector returns the selector the matcher was compiled from.
func (m *Matcher) Selector() Selector { return m.sel }

// String is the selector's String.
func (m *Matcher) String() string { return m.sel.String() }

// matchLocal checks everything but the relations.
func (m *Matcher) matchLocal(n *Node) bool {
	s := &m.sel
	if s.Package != "" && n.Package != s.Package {
		return false
	}
	if s.ID != "" && n.ResourceID != s.ID && shortID(n.ResourceID) != s.ID {
		return false
	}
	if m.idRe != nil && (n.ResourceID == "" || !m.idRe.MatchString(n.ResourceID) && !m.idRe.MatchString(shortID(n.ResourceID))) {
		return false
	}
	if s.Class != "" && n.Class != s.Class && simpleClass(n.Class) != s.Class {
		return false
	}
	for _, st := range [...]struct {
		want *bool
		have bool
	}{
		{s.Clickable, n.Clickable}, {s.Enabled, n.Enabled}, {s.Checked, n.Checked},
		{s.Focused, n.Focused}, {s.Selected, n.Selected}, {s.Scrollable, n.Scrollable},
		{s.Checkable, n.Checkable},
	} {
		if st.want != nil && *st.want != st.have {
			return false
		}
	}
	if m.desc != "" || m.descContains != "" {
		d := normalize(n.ContentDesc)
		if m.desc != "" && d != m.desc {
			return false
		}
		if m.descContains != "" && !strings.Contains(strings.ToLower(d), m.descContains) {
			return false
		}
	}
	if m.text != "" || m.textContains != "" || m.re != nil {
		labels := [...]string{normalize(n.Text), normalize(n.ContentDesc), normalize(n.Hint())}
		if m.text != "" && labels[0] != m.text && labels[1] != m.text && labels[2] != m.text {
			return false
		}
		if m.textContains != "" && !containsFold(labels[:], m.textContains) {
			return false
		}
		if m.re != nil && !m.re.MatchString(labels[0]) && !m.re.MatchString(labels[1]) && !m.re.MatchString(labels[2]) {
			return false
		}
	}
	return true
}

func containsFold(labels []string, lowerNeedle string) bool {
	for _, l := range labels {
		if l != "" && strings.Contains(strings.ToLower(l), lowerNeedle) {
			return true
		}
	}
	return false
}

type match struct {
	n                   *Node
	offAxis             int // spatial references not in the node's row/column
	gap, center, levels float64
	order               int
}

// FindAll returns the visible nodes under root (root included unless it is
// the synthetic hierarchy root) that match, ordered by distance to the
// relation references when the selector has a relation, else in document
// order. With Index set it returns at most that one node.
func (m *Matcher) FindAll(root *Node) []*Node {
	if m == nil || root == nil {
		return nil
	}
	type spatialRef struct {
		ref        *Node
		keep       func(n, ref Rect) bool
		horizontal bool // LeftOf/RightOf: same row means overlapping Y extents
	}
	var spatial []spatialRef
	for _, r := range []struct {
		m          *Matcher
		keep       func(n, ref Rect) bool
		horizontal bool
	}{
		{m.below, func(n, ref Rect) bool { return n.Top >= ref.Bottom }, false},
		{m.above, func(n, ref Rect) bool { return n.Bottom <= ref.Top }, false},
		{m.leftOf, func(n, ref Rect) bool { return n.Right <= ref.Left }, true},
		{m.rightOf, func(n, ref Rect) bool { return n.Left >= ref.Right }, true},
	} {
		if r.m == nil {
			continue
		}
		ref := r.m.Find(root)
		if ref == nil {
			return nil
		}
		spatial = append(spatial, spatialRef{ref, r.keep, r.horizontal})
	}
	var parents map[*Node]bool
	if m.childOf != nil {
		refs := m.childOf.FindAll(root)
		if len(refs) == 0 {
			return nil
		}
		parents = make(map[*Node]bool, len(refs))
		for _, r := range refs {
			parents[r] = true
		}
	}
	var holders map[*Node]int // strict ancestor of a contained match → levels
	if m.contains != nil {
		if holders = ancestorsOf(m.contains, root); holders == nil {
			return nil
		}
	}
	var allHolders []map[*Node]int // one per containsAll selector
	for _, cm := range m.containsAll {
		h := ancestorsOf(cm, root)
		if h == nil {
			return nil
		}
		allHolders = append(allHolders, h)
	}
	var directParents map[*Node]bool // parents of a containsChild match
	if m.containsChild != nil {
		refs := m.containsChild.FindAll(root)
		if len(refs) == 0 {
			return nil
		}
		directParents = make(map[*Node]bool, len(refs))
		for _, r := range refs {
			if r.Parent != nil {
				directParents[r.Parent] = true
			}
		}
	}
	relational := len(spatial) > 0 || parents != nil || holders != nil || directParents != nil || allHolders != nil

	var out []match
	order := 0
	root.Walk(func(n *Node) bool {
		order++
		if n.IsRoot() || !n.Visible() || !m.matchLocal(n) {
			return true
		}
		mt := match{n: n, order: order}
		for _, sp := range spatial {
			if !sp.keep(n.Bounds, sp.ref.Bounds) {
				return true
			}
			a, b := n.Bounds, sp.ref.Bounds
			if (sp.horizontal && (a.Bottom <= b.Top || a.Top >= b.Bottom)) ||
				(!sp.horizontal && (a.Right <= b.Left || a.Left >= b.Right)) {
				mt.offAxis++
			}
			mt.gap += rectGap(a, b)
			mt.center += pointDist(n.Center(), sp.ref.Center())
		}
		if parents != nil {
			lv, found := 0, false
			for p := n.Parent; p != nil && !found; p = p.Parent {
				lv++
				found = parents[p]
			}
			if !found {
				return true
			}
			mt.levels += float64(lv)
		}
		if holders != nil {
			lv, ok := holders[n]
			if !ok {
				return true
			}
			mt.levels += float64(lv)
		}
		if directParents != nil {
			if !directParents[n] {
				return true
			}
			mt.levels++
		}
		for _, h := range allHolders {
			lv, ok := h[n]
			if !ok {
				return true
			}
			mt.levels += float64(lv)
		}
		out = append(out, mt)
		return true
	})
	if relational {
		sort.SliceStable(out, func(i, j int) bool {
			a, b := out[i], out[j]
			if a.offAxis != b.offAxis {
				return a.offAxis < b.offAxis
			}
			if a.gap != b.gap {
				return a.gap < b.gap
			}
			if a.center != b.center {
				return a.center < b.center
			}
			if a.levels != b.levels {
				return a.levels < b.levels
			}
			return a.order < b.order
		})
	}
	if m.sel.Index != nil {
		i := *m.sel.Index
		if i >= len(out) {
			return nil
		}
		return []*Node{out[i].n}
	}
	nodes := make([]*Node, len(out))
	for i, mt := range out {
		nodes[i] = mt.n
	}
	return nodes
}

// Find returns the first node FindAll would return, or nil.
func (m *Matcher) Find(root *Node) *Node {
	if all := m.FindAll(root); len(all) > 0 {
		return all[0]
	}
	return nil
}

// rectGap is the Euclidean distance between the closest edges of a and b
// (0 when they overlap).
func rectGap(a, b Rect) float64 {
	dx := max(0, b.Left-a.Right, a.Left-b.Right)
	dy := max(0, b.Top-a.Bottom, a.Top-b.Bottom)
	return math.Hypot(float64(dx), float64(dy))
}

func pointDist(a, b Point) float64 {
	return math.Hypot(float64(a.X-b.X), float64(a.Y-b.Y))
}

// ActionTarget is the node a tap on n should hit: the nearest clickable
// ancestor-or-self, so a selector matching a plain label inside a clickable
// row taps the row. Top-level window roots are not used as targets; when no
// other ancestor is clickable, n itself is returned. nil only for nil.
func ActionTarget(n *Node) *Node {
	for p := n; p != nil; p = p.Parent {
		if p.IsRoot() || (p.Parent != nil && p.Parent.IsRoot()) {
			break
		}
		if p.Clickable && p.Visible() {
			return p
		}
	}
	return n
}

// String renders the selector for messages, e.g.
// `text="Save" clickable=true below(id="title")`; "<empty selector>" when
// nothing is set.
func (s Selector) String() string { return s.stringDepth(0) }

func (s Selector) stringDepth(depth int) string {
	if depth > maxSelectorDepth {
		return "…"
	}
	var parts []string
	str := func(name, v string) {
		if v != "" {
			parts = append(parts, name+"="+strconv.Quote(v))
		}
	}
	str("text", s.Text)
	str("textContains", s.TextContains)
	str("textRegex", s.TextRegex)
	str("id", s.ID)
	str("idRegex", s.IDRegex)
	str("desc", s.Desc)
	str("descContains", s.DescContains)
	str("class", s.Class)
	str("package", s.Package)
	for _, b := range []struct {
		name string
		v    *bool
	}{
		{"clickable", s.Clickable}, {"enabled", s.Enabled}, {"checked", s.Checked},
		{"focused", s.Focused}, {"selected", s.Selected}, {"scrollable", s.Scrollable},
		{"checkable", s.Checkable},
	} {
		if b.v != nil {
			parts = append(parts, b.name+"="+strconv.FormatBool(*b.v))
		}
	}
	if s.Index != nil {
		parts = append(parts, "index="+strconv.Itoa(*s.Index))
	}
	for _, r := range []struct {
		name string
		v    *Selector
	}{
		{"below", s.Below}, {"above", s.Above}, {"leftOf", s.LeftOf},
		{"rightOf", s.RightOf}, {"childOf", s.ChildOf}, {"contains", s.Contains},
		{"containsChild", s.ContainsChild},
	} {
		if r.v != nil {
			parts = append(parts, r.name+"("+r.v.stringDepth(depth+1)+")")
		}
	}
	for _, c := range s.ContainsAll {
		if c != nil {
			parts = append(parts, "contains("+c.stringDepth(depth+1)+")")
		}
	}
	if len(parts) == 0 {
		return "<empty selector>"
	}
	return strings.Join(parts, " ")
}

// ancestorsOf maps every strict ancestor of a match of m to the fewest
// levels above one; nil when m matches nothing.
func ancestorsOf(m *Matcher, root *Node) map[*Node]int {
	refs := m.FindAll(root)
	if len(refs) == 0 {
		return nil
	}
	holders := make(map[*Node]int)
	for _, r := range refs {
		lv := 1
		for p := r.Parent; p != nil; p = p.Parent {
			if old, ok := holders[p]; !ok || lv < old {
				holders[p] = lv
			}
			lv++
		}
	}
	return holders
}
