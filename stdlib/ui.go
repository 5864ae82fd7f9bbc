package stdlib

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/lua"
)

// uiHost is the ui module's host in one VM: the phone host, the implicit
// wait of finds (ui.set_default_timeout) and the ui.on_poll hook.
type uiHost struct {
	*phoneHost
	timeout time.Duration
	onPoll  *lua.LFunction
	// inHook keeps the hook from re-entering itself through ui calls.
	inHook bool
}

func openUI(vm *lua.VM) (lua.LValue, error) {
	e := &uiHost{phoneHost: phoneHostOf(vm), timeout: DefaultTimeout}
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
// wait for the element: w.n is the element, or err says why there is none
// (w.p is nil when the phone itself is unavailable).
func (e *uiHost) waitArgs(L *lua.LState, fn string, optIdx int, def time.Duration, extra func(o *lua.OptionsTable)) (w waited, err error) {
	w.sel = checkSel(L, 1, fn)
	o := lua.CheckOptions(L, optIdx)
	timeout := o.Duration("timeout", def)
	if extra != nil {
		extra(o)
	}
	o.Check()
	if w.p, err = e.Phone(L, fn); err != nil {
		return w, err
	}
	w.n, _, err = e.waitFor(L, w.p, w.sel, timeout)
	return w, err
}

// errNotFound is wrapped by "not found" results.
var errNotFound = device.ErrNotFound

// ui is the UI service of p for this VM: polls with PollInterval, runs the
// ui.on_poll hook between polls and taps through the session.
func (e *uiHost) ui(L *lua.LState, p *device.Phone) *device.UI {
	return &device.UI{
		Phone:    p,
		Interval: PollInterval,
		OnPoll:   func(context.Context) { e.runHook(L) },
		Act: func(_ context.Context, a action.Action) error {
			_, err := e.act(L, a, device.ActOptions{})
			return err
		},
	}
}

// raiseIfCancelled raises the context's cause when the script's context
// ended: cancellation stops the script instead of returning nil, err.
func raiseIfCancelled(L *lua.LState) {
	if ctx := lua.Context(L); ctx.Err() != nil {
		lua.Raise(L, context.Cause(ctx))
	}
}

// runHook calls the ui.on_poll hook under pcall; an error is logged. The
// hook does not re-enter itself when it calls ui functions.
func (e *uiHost) runHook(L *lua.LState) {
	if e.onPoll == nil || e.inHook {
		return
	}
	e.inHook = true
	defer func() { e.inHook = false }()
	L.Push(e.onPoll)
	if err := lua.ProtectedCall(L, 0, 0); err != nil {
		if lua.Context(L).Err() != nil {
			return // the wait sees the cancellation and raises it
		}
		e.Logger().Warn("ui.on_poll hook failed", "source", "lua", "err", err.Error())
	}
}

// waitFor finds sel within timeout (raising on cancellation).
func (e *uiHost) waitFor(L *lua.LState, p *device.Phone, sel *Sel, timeout time.Duration) (*screen.Node, *screen.Node, error) {
	n, root, err := e.ui(L, p).Wait(lua.Context(L), sel, timeout)
	raiseIfCancelled(L)
	return n, root, err
}

// ui.find(sel, {timeout_ms}) / ui.wait(sel, {timeout_ms}) → element or nil, err.
func (e *uiHost) uiFind(fn string) lua.LGFunction {
	return func(L *lua.LState) int {
		w, err := e.waitArgs(L, fn, 2, e.timeout, nil)
		if err != nil {
			return lua.ReturnErr(L, err)
		}
		L.Push(elementTable(L, w.n))
		return 1
	}
}

// dumpOnce takes one UI tree (no wait).
func (e *uiHost) dumpOnce(L *lua.LState, p *device.Phone) (*screen.Node, error) {
	root, _, err := p.Hierarchy(lua.Context(L))
	if err != nil {
		raiseIfCancelled(L)
		return nil, err
	}
	return root, nil
}

// ui.find_all(sel) → array of elements (no wait).
func (e *uiHost) uiFindAll(L *lua.LState) int {
	sel := checkSel(L, 1, "ui.find_all")
	p, err := e.Phone(L, "ui.find_all")
	if err != nil {
		return lua.ReturnErr(L, err)
	}
	root, err := e.dumpOnce(L, p)
	if err != nil {
		return fail(L, "ui.find_all", err)
	}
	L.Push(elementsTable(L, sel.M.FindAll(root)))
	return 1
}

// ui.exists(sel) → boolean (no wait).
func (e *uiHost) uiExists(L *lua.LState) int {
	sel := checkSel(L, 1, "ui.exists")
	p, err := e.Phone(L, "ui.exists")
	if err != nil {
		return lua.ReturnErr(L, err)
	}
	root, err := e.dumpOnce(L, p)
	if err != nil {
		return fail(L, "ui.exists", err)
	}
	L.Push(lua.LBool(sel.M.Find(root) != nil))
	return 1
}

// ui.wait_gone(sel, {timeout_ms}) → true or nil, err.
func (e *uiHost) uiWaitGone(L *lua.LState) int {
	sel := checkSel(L, 1, "ui.wait_gone")
	o := lua.CheckOptions(L, 2)
	timeout := o.Duration("timeout", e.timeout)
	o.Check()
	p, err := e.Phone(L, "ui.wait_gone")
	if err != nil {
		return lua.ReturnErr(L, err)
	}
	err = e.ui(L, p).WaitGone(lua.Context(L), sel, timeout)
	raiseIfCancelled(L)
	if err != nil {
		if !errors.Is(err, device.ErrStillVisible) {
			err = fmt.Errorf("ui.wait_gone: %w", err)
		}
		return lua.ReturnErr(L, err)
	}
	L.Push(lua.LTrue)
	return 1
}

func simpleClass(c string) string {
	if i := strings.LastIndexByte(c, '.'); i >= 0 {
		return c[i+1:]
	}
	return c
}

// tapNode taps the centre of n's action target count times.
func (e *uiHost) tapNode(L *lua.LState, n *screen.Node, count int) error {
	err := e.ui(L, nil).Tap(lua.Context(L), n, count)
	raiseIfCancelled(L)
	return err
}

// ui.tap / ui.double_tap (sel, {timeout_ms}) → element or nil, err.
func (e *uiHost) uiTapN(fn string, count int) lua.LGFunction {
	return func(L *lua.LState) int {
		w, err := e.waitArgs(L, fn, 2, e.timeout, nil)
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
func (e *uiHost) uiLongPress(L *lua.LState) int {
	var d time.Duration
	w, err := e.waitArgs(L, "ui.long_press", 2, e.timeout, func(o *lua.OptionsTable) {
		d = o.Duration("duration", 600*time.Millisecond)
	})
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
func (e *uiHost) uiTapIfExists(L *lua.LState) int {
	w, err := e.waitArgs(L, "ui.tap_if_exists", 2, 0, nil)
	if w.p == nil {
		return lua.ReturnErr(L, err) // no phone: nil, err, not "absent"
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
func (e *uiHost) uiText(L *lua.LState) int {
	w, err := e.waitArgs(L, "ui.text", 2, e.timeout, nil)
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

// fieldText is what an input field holds (device.FieldText).
func fieldText(n *screen.Node) string { return device.FieldText(n) }

func isEditable(n *screen.Node) bool {
	return strings.Contains(simpleClass(n.Class), "EditText") || n.Attr("hint") != ""
}

// ui.set_text(sel, text, {timeout_ms}) → true or nil, err: tap the field,
// clear it, type, read it back from the tree and compare (not for
// password fields).
func (e *uiHost) uiSetText(L *lua.LState) int {
	const fn = "ui.set_text"
	text := L.CheckString(2)
	w, err := e.waitArgs(L, fn, 3, e.timeout, nil)
	if err != nil {
		return lua.ReturnErr(L, err)
	}
	err = e.ui(L, w.p).SetText(lua.Context(L), w.sel, w.n, text)
	raiseIfCancelled(L)
	if err != nil {
		return fail(L, fn, err)
	}
	L.Push(lua.LTrue)
	return 1
}

// ui.scroll_into_view(sel, {direction="down", max_swipes=10, timeout_ms})
// → element or nil, err. Swipes the largest scrollable area (or the
// screen) from 70 % to 30 % of its extent, re-checks after each swipe and
// stops early when the tree stops changing (end of the list).
func (e *uiHost) uiScrollIntoView(L *lua.LState) int {
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
	p, err := e.Phone(L, fn)
	if err != nil {
		return lua.ReturnErr(L, err)
	}
	n, err := e.ui(L, p).ScrollIntoView(lua.Context(L), sel, device.ScrollOptions{Direction: dir, MaxSwipes: maxSwipes, Timeout: timeout})
	raiseIfCancelled(L)
	switch {
	case errors.Is(err, device.ErrNotFound):
		return lua.ReturnErr(L, err)
	case err != nil:
		return fail(L, fn, err)
	}
	L.Push(elementTable(L, n))
	return 1
}

// ui.set_default_timeout(ms) → previous ms.
func (e *uiHost) uiSetDefaultTimeout(L *lua.LState) int {
	ms := L.CheckInt(1)
	if ms < 0 {
		L.ArgError(1, "ui.set_default_timeout: milliseconds must be >= 0, got "+strconv.Itoa(ms))
	}
	prev := e.timeout
	e.timeout = time.Duration(ms) * time.Millisecond
	L.Push(lua.LNumber(prev.Milliseconds()))
	return 1
}

// ui.default_timeout() → the implicit wait of finds, in ms.
func (e *uiHost) uiDefaultTimeout(L *lua.LState) int {
	L.Push(lua.LNumber(e.timeout.Milliseconds()))
	return 1
}

// ui.on_poll(fn | nil) registers the polling hook.
func (e *uiHost) uiOnPoll(L *lua.LState) int {
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
