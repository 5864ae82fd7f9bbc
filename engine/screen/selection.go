package screen

import (
	"strconv"
	"strings"
)

// KeyboardNote is the one line that stands for a folded soft keyboard.
const KeyboardNote = "keyboard shown: type with type_text"

// cand is a node that may become an element.
type cand struct {
	n       *Node
	win     *window
	vis     Rect // bounds clipped to the screen
	order   int  // document order
	target  bool // acted on (clickable, checkable, field); else text or a list
	label   string
	context string
	list    *Node // nearest scrollable ancestor in the window
	outer   *cand // nearest target ancestor
	drop    bool
	merged  []*Node // wrappers folded into this element
	tier    int
	line    int  // length of the rendered line
	noise   bool // decoration the budget cuts first (markNoise)
}

// selector holds one Select call's state.
type selector struct {
	o        ElementOptions
	screen   Rect
	wins     []*window
	cands    []*cand
	byNode   map[*Node]*cand
	caption  map[*Node]bool // nodes used as a sibling caption
	order    int
	covered  map[windowKind]int
	imeShown bool
	focus    *Point // centre of the focused node of the front app window
}

// Select turns a tree into what the model reads (see the package doc,
// "Elements"): the numbered elements, grouped by window and in reading
// order inside each, and the notes that say what was folded or cut.
func Select(root *Node, o ElementOptions) Selection {
	if root == nil {
		return Selection{}
	}
	o = o.withDefaults()
	s := &selector{o: o, screen: screenRect(root, o), byNode: map[*Node]*cand{}, caption: map[*Node]bool{}, covered: map[windowKind]int{}}
	s.wins = classifyWindows(root, s.screen)
	for _, w := range s.wins {
		s.collect(w, w.root, nil, nil)
	}
	s.mergeWrappers()
	s.labelFromCaptions()
	s.dropEchoes()
	s.dropCovered()
	s.foldKeyboard()
	s.disambiguate()
	s.markNoise()
	return s.budget()
}

// screenRect is the device screen: the given size, else the union of the
// window bounds.
func screenRect(root *Node, o ElementOptions) Rect {
	if o.Width > 0 && o.Height > 0 {
		return Rect{Right: o.Width, Bottom: o.Height}
	}
	r := root.Bounds
	if !root.IsRoot() || r.Empty() {
		r = Rect{}
		root.Walk(func(n *Node) bool { r = r.Union(n.Bounds); return true })
	}
	return r
}

// collect walks one window, turning nodes into candidates: targets
// (labelled from their descendants), labelled text outside any target,
// scrollable lists. Unlabeled non-targets and full-screen surfaces without
// a label give nothing. Each node is judged by its own enabled: Android
// does not pass enabled="false" down, so the controls inside a disabled
// container still work, and a disabled control is listed, flagged.
func (s *selector) collect(w *window, n *Node, outer *cand, list *Node) {
	s.order++
	vis := n.Bounds.Intersect(s.screen)
	if n.Focused && w.kind == kindApp && s.focus == nil && !vis.Empty() {
		c := vis.Center()
		s.focus = &c
	}
	if n.Visible() && !vis.Empty() {
		if c := s.consider(w, n, vis, outer, list); c != nil {
			if c.target {
				outer = c
			}
		}
		if n.Scrollable {
			list = n
		}
	}
	for _, k := range n.Children {
		s.collect(w, k, outer, list)
	}
}

func (s *selector) consider(w *window, n *Node, vis Rect, outer *cand, list *Node) *cand {
	text, desc := nodeText(n), nodeDesc(n)
	own := text
	if own == "" {
		own = desc
	}
	target := interactive(n) || (w.focusOnly && n.Enabled && n.Focusable)
	switch {
	case editable(n):
	case n.Scrollable:
		target = false // a list holds controls and text; it reads none of them
	case target && own == "" && s.surface(vis):
		target = false // a clickable background, not a control
	}
	if !target && !n.Scrollable && (own == "" || outer != nil) {
		return nil // unlabeled, or text its target already reads
	}
	if !target && own == "" && n.ResourceID == "" {
		return nil // a scrollable nothing names
	}
	c := &cand{n: n, win: w, vis: vis, order: s.order, target: target, label: own, list: list, outer: outer}
	if target && own == "" {
		if editable(n) {
			c.label = cleanLabel(n.Hint())
		}
		if c.label == "" {
			c.label = glyphName(n)
		}
		if c.label == "" {
			c.label = descendantLabel(n)
		}
	}
	s.cands = append(s.cands, c)
	s.byNode[n] = c
	return c
}

// tinyShare is the share of the screen's short side below which a target
// inside a named target is part of it, not a control of its own (about
// 30 dp on a phone: well under a touch target; a row's avatar is bigger).
const tinyShare = 1.0 / 12

func (s *selector) tiny(r Rect) bool {
	side := float64(min(s.screen.Width(), s.screen.Height())) * tinyShare
	return float64(r.Width()) < side && float64(r.Height()) < side
}

// surface reports an area covering most of the screen.
func (s *selector) surface(vis Rect) bool {
	sa := float64(s.screen.Area())
	return sa > 0 && float64(vis.Area()) >= fullscreenRatio*sa
}

// mergeWrappers folds a target into the target inside it with exactly the
// same bounds (a clickable FrameLayout around its Button): one control,
// one element, with the inner node's class and the outer's label when the
// inner has none. A switch that is not clickable itself inside a clickable
// row (Settings) is folded into the row, which takes its checked state, and
// a tiny target inside a labelled one (a launcher folder's 26-px previews)
// is part of it. A small checkable inside a labelled row (an alarm's
// on/off switch) stays a control of its own.
func (s *selector) mergeWrappers() {
	for _, c := range s.cands {
		o := c.outer
		for o != nil && o.drop {
			o = o.outer
		}
		if !c.target || o == nil || o.win != c.win {
			continue
		}
		if c.n.Checkable && !c.n.Clickable && o.n.Clickable && !o.n.Checkable {
			c.drop = true
			o.merged = append(o.merged, c.n)
			continue
		}
		if s.tiny(c.vis) && !c.n.Checkable && o.n.ownLabel() != "" {
			c.drop = true // a folder's preview thumbnail: the folder is the control
			continue
		}
		if o.vis != c.vis {
			continue
		}
		o.drop = true
		if c.label == "" {
			c.label = o.label
		}
		c.merged = append(c.merged, o.n)
	}
}

// labelFromCaptions labels icons from a sibling caption below or beside
// them; the caption is then not listed on its own.
func (s *selector) labelFromCaptions() {
	for _, c := range s.cands {
		if !c.target || c.drop || c.label != "" {
			continue
		}
		caption := captionFor(c.n, s.caption)
		if caption == nil {
			if c.n.Checkable {
				var row *Node
				if c.label, row = rowLabel(c.n); row != nil {
					s.dropTextsIn(row, c.label)
				}
			}
			continue
		}
		s.caption[caption] = true
		c.label = nodeText(caption)
		if c.label == "" {
			c.label = nodeDesc(caption)
		}
		if cc := s.byNode[caption]; cc != nil && !cc.target {
			cc.drop = true
		}
	}
}

// rowLabel names a checkable control without a label from the row holding
// it (a radio button whose only id is "checkbox" beside its title): the
// first text of its nearest ancestor, up to two levels, that holds no other
// control and is not a list.
func rowLabel(n *Node) (string, *Node) {
	cur := n
	for up := 0; up < 2 && cur.Parent != nil && !cur.Parent.IsRoot() && !cur.Parent.Scrollable; up++ {
		p := cur.Parent
		other := false
		p.Walk(func(k *Node) bool {
			other = other || (k != n && k != p && interactive(k))
			return !other
		})
		if other {
			return "", nil
		}
		if l := descendantLabel(p); l != "" {
			return l, p
		}
		cur = p
	}
	return "", nil
}

// dropTextsIn drops the texts inside row that label already reads.
func (s *selector) dropTextsIn(row *Node, label string) {
	row.Walk(func(k *Node) bool {
		if c := s.byNode[k]; c != nil && !c.target && c.label != "" && strings.Contains(label, c.label) {
			c.drop = true
		}
		return true
	})
}

// dropEchoes drops a text that only repeats the label of a control beside
// it (the "To" caption of a field whose hint is "To").
func (s *selector) dropEchoes() {
	labels := map[*Node]map[string]bool{}
	for _, c := range s.cands {
		if c.target && !c.drop && c.label != "" && c.n.Parent != nil {
			if labels[c.n.Parent] == nil {
				labels[c.n.Parent] = map[string]bool{}
			}
			labels[c.n.Parent][c.label] = true
		}
	}
	for _, c := range s.cands {
		if !c.target && !c.drop && c.n.Parent != nil && labels[c.n.Parent][c.label] {
			c.drop = true
		}
	}
}

// dropCovered removes elements whose centre lies under a window drawn
// above theirs: a tap there would hit the keyboard or the dialog.
func (s *selector) dropCovered() {
	for _, c := range s.cands {
		if c.drop {
			continue
		}
		if o := coveredBy(s.wins, c.win, c.vis.Center()); o != nil {
			c.drop = true
			if c.target {
				s.covered[o.kind]++
			}
		}
	}
}

// foldKeyboard replaces the keys of a soft keyboard by KeyboardNote unless
// the options keep them.
func (s *selector) foldKeyboard() {
	for _, w := range s.wins {
		s.imeShown = s.imeShown || (w.kind == kindIME && !w.cover.Empty())
	}
	for _, c := range s.cands {
		if c.win.kind != kindIME || c.drop {
			continue
		}
		if !s.o.KeyboardKeys {
			c.drop = true
		}
	}
}

// disambiguate gives elements of one window sharing one label the text of
// their row.
func (s *selector) disambiguate() {
	type key struct {
		w     *window
		label string
	}
	same := map[key][]*cand{}
	for _, c := range s.cands {
		if c.target && !c.drop && c.label != "" {
			k := key{c.win, c.label}
			same[k] = append(same[k], c)
		}
	}
	for k, cs := range same {
		if len(cs) < 2 {
			continue
		}
		for _, c := range cs {
			c.context = rowContext(c.n, k.label)
		}
	}
}

// rowContext is the first text near n that is not n's label and not
// another control: the name in the row holding it (up to two ancestors, no
// taller than twice the element).
func rowContext(n *Node, label string) string {
	cur := n
	for up := 0; up < 2 && cur.Parent != nil && !cur.Parent.IsRoot() && !cur.Parent.Scrollable; up++ {
		p := cur.Parent
		if p.Bounds.Height() > 2*n.Bounds.Height() {
			break // a page or a grid, not the element's row
		}
		found := ""
		p.Walk(func(k *Node) bool {
			if found != "" || k == n || !k.Visible() || (k != p && interactive(k)) {
				return false
			}
			if k == p {
				return true
			}
			if t := nodeText(k); t != "" && t != label {
				found = t
			} else if d := nodeDesc(k); d != "" && d != label {
				found = d
			}
			return found == ""
		})
		if found != "" {
			return found
		}
		cur = p
	}
	return ""
}

// groupOf orders windows: the focused app, dialogs in dump order, the
// keyboard, the system bars.
func groupOf(c *cand) int { return int(c.win.kind)*1000 + c.win.order }

func readingLess(a, b *cand) bool {
	if ga, gb := groupOf(a), groupOf(b); ga != gb {
		return ga < gb
	}
	if a.vis.Top != b.vis.Top {
		return a.vis.Top < b.vis.Top
	}
	if a.vis.Left != b.vis.Left {
		return a.vis.Left < b.vis.Left
	}
	return a.order < b.order
}

// noiseRepeats is how often a text (or an unlabeled control's resource
// id) must repeat in one window to be decoration: "Sponsored" under every
// banner, forty "#banner_image".
const noiseRepeats = 3

// markNoise marks what the budget cuts first: unlabeled controls whose
// resource id repeats in their window and texts repeated as often. Image
// file names were already refused as labels (nodeDesc).
func (s *selector) markNoise() {
	type key struct {
		w *window
		k string
	}
	count := map[key]int{}
	keyOf := func(c *cand) (key, bool) {
		switch {
		case c.drop:
		case c.target && c.label == "" && c.n.ResourceID != "":
			return key{c.win, "#" + c.n.ResourceID}, true
		case !c.target && !c.n.Scrollable && c.label != "":
			return key{c.win, c.label}, true
		}
		return key{}, false
	}
	for _, c := range s.cands {
		if k, ok := keyOf(c); ok {
			count[k]++
		}
	}
	for _, c := range s.cands {
		if k, ok := keyOf(c); ok && count[k] >= noiseRepeats {
			c.noise = true
		}
	}
}

// tierOf is the budget priority: what a person needs most comes first,
// noise last.
func tierOf(c *cand) int {
	switch {
	case c.noise:
		return 6
	case c.win.kind == kindSystem && c.target:
		return 4 // navigation buttons, notification actions
	case c.win.kind == kindSystem:
		return 5 // clock, battery, notification icons
	case c.target && !c.n.Enabled:
		return 2 // greyed out: after the controls that work now
	case c.target && (c.n.Focused || editable(c.n)):
		return 0
	case c.target && c.win.kind == kindIME:
		return 1
	case c.target && c.label == "" && c.n.ResourceID == "":
		return 2 // nothing tells the model what it does
	case c.target && c.list == nil:
		return 0
	case c.target:
		return 1 // a row of a list
	case c.win.kind == kindDialog && !c.n.Scrollable:
		return 1
	case c.list == nil:
		return 2
	}
	return 3
}

// listName names a list in a note: its label, resource id or class.
func listName(n *Node) string {
	if l := n.ownLabel(); l != "" {
		return strconv.Quote(l)
	}
	if n.ResourceID != "" {
		return shortID(n.ResourceID)
	}
	return simpleClass(n.Class)
}
