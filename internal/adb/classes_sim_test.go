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

// lineWith returns the element whose line holds every part.
func lineWith(t *testing.T, snap *screen.Snapshot, parts ...string) screen.UIElement {
	t.Helper()
	for _, e := range snap.UIElements {
		line := screen.ElementLine(e)
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(line, p)
		}
		if ok {
			return e
		}
	}
	t.Fatalf("no element line with %q in:\n%s", parts, screen.ElementBlock(snap.UIElements, snap.UINotes))
	return screen.UIElement{}
}

// The virtual phone's checkout screen holds issue 29's structures; a model
// that reads only the element list finds every control by its label and
// each does what it says.
func TestElementListNamesEveryControlOfTheCheckout(t *testing.T) {
	s, d := openShared(t)
	p := device.NewPhone(d, device.Options{})
	a := agentStep{t, p, context.Background()}
	_, err := p.LaunchApp(a.ctx, android.PkgShop)
	require.NoError(t, err)
	snap := a.look()

	// 6: the greyed-out coupon button is listed, flagged.
	lineWith(t, snap, `label="Apply coupon" clickable=true`, " disabled")
	// 7: the seller's note reacts only to a long press.
	lineWith(t, snap, `label="Thanks for shopping with us!, Seller" clickable=false`, "long-clickable")

	steps := []struct {
		parts []string
		act   func(screen.UIElement) action.Action
		want  string
	}{
		// 1: controls inside the container marked enabled="false".
		{[]string{`label="Remove" clickable=true`, `in="Merino socks"`}, tapElement, "removed Merino socks"},
		// 3: a radio row named by its title, not "#checkbox".
		{[]string{`label="Express delivery" clickable=true class=RadioButton`, "unchecked"}, tapElement, "delivery Express"},
		// 3: the small switch inside the described row is its own control.
		{[]string{`clickable=true class=Switch`, "unchecked"}, tapElement, "gift wrap on"},
		// 8: the glyph-only back button reads "Back".
		{[]string{`label="Back" clickable=true class=TextView`}, tapElement, "back"},
		// 4: tabs named by captions with zero-size bounds.
		{[]string{`label="Saved" clickable=true class=FrameLayout`}, tapElement, "tab Saved"},
		{[]string{`label="Checkout" clickable=true class=Button`}, tapElement, "checkout"},
		{[]string{`label="Thanks for shopping with us!, Seller"`, "long-clickable"}, func(note screen.UIElement) action.Action {
			c := note.ScaledCenter
			return action.Action{Type: "swipe", Params: map[string]any{"x1": float64(c.X), "y1": float64(c.Y), "x2": float64(c.X), "y2": float64(c.Y), "durationMs": 800}}
		}, "note menu"},
	}
	for i, st := range steps {
		a.act(snap, st.act(lineWith(t, snap, st.parts...)))
		log := s.Phone().ShopLog()
		require.NotEmpty(t, log, "step %d did nothing", i+1)
		assert.Equal(t, st.want, log[len(log)-1], "step %d", i+1)
		snap = a.look()
	}
	lineWith(t, snap, `label="Express delivery" clickable=true class=RadioButton`, " checked")
	assert.NotContains(t, screen.ElementBlock(snap.UIElements, snap.UINotes), "Merino socks")
}
