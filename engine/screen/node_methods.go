package screen

// Center is the midpoint of the node's bounds.
func (n *Node) Center() Point { return n.Bounds.Center() }

// Walk visits n and its descendants depth-first in document order. When fn
// returns false the children of that node are skipped (as in ast.Inspect);
// the walk goes on with its siblings.
func (n *Node) Walk(fn func(*Node) bool) {
	if n == nil {
		return
	}
	if !fn(n) {
		return
	}
	for _, c := range n.Children {
		c.Walk(fn)
	}
}

// Attr returns an attribute kept in Attrs ("hint", "drawing-order", "NAF"…),
// or "" when absent.
func (n *Node) Attr(name string) string {
	if n == nil {
		return ""
	}
	return n.Attrs[name]
}

// Hint is the hint attribute (placeholder of an empty text field).
func (n *Node) Hint() string { return n.Attr("hint") }

// IsRoot reports the synthetic "hierarchy" root made by ParseHierarchy.
func (n *Node) IsRoot() bool { return n != nil && n.Parent == nil && n.Class == HierarchyClass }

// Visible reports whether the node can be seen and tapped: non-empty bounds
// and not visible-to-user="false".
func (n *Node) Visible() bool {
	return n != nil && !n.Bounds.Empty() && n.Attr("visible-to-user") != "false"
}

// Depth is the number of ancestors (0 for the root).
func (n *Node) Depth() int {
	d := 0
	for p := n.Parent; p != nil; p = p.Parent {
		d++
	}
	return d
}

// Label is what a person would call the node, cleaned (cleanLabel): its
// text, else its content-desc, else its hint, else the text (then the
// content-desc) of the first visible descendant in document order that is
// not itself a separate clickable target. "" when nothing is labelled.
func (n *Node) Label() string {
	if n == nil {
		return ""
	}
	if l := n.ownLabel(); l != "" {
		return l
	}
	return n.childLabel()
}

// ownLabel is text, else content-desc, else hint, cleaned: icon-font
// glyphs are never part of a label, on any path (cleanLabel).
func (n *Node) ownLabel() string {
	for _, s := range [...]string{n.Text, n.ContentDesc, n.Hint()} {
		if s = cleanLabel(s); s != "" {
			return s
		}
	}
	return ""
}

// childLabel is the label a container borrows from its descendants.
func (n *Node) childLabel() string {
	var text, desc string
	var visit func(*Node)
	visit = func(c *Node) {
		for _, k := range c.Children {
			if text != "" {
				return
			}
			if k.Clickable || !k.Visible() {
				continue
			}
			if t := cleanLabel(k.Text); t != "" {
				text = t
				return
			}
			if desc == "" {
				desc = cleanLabel(k.ContentDesc)
			}
			visit(k)
		}
	}
	visit(n)
	if text != "" {
		return text
	}
	return desc
}
