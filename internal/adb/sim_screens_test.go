package adb_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/sim/android"
)

// The virtual phone's real-device structures, read through the real adb
// server and the whole snapshot pipeline: the element list the model reads
// holds the controls a person would use and none of the listed noise.
func TestModelElementListOnTheVirtualPhonesStructures(t *testing.T) {
	s, d := openShared(t)
	p := device.NewPhone(d, device.Options{})
	ctx := context.Background()
	block := func(t *testing.T) string {
		t.Helper()
		snap, err := p.Capture(ctx, device.CaptureOptions{NoCache: true})
		require.NoError(t, err)
		return screen.ElementBlock(snap.UIElements, snap.UINotes)
	}
	launch := func(t *testing.T, pkg string) {
		t.Helper()
		_, err := p.LaunchApp(ctx, pkg)
		require.NoError(t, err)
	}
	cases := []struct {
		name        string
		setup       func(t *testing.T)
		want, noise []string
	}{
		{"launcher folders and dock", func(*testing.T) {},
			[]string{`label="Folder: Tools" clickable=true`, `label="Chat" clickable=true class=TextView`, `label="Settings" clickable=true class=FrameLayout`},
			[]string{"preview_item"}},
		{"wallet captions, compose and glyphs", func(t *testing.T) { launch(t, android.PkgWallet) },
			[]string{`label="Top-up" clickable=true`, `label="Withdraw" clickable=true`, `label="Statements" clickable=true`, `label="Add money" clickable=true`, `label="Cards" clickable=true`},
			[]string{"layout_quickBankingMenuCircle", "\U000F01F0", "\uE68C", `label=""`, "card_button_wrapper"}},
		{"chat rows and tab badges", func(t *testing.T) { launch(t, android.PkgChat) },
			[]string{`label="Bob Smith, Last message from Bob, 10:05" clickable=true`, `label="Chats, 2 new messages, tab 1 of 3" clickable=true`},
			[]string{`label="2" `}},
		{"keyboard folded", func(t *testing.T) {
			x, y := centreOf(t, s.Phone(), `text="Bob Smith"`)
			_, err := d.Shell(ctx, tapCmd(x, y))
			require.NoError(t, err)
			x, y = centreOf(t, s.Phone(), `resource-id="com.openpocket.chat:id/entry"`)
			_, err = d.Shell(ctx, tapCmd(x, y))
			require.NoError(t, err)
		}, []string{screen.KeyboardNote, `label="Send" clickable=true`, `label="Message" clickable=true class=EditText`},
			[]string{`label="q"`, `label="Delete"`, `label="Space"`}},
		{"notification shade over the app", func(t *testing.T) {
			s.Phone().PostNotification("Chat", "Alice Johnson", "See you at 6")
			_, err := d.Shell(ctx, "cmd statusbar expand-notifications")
			require.NoError(t, err)
		}, []string{`label="Internet, On" clickable=true`, `label="Chat notification: Alice Johnson" clickable=true`, `label="Clear all" clickable=true`},
			[]string{`label="Send"`, `label="Message"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.setup(t)
			got := block(t)
			for _, w := range c.want {
				assert.Contains(t, got, w)
			}
			for _, n := range c.noise {
				assert.NotContains(t, got, n)
			}
		})
	}
}

func tapCmd(x, y int) string { return fmt.Sprintf("input tap %d %d", x, y) }

// centreOf finds the first node of the phone's dump carrying attr.
func centreOf(t *testing.T, ph *android.Phone, attr string) (int, int) {
	t.Helper()
	xml := string(ph.UIDumpXML())
	i := strings.Index(xml, attr)
	require.GreaterOrEqual(t, i, 0, "no node with %s", attr)
	rest := xml[i:]
	j := strings.Index(rest, `bounds="`)
	require.GreaterOrEqual(t, j, 0)
	var l, tp, r, b int
	_, err := fmt.Sscanf(rest[j+len(`bounds="`):], "[%d,%d][%d,%d]", &l, &tp, &r, &b)
	require.NoError(t, err)
	return (l + r) / 2, (tp + b) / 2
}
