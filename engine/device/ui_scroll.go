package device

import (
	"context"
	"fmt"
	"time"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/screen"
)

// ScrollOptions tune ScrollIntoView.
type ScrollOptions struct {
	// Direction is where the content should come from: down (default),
	// up, left or right ("down": the finger moves up).
	Direction string
	// MaxSwipes bounds the swipes (0 = look once, no swipe).
	MaxSwipes int
	// Timeout bounds the whole search.
	Timeout time.Duration
}

// ScrollIntoView swipes the largest scrollable area (or the screen) from
// 70 % to 30 % of its extent until f matches, re-checking after each swipe
// and stopping early when the tree stops changing (the end of the list).
// Not finding the element is an error wrapping ErrNotFound; other errors
// are the device's (or the context's cause).
func (u *UI) ScrollIntoView(ctx context.Context, f Finder, o ScrollOptions) (*screen.Node, error) {
	dir := o.Direction
	if dir == "" {
		dir = "down"
	}
	deadline := time.Now().Add(o.Timeout)
	root, err := u.dump(ctx)
	if err != nil {
		return nil, err
	}
	sig := treeSignature(root)
	for i := 0; ; i++ {
		if n := f.Find(root); n != nil {
			return n, nil
		}
		if i >= o.MaxSwipes {
			return nil, fmt.Errorf("%w: %s after %d swipes %s; %s", ErrNotFound, f, i, dir, ScreenShows(root))
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w: %s within %d ms (%d swipes %s); %s", ErrNotFound, f, o.Timeout.Milliseconds(), i, dir, ScreenShows(root))
		}
		area, err := u.scrollArea(ctx, root)
		if err != nil {
			return nil, err
		}
		if err := u.swipeIn(ctx, area, dir); err != nil {
			return nil, err
		}
		if u.OnPoll != nil {
			u.OnPoll(ctx)
		}
		if err := pause(ctx, u.interval()); err != nil { // let a fling come to rest
			return nil, err
		}
		before := sig
		if root, err = u.dump(ctx); err != nil {
			return nil, err
		}
		if sig = treeSignature(root); sig == before {
			if n := f.Find(root); n != nil {
				return n, nil
			}
			return nil, fmt.Errorf("%w: %s: reached the end of the list after %d swipes %s; %s", ErrNotFound, f, i+1, dir, ScreenShows(root))
		}
	}
}

// dump takes one UI tree; when ctx ended, the error is its cause.
func (u *UI) dump(ctx context.Context) (*screen.Node, error) {
	root, _, err := u.Phone.Hierarchy(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, err
	}
	return root, nil
}

// scrollArea is the largest visible scrollable node's bounds, else the
// screen.
func (u *UI) scrollArea(ctx context.Context, root *screen.Node) (screen.Rect, error) {
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
	w, h, err := u.Phone.Size(ctx)
	if err != nil {
		return screen.Rect{}, err
	}
	return screen.Rect{Right: w, Bottom: h}, nil
}

// swipeIn swipes within r to reveal content in direction dir ("down":
// the finger moves up).
func (u *UI) swipeIn(ctx context.Context, r screen.Rect, dir string) error {
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
	return u.act(ctx, a)
}
