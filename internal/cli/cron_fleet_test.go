package cli

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/fleet"
	"github.com/openpocket/openpocket/internal/fleet/redistest"
	"github.com/openpocket/openpocket/internal/workspace"
)

// TestCronRunInAFleetHoldsTheJobsClaim: `cron run` of an agent in a fleet
// does not start while another host runs the job (the run claim is taken),
// holds the claim while it runs, and is refused, not run unclaimed, when
// Redis does not answer.
func TestCronRunInAFleetHoldsTheJobsClaim(t *testing.T) {
	rs := redistest.Start(t)
	home := filepath.Join(t.TempDir(), "home")
	r := runCronCLI(t, home, nil, "cron", "add", "--id", "mail", "--every", "1h", "--task", "check mail", "-s", "emu-7")
	require.Equal(t, 0, r.code, r.stderr)
	h, err := workspace.Open(home)
	require.NoError(t, err)
	cfg := h.Config()
	cfg.Fleet.RedisURL, cfg.Fleet.HostName = rs.URL(), "here"
	require.NoError(t, h.SaveConfig(cfg))

	other, err := fleet.Open(fleet.Options{URL: rs.URL(), Host: "host-b"})
	require.NoError(t, err)
	defer other.Close()
	ctx := context.Background()
	elsewhere, err := other.Claim(ctx, "mail")
	require.NoError(t, err)

	runs := newFakeRuns()
	claimedDuring := false
	runs.result = func(fakeCall) (engine.RunResult, error) {
		_, err := other.Claim(ctx, "mail")
		claimedDuring = err != nil
		return engine.RunResult{Success: true, Message: "3 new mails"}, nil
	}
	r = runCronCLI(t, home, runs, "cron", "run", "mail")
	assert.NotEqual(t, 0, r.code)
	assert.Contains(t, r.stderr, "still running on host-b")
	assert.Empty(t, runs.recorded(), "not run beside host-b's run")

	require.NoError(t, elsewhere.Unlock(ctx))
	r = runCronCLI(t, home, runs, "cron", "run", "mail")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Len(t, runs.recorded(), 1)
	assert.True(t, claimedDuring, "the run held the job's claim")
	again, err := other.Claim(ctx, "mail")
	require.NoError(t, err, "the claim is free after the run")
	require.NoError(t, again.Unlock(ctx))

	rs.Stop()
	r = runCronCLI(t, home, runs, "cron", "run", "mail")
	assert.NotEqual(t, 0, r.code)
	assert.Contains(t, r.stderr, "the fleet cannot be asked")
	assert.Len(t, runs.recorded(), 1, "never run without its claim")
}
