package device

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/screen"
)

// The UI service: finding elements by selector with an implicit wait,
// waiting for them to go, typing into fields and scrolling lists. The Lua
// ui module (and any front end) calls these; the polling, the field
// clearing and the scroll algorithm live here, once.

// ErrNotFound is wrapped by the errors of finds that found nothing.
var ErrNotFound = errors.New("not found")

// ErrStillVisible is wrapped by WaitGone's error when the element stayed.
var ErrStillVisible = errors.New("still visible")

// DefaultPollInterval is the pause between two UI tree polls.
const DefaultPollInterval = 150 * time.Millisecond

// Finder is a compiled selector and its name in messages.
type Finder interface {
	Find(root *screen.Node) *screen.Node
	String() string
}

// UI finds and drives elements of one phone's screen. Every call takes a
// context and returns its cause when it ends (the caller raises).
type UI struct {
	Phone *Phone
	// Interval is the pause between two polls (DefaultPollInterval when 0).
	Interval time.Duration
	// OnPoll runs between two polls and after each scroll swipe (a
	// script's watcher: dismiss a dialog that hides the element).
	OnPoll func(ctx context.Context)
	// Act executes the taps and swipes (nil: Phone.Execute).
	Act func(ctx context.Context, a action.Action) error
}

func (u *UI) interval() time.Duration {
	if u.Interval > 0 {
		return u.Interval
	}
	return DefaultPollInterval
}

func (u *UI) act(ctx context.Context, a action.Action) error {
	if u.Act != nil {
		return u.Act(ctx, a)
	}
	_, err := u.Phone.Execute(ctx, a, ActOptions{})
	return err
}

// pause waits d or until ctx ends (its cause, so a script sees why).
func pause(ctx context.Context, d time.Duration) error {
	if err := sleep(ctx, d); err != nil {
		return context.Cause(ctx)
	}
	return nil
}

// Poll dumps the UI tree until check accepts it or timeout passes (at
// least one dump), running OnPoll between dumps. It returns the last tree
// (nil if no dump succeeded), whether check accepted it, and the last dump
// error — or the context's cause when ctx ended. check must be pure: an
// unchanged dump comes back as the same parsed tree (the phone memoizes the
// parse) and is not checked again.
func (u *UI) Poll(ctx context.Context, timeout time.Duration, check func(*screen.Node) bool) (*screen.Node, bool, error) {
	deadline := time.Now().Add(timeout)
	var root *screen.Node
	var lastErr error
	for {
		r, _, err := u.Phone.Hierarchy(ctx)
		if ctx.Err() != nil {
			return root, false, context.Cause(ctx)
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
		if u.OnPoll != nil {
			u.OnPoll(ctx)
		}
		if err := pause(ctx, min(u.interval(), left)); err != nil {
			return root, false, err
		}
	}
}

// Wait finds f within timeout: the first match and its tree, or an error
// wrapping ErrNotFound that names the selector and what the screen showed.
func (u *UI) Wait(ctx context.Context, f Finder, timeout time.Duration) (*screen.Node, *screen.Node, error) {
	var found *screen.Node
	root, ok, err := u.Poll(ctx, timeout, func(r *screen.Node) bool {
		found = f.Find(r)
		return found != nil
	})
	switch {
	case ok:
		return found, root, nil
	case ctx.Err() != nil:
		return nil, root, err
	case err != nil && root == nil:
		return nil, nil, fmt.Errorf("%w: %s within %d ms: %v", ErrNotFound, f, timeout.Milliseconds(), err)
	}
	return nil, root, fmt.Errorf("%w: %s within %d ms; %s", ErrNotFound, f, timeout.Milliseconds(), ScreenShows(root))
}

// WaitGone waits until no element matches f.
func (u *UI) WaitGone(ctx context.Context, f Finder, timeout time.Duration) error {
	var still *screen.Node
	_, gone, err := u.Poll(ctx, timeout, func(r *screen.Node) bool {
		still = f.Find(r)
		return still == nil
	})
	switch {
	case gone:
		return nil
	case ctx.Err() != nil:
		return err
	case still == nil && err != nil:
		return fmt.Errorf("%s: %v", f, err)
	}
	return fmt.Errorf("%w after %d ms: %s (%s)", ErrStillVisible, timeout.Milliseconds(), f, DescribeNode(still))
}

// Tap taps the centre of n's action target count times.
func (u *UI) Tap(ctx context.Context, n *screen.Node, count int) error {
	c := screen.ActionTarget(n).Center()
	a, err := action.New("tap", map[string]any{"x": c.X, "y": c.Y})
	if err != nil {
		return err
	}
	for range count {
		if err := u.act(ctx, a); err != nil {
			return err
		}
	}
	return nil
}

// Key codes SetText clears with (numbers: older `input` builds and the
// virtual phone accept every code by number).
const (
	keyMoveEnd = "123" // KEYCODE_MOVE_END
	keyDel     = "67"  // KEYCODE_DEL
)

// SetText types text into the field n (found by f): tap it, clear what it
// holds with key events, type, then read it back from a new tree and
// compare (not for password fields, which never read back).
func (u *UI) SetText(ctx context.Context, f Finder, n *screen.Node, text string) error {
	if err := u.Tap(ctx, n, 1); err != nil {
		return err
	}
	if k := len([]rune(FieldText(n))); k > 0 {
		cmd := "input keyevent " + keyMoveEnd + strings.Repeat(" "+keyDel, k)
		if res, err := u.Phone.Shell(ctx, cmd); err != nil {
			return err
		} else if res.ExitCode != 0 {
			return fmt.Errorf("clearing the field: input keyevent: exit code %d: %s", res.ExitCode, strings.TrimSpace(string(res.Stderr)))
		}
	}
	if text != "" {
		if _, err := u.Phone.Type(ctx, text); err != nil {
			return err
		}
	}
	if n.Password {
		return nil
	}
	root, _, err := u.Phone.Hierarchy(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return fmt.Errorf("reading the field back: %w", err)
	}
	field := sameField(root, n)
	if field == nil {
		return fmt.Errorf("%s: the field is gone after typing; %s", f, ScreenShows(root))
	}
	if !fieldHolds(field, text) {
		return fmt.Errorf("%s reads %q after typing, expected %q", f, field.Text, text)
	}
	return nil
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

// FieldText is what an input field holds: older Androids report the hint
// as the text of an empty field.
func FieldText(n *screen.Node) string {
	if n.Text == n.Hint() && !n.Password {
		return ""
	}
	return n.Text
}

// fieldHolds reports whether field reads text (surrounding space aside).
// The raw text is compared too, so typing the hint's own words verifies.
func fieldHolds(field *screen.Node, text string) bool {
	want := strings.TrimSpace(text)
	return strings.TrimSpace(field.Text) == want || strings.TrimSpace(FieldText(field)) == want
}

// DescribeNode names a node for messages: class, label (or id) and bounds.
func DescribeNode(n *screen.Node) string {
	if n == nil {
		return "?"
	}
	b := n.Bounds
	label := n.Label()
	if label == "" {
		label = n.ResourceID
	}
	class := n.Class
	if i := strings.LastIndexByte(class, '.'); i >= 0 {
		class = class[i+1:]
	}
	return fmt.Sprintf("%s %q at [%d,%d][%d,%d]", class, label, b.Left, b.Top, b.Right, b.Bottom)
}

// ScreenShows describes a tree for failure messages.
func ScreenShows(root *screen.Node) string {
	if root == nil {
		return "no UI tree"
	}
	labels := visibleLabels(root, 20)
	if len(labels) == 0 {
		return "screen shows no labels"
	}
	return "screen shows: " + strings.Join(labels, ", ")
}

// visibleLabels lists the distinct labels on screen (document order, at
// most max, then "… N more").
func visibleLabels(root *screen.Node, max int) []string {
	var out []string
	more := 0
	root.Walk(func(n *screen.Node) bool {
		if n.IsRoot() || !n.Visible() {
			return true
		}
		l := ownLabel(n)
		if l == "" || slices.Contains(out, strconv.Quote(l)) {
			return true
		}
		if len(out) >= max {
			more++
			return true
		}
		if r := []rune(l); len(r) > 40 {
			l = string(r[:39]) + "…"
		}
		out = append(out, strconv.Quote(l))
		return true
	})
	if more > 0 {
		out = append(out, fmt.Sprintf("… %d more", more))
	}
	return out
}

// ownLabel is a node's own text, content-desc or hint (whitespace folded).
func ownLabel(n *screen.Node) string {
	for _, s := range []string{n.Text, n.ContentDesc, n.Hint()} {
		if s = strings.Join(strings.Fields(s), " "); s != "" {
			return s
		}
	}
	return ""
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
