package adb_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/sim/android"
)

// agentStep does what the agent loop does for one step: a capture for the
// model, then the action decided on it, observed and settled.
type agentStep struct {
	t   *testing.T
	p   *device.Phone
	ctx context.Context
}

func (a agentStep) look() *screen.Snapshot {
	a.t.Helper()
	snap, err := a.p.Capture(a.ctx, device.CaptureOptions{Scaled: true, SOM: true})
	require.NoError(a.t, err)
	return snap
}

func (a agentStep) act(snap *screen.Snapshot, act action.Action) {
	a.t.Helper()
	_, err := a.p.Execute(a.ctx, act, device.ActOptions{Snapshot: snap, Scaled: true, Observe: true})
	require.NoError(a.t, err)
}

func elementWith(t *testing.T, snap *screen.Snapshot, match func(screen.UIElement) bool) screen.UIElement {
	t.Helper()
	for _, e := range snap.UIElements {
		if match(e) {
			return e
		}
	}
	t.Fatalf("no such element in:\n%s", screen.ElementBlock(snap.UIElements, snap.UINotes))
	return screen.UIElement{}
}

func byResID(id string) func(screen.UIElement) bool {
	return func(e screen.UIElement) bool { return e.ResourceID == id }
}

func tapElement(e screen.UIElement) action.Action {
	return action.Action{Type: "tap_element", Params: map[string]any{"elementId": e.ID}}
}

// The README's example: a model that trusts the element list taps the
// Wi-Fi switch and reads its state back, ten times.
func TestElementListFreshAfterEachSwitchToggle(t *testing.T) {
	s, d := openShared(t)
	p := device.NewPhone(d, device.Options{})
	a := agentStep{t, p, context.Background()}
	_, err := p.LaunchApp(a.ctx, android.PkgSettings)
	require.NoError(t, err)
	want := s.Phone().WifiOn()
	snap := a.look()
	for i := 0; i < 10; i++ {
		sw := elementWith(t, snap, byResID(android.PkgSettings+":id/wifi_switch"))
		require.Equal(t, want, sw.Checked, "toggle %d: the list before the tap", i)
		a.act(snap, tapElement(sw))
		want = !want
		require.Equal(t, want, s.Phone().WifiOn(), "the tap toggled the phone")
		snap = a.look()
		sw = elementWith(t, snap, byResID(android.PkgSettings+":id/wifi_switch"))
		assert.Equal(t, want, sw.Checked, "toggle %d: the list after the tap (source %s)", i+1, snap.CaptureMetrics.UIElementsSource)
	}
}

// A ticked CheckBox and the toolbar badge counting what is left.
func TestElementListFreshAfterCheckboxAndBadge(t *testing.T) {
	s, d := openShared(t)
	p := device.NewPhone(d, device.Options{})
	a := agentStep{t, p, context.Background()}
	_, err := p.LaunchApp(a.ctx, android.PkgTasks)
	require.NoError(t, err)
	snap := a.look()
	a.look() // a second look: the static screen's dump is now kept
	for i, left := range []string{"3", "2"} {
		box := elementWith(t, snap, func(e screen.UIElement) bool {
			return e.ResourceID == android.PkgTasks+":id/task_check" && e.Bounds.Top >= snap.UIElements[0].Bounds.Top && !e.Checked
		})
		a.act(snap, tapElement(box))
		require.True(t, s.Phone().TaskDone(i))
		snap = a.look()
		ticked := 0
		for _, e := range snap.UIElements {
			if e.ResourceID == android.PkgTasks+":id/task_check" && e.Checked {
				ticked++
			}
		}
		assert.Equal(t, i+1, ticked, "ticked boxes in the list (source %s)", snap.CaptureMetrics.UIElementsSource)
		assert.Contains(t, screen.ElementBlock(snap.UIElements, snap.UINotes), `"`+left+`"`, "the badge's new count")
	}
}

// Typing one character at a time into a focused field.
func TestElementListFreshAfterTyping(t *testing.T) {
	_, d := openShared(t)
	p := device.NewPhone(d, device.Options{})
	a := agentStep{t, p, context.Background()}
	_, err := p.LaunchApp(a.ctx, android.PkgContacts) // no permission dialog
	require.NoError(t, err)
	_, err = p.LaunchApp(a.ctx, android.PkgChat)
	require.NoError(t, err)
	snap := a.look()
	row := elementWith(t, snap, func(e screen.UIElement) bool { return strings.Contains(e.Text+e.ContentDesc, "Bob Smith") })
	a.act(snap, tapElement(row))
	snap = a.look()
	field := elementWith(t, snap, byResID(android.PkgChat+":id/entry"))
	a.act(snap, tapElement(field))
	typed := ""
	for _, ch := range []string{"h", "i", "!"} {
		snap = a.look()
		a.act(snap, action.Action{Type: "type", Params: map[string]any{"text": ch}})
		typed += ch
		snap = a.look()
		field = elementWith(t, snap, byResID(android.PkgChat+":id/entry"))
		assert.Equal(t, typed, field.Text, "source %s", snap.CaptureMetrics.UIElementsSource)
	}
}

// Swiping a list whose rows look alike: each list after a swipe shows the
// rows now on screen.
func TestElementListFreshAfterSwipingLookAlikeRows(t *testing.T) {
	_, d := openShared(t)
	p := device.NewPhone(d, device.Options{})
	a := agentStep{t, p, context.Background()}
	_, err := p.LaunchApp(a.ctx, android.PkgContacts)
	require.NoError(t, err)
	// The first row inside the list: its label is a contact's name.
	firstName := func(snap *screen.Snapshot) string {
		list := elementWith(t, snap, func(e screen.UIElement) bool { return e.Scrollable })
		return elementWith(t, snap, func(e screen.UIElement) bool {
			return !e.Scrollable && e.Bounds.Top >= list.Bounds.Top && e.Text+e.ContentDesc != ""
		}).Text
	}
	snap := a.look()
	a.look()
	seen := map[string]bool{firstName(snap): true}
	for i := 0; i < 3; i++ {
		list := elementWith(t, snap, func(e screen.UIElement) bool { return e.Scrollable })
		c := list.ScaledCenter
		h := list.ScaledBounds.Bottom - list.ScaledBounds.Top
		a.act(snap, action.Action{Type: "swipe", Params: map[string]any{
			"x1": float64(c.X), "y1": float64(c.Y + h/6), "x2": float64(c.X), "y2": float64(c.Y - h/6), "durationMs": 300.0}})
		snap = a.look()
		first := firstName(snap)
		assert.False(t, seen[first], "swipe %d: the list still starts at %q (source %s)", i+1, first, snap.CaptureMetrics.UIElementsSource)
		seen[first] = true
	}
}
