package screen

import (
	"math"
	"sort"
	"strconv"
	"strings"
)

// Element selection defaults (REFERENCE.md step 7).
const (
	DefaultMaxElements = 28
	DefaultMinScore    = 4
	// fullscreenRatio is the share of the screen an unlabelled node must
	// cover to count as a background surface and be dropped.
	fullscreenRatio = 0.85
)

// ElementOptions configure Elements. Width and Height are the device screen
// size (0: the union of the window bounds); ScaleX and ScaleY are device
// pixels per scaled pixel (0: 1); MaxElements and MinScore default to 28 and
// 4 when 0.
type ElementOptions struct {
	Width, Height  int
	ScaleX, ScaleY float64
	MaxElements    int
	MinScore       int
}

// Score is the interactivity score of one node (REFERENCE.md step 7):
// clickable +5, focusable +2, text +4, content-desc +4, resource-id +2, class
// containing "button" +6 (+4 more for "imagebutton"), class containing
// "edittext" +3; a disabled node scores 0. Only the node's own attributes
// count (a label borrowed from a child does not).
func Score(n *Node) int {
	if n == nil || !n.Enabled {
		return 0
	}
	s := 0
	if n.Clickable {
		s += 5
	}
	if n.Focusable {
		s += 2
	}
	if normalize(n.Text) != "" {
		s += 4
	}
	if normalize(n.ContentDesc) != "" {
		s += 4
	}
	if n.ResourceID != "" {
		s += 2
	}
	class := strings.ToLower(n.Class)
	if strings.Contains(class, "button") {
		s += 6
		if strings.Contains(class, "imagebutton") {
			s += 4
		}
	}
	if strings.Contains(class, "edittext") {
		s += 3
	}
	return s
}

type candidate struct {
	n     *Node
	score int
	order int
	label string // borrowed from a child, "" when the node has its own
	vis   Rect   // bounds clipped to the screen
}

// Elements scores every visible node of the tree, keeps those scoring at
// least MinScore, drops near-fullscreen surfaces without their own text or
// content-desc, and keeps the best MaxElements (ties: document order). A
// non-clickable node whose text only repeats the label its selected
// clickable ancestor borrowed from it is dropped as a duplicate. The result
// is numbered "1".."N" in reading order (top to bottom, then left to right).
//
// Text is the node's whitespace-normalized text; a node with neither text
// nor content-desc gets its Label (hint, or the label borrowed from a
// descendant). Bounds are clipped to the screen; Center is their midpoint;
// ScaledBounds/ScaledCenter are the device values divided by ScaleX/ScaleY,
// rounded. Node points at the tree node each element came from.
func Elements(root *Node, o ElementOptions) []UIElement {
	if root == nil {
		return nil
	}
	if o.MaxElements <= 0 {
		o.MaxElements = DefaultMaxElements
	}
	if o.MinScore <= 0 {
		o.MinScore = DefaultMinScore
	}
	if o.ScaleX <= 0 {
		o.ScaleX = 1
	}
	if o.ScaleY <= 0 {
		o.ScaleY = 1
	}
	screen := Rect{Right: o.Width, Bottom: o.Height}
	if o.Width <= 0 || o.Height <= 0 {
		screen = root.Bounds
		if !root.IsRoot() || screen.Empty() {
			screen = Rect{}
			root.Walk(func(n *Node) bool { screen = screen.Union(n.Bounds); return true })
		}
	}
	screenArea := float64(screen.Area())

	var cands []candidate
	order := 0
	root.Walk(func(n *Node) bool {
		if n.IsRoot() {
			return true
		}
		order++
		if !n.Visible() {
			// Invisible containers may still hold visible children
			// (uiautomator reports some layouts with empty bounds).
			return true
		}
		vis := n.Bounds.Intersect(screen)
		if vis.Empty() {
			return true
		}
		sc := Score(n)
		if sc < o.MinScore {
			return true
		}
		own := normalize(n.Text) != "" || normalize(n.ContentDesc) != ""
		if !own && screenArea > 0 && float64(vis.Area()) >= fullscreenRatio*screenArea {
			return true // background surface / full-screen container
		}
		c := candidate{n: n, score: sc, order: order, vis: vis}
		if !own {
			c.label = n.Label()
		}
		cands = append(cands, c)
		return true
	})

	// Drop labels duplicated by the clickable container that borrowed them.
	borrowed := make(map[*Node]string)
	for _, c := range cands {
		if c.n.Clickable && c.label != "" {
			borrowed[c.n] = c.label
		}
	}
	if len(borrowed) > 0 {
		kept := cands[:0]
		for _, c := range cands {
			if !c.n.Clickable && c.label == "" && duplicatesAncestor(c.n, borrowed) {
				continue
			}
			kept = append(kept, c)
		}
		cands = kept
	}

	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	if len(cands) > o.MaxElements {
		cands = cands[:o.MaxElements]
	}
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i].vis, cands[j].vis
		if a.Top != b.Top {
			return a.Top < b.Top
		}
		if a.Left != b.Left {
			return a.Left < b.Left
		}
		return cands[i].order < cands[j].order
	})

	out := make([]UIElement, len(cands))
	for i, c := range cands {
		n := c.n
		text := normalize(n.Text)
		if text == "" && normalize(n.ContentDesc) == "" {
			text = c.label
		}
		sb := Rect{
			Left:   scaleCoord(c.vis.Left, o.ScaleX),
			Top:    scaleCoord(c.vis.Top, o.ScaleY),
			Right:  scaleCoord(c.vis.Right, o.ScaleX),
			Bottom: scaleCoord(c.vis.Bottom, o.ScaleY),
		}
		center := c.vis.Center()
		out[i] = UIElement{
			ID:           strconv.Itoa(i + 1),
			Text:         text,
			ContentDesc:  normalize(n.ContentDesc),
			ResourceID:   n.ResourceID,
			ClassName:    n.Class,
			Clickable:    n.Clickable,
			Enabled:      n.Enabled,
			Bounds:       c.vis,
			Center:       center,
			ScaledBounds: sb,
			ScaledCenter: Point{X: scaleCoord(center.X, o.ScaleX), Y: scaleCoord(center.Y, o.ScaleY)},
			Node:         n,
		}
	}
	return out
}

// duplicatesAncestor reports whether n's own text (or desc) is exactly the
// label a clickable ancestor borrowed.
func duplicatesAncestor(n *Node, borrowed map[*Node]string) bool {
	own := normalize(n.Text)
	if own == "" {
		own = normalize(n.ContentDesc)
	}
	if own == "" {
		return false
	}
	for p := n.Parent; p != nil; p = p.Parent {
		if l, ok := borrowed[p]; ok {
			return l == own
		}
		if p.Clickable {
			return false
		}
	}
	return false
}

func scaleCoord(v int, scale float64) int {
	return int(math.Round(float64(v) / scale))
}
