package screen

import "strings"

// windowKind orders the windows of a dump the way a person reads them: the
// focused app first, then its dialogs and popups, then the keyboard, the
// system bars last. A higher kind is drawn above a lower one.
type windowKind int

const (
	kindApp windowKind = iota
	kindDialog
	kindIME
	kindSystem
)

// String is the UIElement.Window value ("" for the focused app window).
func (k windowKind) String() string {
	switch k {
	case kindDialog:
		return "dialog"
	case kindIME:
		return "keyboard"
	case kindSystem:
		return "system"
	}
	return ""
}

// window is one top-level window root of a dump.
type window struct {
	root  *Node
	kind  windowKind
	order int // position in the dump
	layer int // z-order: a window hides the parts of lower layers it covers
	// behind marks an app window below the focused one (not a dialog).
	behind bool
	// focusOnly marks a window driven by focus, not touch: nothing in it
	// is clickable (TV menus), so focusable nodes are its controls.
	focusOnly bool
	cover     Rect // what the window hides of the windows below it
	// parts, for a keyboard, are the areas its visible content draws
	// (keys, rows, a floating panel): a floating or one-handed keyboard's
	// window spans most of the screen while its keys fill a strip.
	parts []Rect
}

// imePackages are input methods whose package name does not say so.
var imePackages = map[string]bool{
	"com.touchtype.swiftkey":                     true,
	"com.samsung.android.honeyboard":             true,
	"com.sec.android.inputmethod":                true,
	"com.baidu.input":                            true,
	"com.sohu.inputmethod.sogou":                 true,
	"com.iflytek.inputmethod":                    true,
	"com.google.android.apps.inputmethod.zhuyin": true,
	"com.syntellia.fleksy.keyboard":              true,
	"org.pocketworkstation.pckeyboard":           true,
}

// isIMEPackage reports the package of a soft keyboard.
func isIMEPackage(pkg string) bool {
	return imePackages[pkg] || strings.Contains(pkg, "inputmethod") || strings.Contains(pkg, "keyboard") ||
		strings.HasSuffix(pkg, ".ime") || strings.Contains(pkg, ".ime.")
}

// windowPackage is the package of a window root (or of its first
// descendant that names one).
func windowPackage(root *Node) string {
	pkg := ""
	root.Walk(func(n *Node) bool {
		if pkg == "" && n.Package != "" {
			pkg = n.Package
		}
		return pkg == ""
	})
	return pkg
}

// classifyWindows sorts the window roots of a dump into kinds. The focused
// app window is the one holding the focused node, else the largest app
// window; other app windows are dialogs. A bare <node> tree is one app
// window.
func classifyWindows(root *Node, screen Rect) []*window {
	roots := root.Children
	if !root.IsRoot() {
		roots = []*Node{root}
	}
	wins := make([]*window, 0, len(roots))
	mainIdx, mainFocused, mainArea := -1, false, -1
	mainOver := false // a full-screen system window is the main one
	screenArea := float64(screen.Area())
	for i, r := range roots {
		w := &window{root: r, order: i, cover: r.Bounds.Intersect(screen), focusOnly: !anyClickable(r)}
		pkg := windowPackage(r)
		switch {
		case pkg == "com.android.systemui" && !isBar(r, screen):
			// The keyguard or the notification shade: the screen the
			// person deals with, above every app.
			w.kind = kindApp
			if !mainOver {
				mainIdx, mainFocused, mainOver = i, true, true
			}
		case pkg == "com.android.systemui":
			w.kind = kindSystem
		case isIMEPackage(pkg) || strings.HasPrefix(r.Class, "android.inputmethodservice."):
			w.kind = kindIME
		default:
			w.kind = kindDialog
			focused, area := hasFocus(r), w.cover.Area()
			if mainOver {
				break
			}
			if mainIdx < 0 || (focused && !mainFocused) || (focused == mainFocused && area > mainArea) {
				mainIdx, mainFocused, mainArea = i, focused, area
			}
		}
		wins = append(wins, w)
	}
	for i, w := range wins {
		if w.kind == kindApp && i != mainIdx {
			w.kind = kindDialog
		}
	}
	if mainIdx >= 0 {
		wins[mainIdx].kind = kindApp
	}
	for _, w := range wins {
		w.focusOnly = w.focusOnly && w.kind <= kindDialog // status bars are not TV menus
		w.layer, w.behind = layerOf(w.kind, mainFocused)
		// A full-screen keyboard or system window is mostly transparent:
		// it hides only what its content covers.
		if w.kind >= kindIME && screenArea > 0 && float64(w.cover.Area()) >= fullscreenRatio*screenArea {
			w.cover = contentRect(w.root).Intersect(screen)
		}
		if w.kind == kindIME && screenArea > 0 && float64(w.cover.Area()) >= screenArea/2 {
			// A docked keyboard draws its whole window; one whose window
			// spans most of the screen floats and draws only parts of it.
			w.parts = contentParts(w.root, w.cover)
		}
	}
	return wins
}

// contentParts are the areas a keyboard draws: its visible nodes smaller
// than half its window (the full-window containers of a floating keyboard
// are transparent), clipped to cover.
func contentParts(r *Node, cover Rect) []Rect {
	half := cover.Area() / 2
	var parts []Rect
	r.Walk(func(n *Node) bool {
		if n == r || !n.Visible() {
			return true
		}
		if b := n.Bounds.Intersect(cover); !b.Empty() && b.Area() < half {
			parts = append(parts, b)
			return false // its children lie inside it
		}
		return true
	})
	return parts
}

// layerOf places a window in z. The window holding input focus is the top
// app window (a TV overlay over the launcher: the others are behind it);
// without focus, dialogs and popups lie above the largest window. The
// keyboard lies above apps, the system bars above all.
func layerOf(k windowKind, mainFocused bool) (layer int, behind bool) {
	switch k {
	case kindApp:
		if mainFocused {
			return 2, false
		}
		return 1, false
	case kindDialog:
		if mainFocused {
			return 1, true
		}
		return 2, false
	}
	return int(k) + 1, false
}

// anyClickable reports a clickable node in the subtree.
func anyClickable(r *Node) bool {
	found := false
	r.Walk(func(n *Node) bool {
		found = found || n.Clickable
		return !found
	})
	return found
}

// barRatio is the largest share of the screen's height (or width, for a
// side navigation bar) a system bar's content takes.
const barRatio = 0.15

// isBar reports a system window whose content is a strip along an edge
// (status bar, navigation bar, a heads-up notification) rather than a panel
// (the notification shade, the keyguard, the power menu). Its content, not
// its root or full-screen containers, is measured: some builds give a bar's
// window the whole screen.
func isBar(r *Node, screen Rect) bool {
	var c Rect
	whole := fullscreenRatio * float64(screen.Area())
	r.Walk(func(n *Node) bool {
		if v := n.Bounds.Intersect(screen); n != r && n.Visible() && float64(v.Area()) < whole {
			c = c.Union(v)
		}
		return true
	})
	if c.Empty() {
		c = r.Bounds.Intersect(screen)
	}
	return float64(c.Height()) <= barRatio*float64(screen.Height()) || float64(c.Width()) <= barRatio*float64(screen.Width())
}

// hasFocus reports a focused node in the subtree.
func hasFocus(r *Node) bool {
	found := false
	r.Walk(func(n *Node) bool {
		found = found || n.Focused
		return !found
	})
	return found
}

// contentRect is the union of a window's labelled or interactive nodes.
func contentRect(r *Node) Rect {
	var u Rect
	r.Walk(func(n *Node) bool {
		if n != r && n.Visible() && (n.Clickable || n.Text != "" || n.ContentDesc != "") {
			u = u.Union(n.Bounds)
		}
		return true
	})
	return u
}

// name is the UIElement.Window of the window's elements.
func (w *window) name() string {
	if w.behind {
		return "behind"
	}
	return w.kind.String()
}

// coveredBy returns the window drawn above w whose visible area holds p, or
// nil.
func coveredBy(wins []*window, w *window, p Point) *window {
	for _, o := range wins {
		if o == w || o.layer <= w.layer || !o.cover.Contains(p) {
			continue
		}
		if o.parts == nil {
			return o
		}
		for _, r := range o.parts {
			if r.Contains(p) {
				return o
			}
		}
	}
	return nil
}
