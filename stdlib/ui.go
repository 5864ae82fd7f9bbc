package stdlib

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/lua"
)

func openUI(vm *lua.VM) (lua.LValue, error) {
	e := envOf(vm)
	return vm.NewModule(map[string]lua.LGFunction{
		"sel": func(L *lua.LState) int {
			s := checkSel(L, 1, "ui.sel")
			return selUD().Push(L, s)
		},
		"find":                e.uiFind("ui.find"),
		"wait":                e.uiFind("ui.wait"),
		"find_all":            e.uiFindAll,
		"exists":              e.uiExists,
		"wait_gone":           e.uiWaitGone,
		"tap":                 e.uiTapN("ui.tap", 1),
		"double_tap":          e.uiTapN("ui.double_tap", 2),
		"long_press":          e.uiLongPress,
		"tap_if_exists":       e.uiTapIfExists,
		"set_text":            e.uiSetText,
		"text":                e.uiText,
		"scroll_into_view":    e.uiScrollIntoView,
		"set_default_timeout": e.uiSetDefaultTimeout,
		"default_timeout":     e.uiDefaultTimeout,
		"on_poll":             e.uiOnPoll,
	}), nil
}

// waited is a found element with what found it.
type waited struct {
	n   *screen.Node
	sel *Sel
	p   *device.Phone
}

// waitArgs is what the find-and-act bindings share: the selector (arg 1),
// the options table at optIdx with timeout_ms (default def; extra reads a
// binding's other keys before the unknown-key check), the phone, and the
// wait for the element. pushed > 0 means the phone is unavailable and that
// many results are already pushed; otherwise w.n is the element, or err
// says why there is none.
func (e *env) waitArgs(L *lua.LState, fn string, optIdx int, def time.Duration, extra func(o *lua.OptionsTable)) (w waited, pushed int, err error) {
	w.sel = checkSel(L, 1, fn)
	o := lua.CheckOptions(L, optIdx)
	timeout := o.Duration("timeout", def)
	if extra != nil {
		extra(o)
	}
	o.Check()
	p, ok := e.phone(L, fn)
	if !ok {
		return w, 2, nil
	}
	w.p = p
	w.n, _, err = e.waitFor(L, p, w.sel, timeout)
	return w, 0, err
}

// errNotFound is wrapped by "not found" results.
var errNotFound = errors.New("not found")

// poll dumps the UI tree until check accepts it or timeout passes (at
// least one dump). Between dumps it runs the on_poll hook and sleeps
// PollInterval. Cancellation raises. It returns the last tree (nil if no
// dump succeeded), whether check accepted it, and the last dump error.
// check must be pure: an unchanged dump comes back as the same parsed tree
// (device.Phone memoizes the parse) and is not checked again.
func (e *env) poll(L *lua.LState, p *device.Phone, timeout time.Duration, check func(*screen.Node) bool) (*screen.Node, bool, error) {
	ctx := lua.Context(L)
	deadline := time.Now().Add(timeout)
	var root *screen.Node
	var lastErr error
	for {
		r, _, err := p.Hierarchy(ctx)
		if ctx.Err() != nil {
			lua.Raise(L, context.Cause(ctx))
		}
		if err != nil {
			lastErr = err
		} else {
			changed := r != root
			root, lastErr = r, nil
			if changed && check(r) {
				return r, true, nil
			}
		}
		left := time.Until(deadline)
		if left <= 0 {
			return root, false, lastErr
		}
		e.runHook(L)
		if err := lua.Sleep(L, min(PollInterval, left)); err != nil {
			lua.Raise(L, err)
		}
	}
}

// runHook calls the ui.on_poll hook under pcall; an error is logged. The
// hook does not re-enter itself when it calls ui functions.
func (e *env) runHook(L *lua.LState) {
	if e.onPoll == nil || e.inHook {
		return
	}
	e.inHook = true
	defer func() { e.inHook = false }()
	L.Push(e.onPoll)
	if err := L.PCall(0, 0, nil); err != nil {
		if ctx := lua.Context(L); ctx.Err() != nil {
			lua.Raise(L, context.Cause(ctx))
		}
		e.logger().Warn("ui.on_poll hook failed", "source", "lua", "err", err.Error())
	}
}

// waitFor finds sel within timeout: the first match, or an error naming
// the selector and what the screen showed.
func (e *env) waitFor(L *lua.LState, p *device.Phone, sel *Sel, timeout time.Duration) (*screen.Node, *screen.Node, error) {
	var found *screen.Node
	root, ok, err := e.poll(L, p, timeout, func(r *screen.Node) bool {
		found = sel.M.Find(r)
		return found != nil
	})
	if ok {
		return found, root, nil
	}
	if err != nil && root == nil {
		return nil, nil, fmt.Errorf("%w: %s within %d ms: %v", errNotFound, sel, timeout.Milliseconds(), err)
	}
	return nil, root, fmt.Errorf("%w: %s within %d ms; %s", errNotFound, sel, timeout.Milliseconds(), screenShows(root))
}

// ui.find(sel, {timeout_ms}) / ui.wait(sel, {timeout_ms}) → element or nil, err.
func (e *env) uiFind(fn string) lua.LGFunction {
	return func(L *lua.LState) int {
		w, pushed, err := e.waitArgs(L, fn, 2, e.uiTimeout, nil)
		if pushed > 0 {
			return pushed
		}
		if err != nil {
			return lua.ReturnErr(L, err)
		}
		L.Push(elementTable(L, w.n))
		return 1
	}
}

// dumpOnce takes one UI tree (no wait).
func (e *env) dumpOnce(L *lua.LState, p *device.Phone) (*screen.Node, error) {
	root, _, err := p.Hierarchy(lua.Context(L))
	if err != nil {
		if ctx := lua.Context(L); ctx.Err() != nil {
			lua.Raise(L, context.Cause(ctx))
		}
		return nil, err
	}
	return root, nil
}

// ui.find_all(sel) → array of elements (no wait).
func (e *env) uiFindAll(L *lua.LState) int {
	sel := checkSel(L, 1, "ui.find_all")
	p, ok := e.phone(L, "ui.find_all")
	if !ok {
		return 2
	}
	root, err := e.dumpOnce(L, p)
	if err != nil {
		return fail(L, "ui.find_all", err)
	}
	L.Push(elementsTable(L, sel.M.FindAll(root)))
	return 1
}

// ui.exists(sel) → boolean (no wait).
func (e *env) uiExists(L *lua.LState) int {
	sel := checkSel(L, 1, "ui.exists")
	p, ok := e.phone(L, "ui.exists")
	if !ok {
		return 2
	}
	root, err := e.dumpOnce(L, p)
	if err != nil {
		return fail(L, "ui.exists", err)
	}
	L.Push(lua.LBool(sel.M.Find(root) != nil))
	return 1
}

// ui.wait_gone(sel, {timeout_ms}) → true or nil, err.
func (e *env) uiWaitGone(L *lua.LState) int {
	sel := checkSel(L, 1, "ui.wait_gone")
	o := lua.CheckOptions(L, 2)
	timeout := o.Duration("timeout", e.uiTimeout)
	o.Check()
	p, ok := e.phone(L, "ui.wait_gone")
	if !ok {
		return 2
	}
	var still *screen.Node
	_, gone, err := e.poll(L, p, timeout, func(r *screen.Node) bool {
		still = sel.M.Find(r)
		return still == nil
	})
	if gone {
		L.Push(lua.LTrue)
		return 1
	}
	if still == nil && err != nil {
		return lua.ReturnErr(L, fmt.Errorf("ui.wait_gone: %s: %v", sel, err))
	}
	return lua.ReturnErr(L, fmt.Errorf("still visible after %d ms: %s (%s)", timeout.Milliseconds(), sel, describeNode(still)))
}

func describeNode(n *screen.Node) string {
	if n == nil {
		return "?"
	}
	b := n.Bounds
	label := n.Label()
	if label == "" {
		label = n.ResourceID
	}
	return fmt.Sprintf("%s %q at [%d,%d][%d,%d]", simpleClass(n.Class), label, b.Left, b.Top, b.Right, b.Bottom)
}

func simpleClass(c string) string {
	if i := strings.LastIndexByte(c, '.'); i >= 0 {
		return c[i+1:]
	}
	return c
}

// tapNode taps the centre of n's action target count times.
func (e *env) tapNode(L *lua.LState, n *screen.Node, count int) error {
	c := screen.ActionTarget(n).Center()
	a, err := action.New("tap", map[string]any{"x": c.X, "y": c.Y})
	if err != nil {
		return err
	}
	for range count {
		if _, err := e.act(L, a, device.ActOptions{}); err != nil {
			return err
		}
	}
	return nil
}

// ui.tap / ui.double_tap (sel, {timeout_ms}) → element or nil, err.
func (e *env) uiTapN(fn string, count int) lua.LGFunction {
	return func(L *lua.LState) int {
		w, pushed, err := e.waitArgs(L, fn, 2, e.uiTimeout, nil)
		if pushed > 0 {
			return pushed
		}
		if err != nil {
			return lua.ReturnErr(L, err)
		}
		n := w.n
		if err := e.tapNode(L, n, count); err != nil {
			return fail(L, fn, err)
		}
		L.Push(elementTable(L, n))
		return 1
	}
}

// ui.long_press(sel, {timeout_ms, duration_ms=600}) → element or nil, err.
func (e *env) uiLongPress(L *lua.LState) int {
	var d time.Duration
	w, pushed, err := e.waitArgs(L, "ui.long_press", 2, e.uiTimeout, func(o *lua.OptionsTable) {
		d = o.Duration("duration", 600*time.Millisecond)
	})
	if pushed > 0 {
		return pushed
	}
	if err != nil {
		return lua.ReturnErr(L, err)
	}
	n := w.n
	c := screen.ActionTarget(n).Center()
	a, err := action.New("swipe", map[string]any{"x1": c.X, "y1": c.Y, "x2": c.X, "y2": c.Y, "durationMs": int(d.Milliseconds())})
	if err != nil {
		return lua.Raisef(L, "ui.long_press: %v", err)
	}
	if _, err := e.act(L, a, device.ActOptions{}); err != nil {
		return fail(L, "ui.long_press", err)
	}
	L.Push(elementTable(L, n))
	return 1
}

// ui.tap_if_exists(sel, {timeout_ms=0}) → boolean.
func (e *env) uiTapIfExists(L *lua.LState) int {
	w, pushed, err := e.waitArgs(L, "ui.tap_if_exists", 2, 0, nil)
	if pushed > 0 {
		return pushed
	}
	if err != nil {
		L.Push(lua.LFalse)
		return 1
	}
	if err := e.tapNode(L, w.n, 1); err != nil {
		return fail(L, "ui.tap_if_exists", err)
	}
	L.Push(lua.LTrue)
	return 1
}

// ui.text(sel, {timeout_ms}) → string or nil, err.
func (e *env) uiText(L *lua.LState) int {
	w, pushed, err := e.waitArgs(L, "ui.text", 2, e.uiTimeout, nil)
	if pushed > 0 {
		return pushed
	}
	if err != nil {
		return lua.ReturnErr(L, err)
	}
	return pushStr(L, nodeText(w.n))
}

// nodeText is a node's text; a non-editable container reads its label.
func nodeText(n *screen.Node) string {
	if isEditable(n) {
		return fieldText(n)
	}
	if n.Text != "" {
		return n.Text
	}
	return n.Label()
}

// fieldText is what an input field holds: older Androids report the hint
// as the text of an empty field.
func fieldText(n *screen.Node) string {
	if n.Text == n.Hint() && !n.Password {
		return ""
	}
	return n.Text
}

// fieldHolds reports whether field reads text (surrounding space aside).
// The raw text is compared too, so typing the hint's own words verifies.
func fieldHolds(field *screen.Node, text string) bool {
	want := strings.TrimSpace(text)
	return strings.TrimSpace(field.Text) == want || strings.TrimSpace(fieldText(field)) == want
}

func isEditable(n *screen.Node) bool {
	return strings.Contains(simpleClass(n.Class), "EditText") || n.Attr("hint") != ""
}

// Key codes set_text clears with (numbers: older `input` builds and the
// virtual phone accept every code by number).
const (
	keyMoveEnd = "123" // KEYCODE_MOVE_END
	keyDel     = "67"  // KEYCODE_DEL
)

// ui.set_text(sel, text, {timeout_ms}) → true or nil, err: tap the field,
// clear it, type, read it back from the tree and compare (not for
// password fields).
func (e *env) uiSetText(L *lua.LState) int {
	const fn = "ui.set_text"
	text := L.CheckString(2)
	w, pushed, err := e.waitArgs(L, fn, 3, e.uiTimeout, nil)
	if pushed > 0 {
		return pushed
	}
	if err != nil {
		return lua.ReturnErr(L, err)
	}
	ctx := lua.Context(L)
	n, sel, p := w.n, w.sel, w.p
	if err := e.tapNode(L, n, 1); err != nil {
		return fail(L, fn, err)
	}
	if k := len([]rune(fieldText(n))); k > 0 {
		cmd := "input keyevent " + keyMoveEnd + strings.Repeat(" "+keyDel, k)
		if res, err := p.Shell(ctx, cmd); err != nil {
			return fail(L, fn, err)
		} else if res.ExitCode != 0 {
			return fail(L, fn, fmt.Errorf("clearing the field: input keyevent: exit code %d: %s", res.ExitCode, strings.TrimSpace(string(res.Stderr))))
		}
	}
	if text != "" {
		if _, err := p.Type(ctx, text); err != nil {
			return fail(L, fn, err)
		}
	}
	if n.Password {
		L.Push(lua.LTrue)
		return 1
	}
	root, err := e.dumpOnce(L, p)
	if err != nil {
		return fail(L, fn, fmt.Errorf("reading the field back: %w", err))
	}
	field := sameField(root, n)
	if field == nil {
		return fail(L, fn, fmt.Errorf("%s: the field is gone after typing; %s", sel, screenShows(root)))
	}
	if !fieldHolds(field, text) {
		return fail(L, fn, fmt.Errorf("%s reads %q after typing, expected %q", sel, field.Text, text))
	}
	L.Push(lua.LTrue)
	return 1
}

// sameField finds the node n was in a new tree: same resource-id (and
// bounds when several), else same class and bounds, else the focused node.
func sameField(root *screen.Node, n *screen.Node) *screen.Node {
	var byID, byBounds, focused *screen.Node
	root.Walk(func(c *screen.Node) bool {
		if c.IsRoot() || !c.Visible() {
			return true
		}
		if n.ResourceID != "" && c.ResourceID == n.ResourceID && (byID == nil || c.Bounds == n.Bounds) {
			byID = c
		}
		if byBounds == nil && c.Class == n.Class && c.Bounds == n.Bounds {
			byBounds = c
		}
		if focused == nil && c.Focused {
			focused = c
		}
		return true
	})
	switch {
	case byID != nil:
		return byID
	case byBounds != nil:
		return byBounds
	}
	return focused
}

// ui.scroll_into_view(sel, {direction="down", max_swipes=10, timeout_ms})
// → element or nil, err. Swipes the largest scrollable area (or the
// screen) from 70 % to 30 % of its extent, re-checks after each swipe and
// stops early when the tree stops changing (end of the list).
func (e *env) uiScrollIntoView(L *lua.LState) int {
	const fn = "ui.scroll_into_view"
	sel := checkSel(L, 1, fn)
	o := lua.CheckOptions(L, 2)
	dir := o.String("direction", "down")
	maxSwipes := o.Int("max_swipes", 10)
	timeout := o.Duration("timeout", 30*time.Second)
	o.Check()
	switch dir {
	case "down", "up", "left", "right":
	default:
		L.ArgError(2, fmt.Sprintf("%s: option \"direction\": one of down, up, left, right expected, got %q", fn, dir))
	}
	if maxSwipes < 0 {
		L.ArgError(2, fmt.Sprintf("%s: option \"max_swipes\": must be >= 0, got %d", fn, maxSwipes))
	}
	p, ok := e.phone(L, fn)
	if !ok {
		return 2
	}
	deadline := time.Now().Add(timeout)
	root, err := e.dumpOnce(L, p)
	if err != nil {
		return fail(L, fn, err)
	}
	sig := treeSignature(root)
	for i := 0; ; i++ {
		if n := sel.M.Find(root); n != nil {
			L.Push(elementTable(L, n))
			return 1
		}
		if i >= maxSwipes {
			return lua.ReturnErr(L, fmt.Errorf("%w: %s after %d swipes %s; %s", errNotFound, sel, i, dir, screenShows(root)))
		}
		if time.Now().After(deadline) {
			return lua.ReturnErr(L, fmt.Errorf("%w: %s within %d ms (%d swipes %s); %s", errNotFound, sel, timeout.Milliseconds(), i, dir, screenShows(root)))
		}
		area, err := scrollArea(L, p, root)
		if err != nil {
			return fail(L, fn, err)
		}
		if err := e.swipeIn(L, area, dir); err != nil {
			return fail(L, fn, err)
		}
		e.runHook(L)
		if err := lua.Sleep(L, PollInterval); err != nil { // let a fling come to rest
			lua.Raise(L, err)
		}
		before := sig
		if root, err = e.dumpOnce(L, p); err != nil {
			return fail(L, fn, err)
		}
		if sig = treeSignature(root); sig == before {
			if n := sel.M.Find(root); n != nil {
				L.Push(elementTable(L, n))
				return 1
			}
			return lua.ReturnErr(L, fmt.Errorf("%w: %s: reached the end of the list after %d swipes %s; %s", errNotFound, sel, i+1, dir, screenShows(root)))
		}
	}
}

// scrollArea is the largest visible scrollable node's bounds, else the
// screen.
func scrollArea(L *lua.LState, p *device.Phone, root *screen.Node) (screen.Rect, error) {
	var best screen.Rect
	bestArea := 0
	root.Walk(func(n *screen.Node) bool {
		if n.Scrollable && n.Visible() {
			b := n.Bounds
			if a := (b.Right - b.Left) * (b.Bottom - b.Top); a > bestArea {
				best, bestArea = b, a
			}
		}
		return true
	})
	if bestArea > 0 {
		return best, nil
	}
	w, h, err := p.Size(lua.Context(L))
	if err != nil {
		return screen.Rect{}, err
	}
	return screen.Rect{Right: w, Bottom: h}, nil
}

// swipeIn swipes within r to reveal content in direction dir ("down":
// the finger moves up).
func (e *env) swipeIn(L *lua.LState, r screen.Rect, dir string) error {
	cx, cy := (r.Left+r.Right)/2, (r.Top+r.Bottom)/2
	at := func(lo, hi int, f float64) int { return lo + int(float64(hi-lo)*f) }
	var x1, y1, x2, y2 int
	switch dir {
	case "down":
		x1, x2, y1, y2 = cx, cx, at(r.Top, r.Bottom, 0.7), at(r.Top, r.Bottom, 0.3)
	case "up":
		x1, x2, y1, y2 = cx, cx, at(r.Top, r.Bottom, 0.3), at(r.Top, r.Bottom, 0.7)
	case "right":
		y1, y2, x1, x2 = cy, cy, at(r.Left, r.Right, 0.7), at(r.Left, r.Right, 0.3)
	case "left":
		y1, y2, x1, x2 = cy, cy, at(r.Left, r.Right, 0.3), at(r.Left, r.Right, 0.7)
	}
	a, err := action.New("swipe", map[string]any{"x1": x1, "y1": y1, "x2": x2, "y2": y2, "durationMs": 400})
	if err != nil {
		return err
	}
	_, err = e.act(L, a, device.ActOptions{})
	return err
}

// treeSignature hashes labels and bounds of the visible nodes.
func treeSignature(root *screen.Node) uint64 {
	h := fnv.New64a()
	root.Walk(func(n *screen.Node) bool {
		if !n.Visible() {
			return true
		}
		b := n.Bounds
		fmt.Fprintf(h, "%s|%s|%s|%d,%d,%d,%d;", n.Text, n.ContentDesc, n.ResourceID, b.Left, b.Top, b.Right, b.Bottom)
		return true
	})
	return h.Sum64()
}

// ui.set_default_timeout(ms) → previous ms.
func (e *env) uiSetDefaultTimeout(L *lua.LState) int {
	ms := L.CheckInt(1)
	if ms < 0 {
		L.ArgError(1, "ui.set_default_timeout: milliseconds must be >= 0, got "+strconv.Itoa(ms))
	}
	prev := e.uiTimeout
	e.uiTimeout = time.Duration(ms) * time.Millisecond
	L.Push(lua.LNumber(prev.Milliseconds()))
	return 1
}

// ui.default_timeout() → the implicit wait of finds, in ms.
func (e *env) uiDefaultTimeout(L *lua.LState) int {
	L.Push(lua.LNumber(e.uiTimeout.Milliseconds()))
	return 1
}

// ui.on_poll(fn | nil) registers the polling hook.
func (e *env) uiOnPoll(L *lua.LState) int {
	switch v := L.Get(1).(type) {
	case *lua.LFunction:
		e.onPoll = v
	default:
		if v != lua.LNil {
			L.ArgError(1, "ui.on_poll: function or nil expected, got "+v.Type().String())
		}
		e.onPoll = nil
	}
	return 0
}
