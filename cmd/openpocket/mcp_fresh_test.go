package main_test

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// switchLine is the element line of the checkable element labelled label.
func switchLine(t *testing.T, block, label string) string {
	t.Helper()
	for _, line := range strings.Split(block, "\n") {
		if strings.HasPrefix(line, "mark ") && strings.Contains(line, `"`+label+`"`) && strings.Contains(line, "class=Switch") {
			return line
		}
	}
	t.Fatalf("no switch labelled %q in:\n%s", label, block)
	return ""
}

// An MCP client's model toggles the Wi-Fi switch by its mark ten times;
// each snapshot after a tap shows the switch's new state.
func TestMCPSnapshotFreshAfterEachToggle(t *testing.T) {
	phone := simtest.Start(t)
	withMCPClient(t, t.TempDir(), phone.Serial(), nil, func(ctx context.Context, cs *sdk.ClientSession) {
		res := call(t, ctx, cs, "launch_app", map[string]any{"packageName": "com.android.settings"})
		require.False(t, res.IsError, text(res))
		res = call(t, ctx, cs, "snapshot", nil)
		require.False(t, res.IsError, text(res))
		for i := 0; i < 10; i++ {
			id := markOf(t, text(res), "Wi-Fi")
			res = call(t, ctx, cs, "act", map[string]any{"action": map[string]any{"type": "tap_element", "elementId": id}})
			require.False(t, res.IsError, text(res))
			on := phone.Phone().WifiOn()
			res = call(t, ctx, cs, "snapshot", nil)
			require.False(t, res.IsError, text(res))
			line := switchLine(t, text(res), "Wi-Fi")
			if on {
				assert.Contains(t, line, " checked", "toggle %d", i+1)
			} else {
				assert.Contains(t, line, " unchecked", "toggle %d", i+1)
			}
		}
	})
}
