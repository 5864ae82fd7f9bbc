package android

import (
	"image"
	"image/color"
)

// Widget class names as uiautomator reports them.
const (
	clsFrame    = "android.widget.FrameLayout"
	clsLinear   = "android.widget.LinearLayout"
	clsText     = "android.widget.TextView"
	clsEdit     = "android.widget.EditText"
	clsButton   = "android.widget.Button"
	clsSwitch   = "android.widget.Switch"
	clsImage    = "android.widget.ImageView"
	clsRecycler = "androidx.recyclerview.widget.RecyclerView"
)

// view is one node of the simulated view hierarchy. The same tree drives the
// uiautomator dump, the renderer and hit testing, so what a test reads back
// from the dump is exactly what a tap at those bounds hits.
type view struct {
	class, pkg, text, resID, desc, hint string

	// full is the laid-out rectangle; bounds is full clipped to the parent
	// and the screen, which is what Android reports and what takes touches.
	full, bounds image.Rectangle

	clickable, longClickable, checkable, checked bool
	focusable, focused, scrollable, password     bool
	enabled                                      bool
	// zeroSize keeps a view whose full rectangle is empty in the dump with
	// zero-size bounds at its place (a bottom navigation caption on some
	// builds) instead of dropping it as off-screen.
	zeroSize bool

	children []*view

	// Behaviour; called with the phone's mutex held.
	onTap, onLongPress func()
	// scroll moves a scrollable container's content by dy pixels.
	scroll func(dy int)

	look look
}

// look is render-only styling.
type look struct {
	bg, fg    color.RGBA
	textScale int
	center    bool
	glyph     string // drawn on image views, not part of the dump
}

// window is one top-level window: its own root in the dump.
type window struct {
	// title is what dumpsys window prints inside Window{…}.
	title string
	pkg   string
	root  *view
	// modal windows swallow touches that miss them (dialogs).
	modal bool
	// scrim dims everything drawn before this window.
	scrim bool
	// act is the activity behind an app or dialog window (nil for system bars).
	act *activity
	// focus marks a system window that takes input focus over the app
	// (keyguard, notification shade); the topmost one is mCurrentFocus.
	focus bool
	// ime marks the input method window.
	ime bool
}

// screenTree is the whole screen for one state version, bottom window first.
type screenTree struct {
	w, h, density int
	windows       []*window
}

func newView(class, pkg string, r image.Rectangle) *view {
	return &view{class: class, pkg: pkg, full: r, enabled: true}
}

func (v *view) add(children ...*view) *view {
	v.children = append(v.children, children...)
	return v
}

// clip computes bounds from full rectangles and drops views that are
// entirely outside their parent, as uiautomator omits off-screen views.
func (v *view) clip(to image.Rectangle) bool {
	v.bounds = v.full.Intersect(to)
	if v.bounds.Empty() {
		if v.zeroSize && v.full.Min.In(to) {
			v.bounds = image.Rectangle{Min: v.full.Min, Max: v.full.Min}
			return true
		}
		return false
	}
	kept := v.children[:0]
	for _, c := range v.children {
		if c.clip(v.bounds) {
			kept = append(kept, c)
		}
	}
	v.children = kept
	return true
}

// hit returns the deepest view at (x, y) that wants the touch, as chosen by
// accepts, or nil.
func (v *view) hit(pt image.Point, accepts func(*view) bool) *view {
	if !pt.In(v.bounds) {
		return nil
	}
	for i := len(v.children) - 1; i >= 0; i-- {
		if h := v.children[i].hit(pt, accepts); h != nil {
			return h
		}
	}
	if accepts(v) {
		return v
	}
	return nil
}

func acceptsTap(v *view) bool       { return v.clickable || v.onTap != nil }
func acceptsLongPress(v *view) bool { return v.longClickable || v.clickable || v.onTap != nil }
func acceptsScroll(v *view) bool    { return v.scrollable && v.scroll != nil }

// hit finds the view a touch at pt lands on, honouring window z-order
// and modal dialogs.
func (t *screenTree) hit(pt image.Point, accepts func(*view) bool) *view {
	for i := len(t.windows) - 1; i >= 0; i-- {
		w := t.windows[i]
		if h := w.root.hit(pt, accepts); h != nil {
			return h
		}
		if w.modal {
			return nil
		}
	}
	return nil
}
