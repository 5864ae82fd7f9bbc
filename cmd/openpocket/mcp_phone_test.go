package main_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/lease"
	"github.com/openpocket/openpocket/internal/mcp/backend"
	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// TestMCPKeepsItsPhoneAcrossCalls: the server drives one phone per device
// for its lifetime, so a second snapshot of a static screen is served
// from the phone's element cache; the device lease is taken per call
// (docs/mcp.md), so another process may take it between calls and the
// server's next call is refused until it is given back.
func TestMCPKeepsItsPhoneAcrossCalls(t *testing.T) {
	// Leases of its own: the refusal below is this test's lease, never one
	// another process on the shared machine holds.
	t.Setenv(lease.DirEnv, t.TempDir())
	phone := simtest.Start(t)
	withMCPBackend(t, t.TempDir(), phone.Serial(), nil, func(ctx context.Context, cs *sdk.ClientSession, b *backend.Backend) {
		res := call(t, ctx, cs, "launch_app", map[string]any{"packageName": "com.android.settings"})
		require.False(t, res.IsError, text(res))
		source := func(args map[string]any) string {
			res := call(t, ctx, cs, "snapshot", args)
			require.False(t, res.IsError, text(res))
			m, ok := res.StructuredContent.(map[string]any)
			require.True(t, ok, "structured content %T", res.StructuredContent)
			s, _ := m["elementsSource"].(string)
			return s
		}
		assert.Equal(t, "fresh", source(map[string]any{"fresh": true}))
		assert.Equal(t, "cache", source(nil), "the second look at a static screen reuses the server's phone")

		first, release, err := b.Phone(ctx, "")
		require.NoError(t, err)
		release()
		// Between calls the lease is free: another driver can take it.
		held, err := lease.Acquire(ctx, phone.Serial(), lease.Options{Command: "openpocket play"})
		require.NoError(t, err, "the server holds no lease between calls")
		res = call(t, ctx, cs, "snapshot", nil)
		assert.True(t, res.IsError, "a call while another process holds the lease is refused")
		assert.Contains(t, text(res), fmt.Sprintf("in use by pid %d (openpocket play)", os.Getpid()))
		require.NoError(t, held.Release())

		again, release, err := b.Phone(ctx, "")
		require.NoError(t, err)
		release()
		assert.Same(t, first, again, "one phone per device for the server's lifetime")
	})
}
