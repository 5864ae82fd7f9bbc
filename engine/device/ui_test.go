package device_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/device/devicetest"
	"github.com/openpocket/openpocket/engine/screen"
)

// uiDump is a uiautomator dump with the given nodes inside one window.
func uiDump(nodes string) string {
	return `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">` +
		`<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.example" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2400]">` +
		nodes + `</node></hierarchy>`
}

func textNode(text string, top int) string {
	return fmt.Sprintf(`<node index="0" text="%s" resource-id="" class="android.widget.TextView" package="com.example" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,%d][1080,%d]" />`, text, top, top+100)
}

// textFinder finds the first node with exactly this text.
type textFinder string

func (f textFinder) Find(root *screen.Node) *screen.Node {
	var found *screen.Node
	root.Walk(func(n *screen.Node) bool {
		if found == nil && n.Text == string(f) {
			found = n
		}
		return found == nil
	})
	return found
}

func (f textFinder) String() string { return fmt.Sprintf("text=%q", string(f)) }

func TestUIWaitPollsUntilTheElementAppears(t *testing.T) {
	f := devicetest.New()
	var dumps atomic.Int32
	f.On("uiautomator dump", func(string) (device.ShellResult, error) {
		if dumps.Add(1) < 3 {
			return device.ShellResult{Stdout: []byte(uiDump(textNode("Loading", 100)))}, nil
		}
		return device.ShellResult{Stdout: []byte(uiDump(textNode("Loading", 100) + textNode("Ready", 300)))}, nil
	})
	polls := 0
	ui := &device.UI{Phone: device.NewPhone(f, device.Options{}), Interval: time.Millisecond, OnPoll: func(context.Context) { polls++ }}
	n, root, err := ui.Wait(context.Background(), textFinder("Ready"), 5*time.Second)
	require.NoError(t, err)
	assert.Equal(t, "Ready", n.Text)
	assert.NotNil(t, root)
	assert.Equal(t, 2, polls, "the poll hook runs between dumps")

	_, _, err = ui.Wait(context.Background(), textFinder("Missing"), 20*time.Millisecond)
	require.ErrorIs(t, err, device.ErrNotFound)
	assert.Contains(t, err.Error(), `text="Missing" within 20 ms; screen shows: "Loading", "Ready"`)

	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(fmt.Errorf("stop now: %w", context.Canceled))
	_, _, err = ui.Wait(ctx, textFinder("Missing"), time.Second)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "stop now", "a cancelled wait returns the context's cause")
}

func TestUIWaitGoneAndStillVisible(t *testing.T) {
	f := devicetest.New()
	var dumps atomic.Int32
	f.On("uiautomator dump", func(string) (device.ShellResult, error) {
		if dumps.Add(1) < 2 {
			return device.ShellResult{Stdout: []byte(uiDump(textNode("Dialog", 100)))}, nil
		}
		return device.ShellResult{Stdout: []byte(uiDump(textNode("Home", 100)))}, nil
	})
	ui := &device.UI{Phone: device.NewPhone(f, device.Options{}), Interval: time.Millisecond}
	require.NoError(t, ui.WaitGone(context.Background(), textFinder("Dialog"), time.Second))
	err := ui.WaitGone(context.Background(), textFinder("Home"), 10*time.Millisecond)
	require.ErrorIs(t, err, device.ErrStillVisible)
	assert.Contains(t, err.Error(), `still visible after 10 ms: text="Home" (TextView "Home" at [0,100][1080,200])`)
}

func TestUIScrollIntoViewStopsAtTheEndOfTheList(t *testing.T) {
	f := devicetest.New()
	f.OnOutput("uiautomator dump", uiDump(textNode("Row 1", 100)+textNode("Row 2", 200)))
	f.OnOutput("wm size", "Physical size: 1080x2400\n")
	f.OnOutput("input", "")
	var swipes int
	ui := &device.UI{Phone: device.NewPhone(f, device.Options{}), Interval: time.Millisecond}
	ui.Act = func(context.Context, action.Action) error { swipes++; return nil }
	_, err := ui.ScrollIntoView(context.Background(), textFinder("Row 99"), device.ScrollOptions{MaxSwipes: 5, Timeout: 5 * time.Second})
	require.ErrorIs(t, err, device.ErrNotFound)
	assert.Contains(t, err.Error(), "reached the end of the list after 1 swipes down")
	assert.Equal(t, 1, swipes, "an unchanged tree ends the search after one swipe")
	n, err := ui.ScrollIntoView(context.Background(), textFinder("Row 2"), device.ScrollOptions{MaxSwipes: 5, Timeout: 5 * time.Second})
	require.NoError(t, err)
	assert.Equal(t, "Row 2", n.Text)
}
