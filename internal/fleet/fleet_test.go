package fleet_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/fleet"
	"github.com/openpocket/openpocket/internal/fleet/redistest"
)

// host joins the fleet on rs as name with phones.
func host(t testing.TB, rs *redistest.Server, name string, phones ...fleet.Phone) *fleet.Fleet {
	f, err := fleet.Open(fleet.Options{URL: rs.URL(), Host: name, Every: 200 * time.Millisecond,
		Phones: func(context.Context) ([]fleet.Phone, error) { return phones, nil }})
	require.NoError(t, err)
	f.Start()
	t.Cleanup(func() { f.Close() })
	return f
}

// TestTickClaimedOnceAndHeldPastTheRun: of two hosts only one claims a
// tick; the claim outlives the run (a lagging host firing the same tick
// later finds it taken); the run claim is freed at the end, so the next
// tick is free, and a run still going keeps another host from starting
// the job.
func TestTickClaimedOnceAndHeldPastTheRun(t *testing.T) {
	rs := redistest.Start(t)
	a, b := host(t, rs, "a"), host(t, rs, "b")
	ctx := context.Background()
	la, err := a.Lock(ctx, "job@1000", time.Minute)
	require.NoError(t, err)
	_, err = b.Lock(ctx, "job@1000", time.Minute)
	require.ErrorIs(t, err, cron.ErrTaken)
	assert.Contains(t, err.Error(), "taken by a", "the claim names its host")
	require.NoError(t, la.Unlock(ctx))
	_, err = b.Lock(ctx, "job@1000", time.Minute)
	require.ErrorIs(t, err, cron.ErrTaken, "the tick stays claimed after the run")
	lb, err := b.Lock(ctx, "job@2000", time.Minute)
	require.NoError(t, err, "the next tick is free once the run ended")
	_, err = a.Lock(ctx, "job@3000", time.Minute)
	require.ErrorIs(t, err, cron.ErrTaken, "a run still going blocks the job's next tick elsewhere")
	assert.Contains(t, err.Error(), "still running on b")
	require.NoError(t, lb.Unlock(ctx))
}

// TestManualClaimExcludesRunsElsewhere: a manual run's claim (cron run on
// one host) and a scheduled run of the same job (another host) never
// overlap, in either order; the claim is free again after the run.
func TestManualClaimExcludesRunsElsewhere(t *testing.T) {
	rs := redistest.Start(t)
	a, b := host(t, rs, "a"), host(t, rs, "b")
	ctx := context.Background()
	scheduled, err := a.Lock(ctx, "job@1000", time.Minute)
	require.NoError(t, err)
	_, err = b.Claim(ctx, "job")
	require.ErrorIs(t, err, cron.ErrOverlap, "a manual run while a scheduled one runs elsewhere")
	assert.Contains(t, err.Error(), "still running on a")
	require.NoError(t, scheduled.Unlock(ctx))

	manual, err := b.Claim(ctx, "job")
	require.NoError(t, err)
	_, err = a.Lock(ctx, "job@2000", time.Minute)
	require.ErrorIs(t, err, cron.ErrOverlap, "a tick while a manual run runs elsewhere")
	_, err = a.Claim(ctx, "job")
	require.ErrorIs(t, err, cron.ErrOverlap, "two manual runs on two hosts")
	time.Sleep(4 * time.Second) // past the claim's TTL: renewed while held
	_, err = a.Claim(ctx, "job")
	require.ErrorIs(t, err, cron.ErrOverlap, "the claim is renewed while the manual run lasts")
	require.NoError(t, manual.Unlock(ctx))
	again, err := a.Claim(ctx, "job")
	require.NoError(t, err, "free once the manual run ended")
	require.NoError(t, again.Unlock(ctx))
}

// TestPlacementByPhone: a job naming a phone (serial or fingerprint)
// belongs to the host that has it; a target type to a host with an idle
// phone of that type; a phone no host has is nowhere.
func TestPlacementByPhone(t *testing.T) {
	rs := redistest.Start(t)
	a := host(t, rs, "a", fleet.Phone{Serial: "emulator-5554", State: "device", Type: "emulator"})
	b := host(t, rs, "b", fleet.Phone{Serial: "R58M1234", State: "device", Type: "physical-phone"},
		fleet.Phone{Serial: "OFF1", State: "offline", Type: "emulator"})
	ctx := context.Background()
	where := func(f *fleet.Fleet, j cron.Job) cron.Placement {
		p, err := f.Place(ctx, j)
		require.NoError(t, err)
		return p
	}
	pinned := cron.Job{ID: "p", Device: "R58M1234"}
	assert.Equal(t, cron.Elsewhere, where(a, pinned).Where)
	assert.Contains(t, where(a, pinned).Reason, "on b")
	assert.Equal(t, cron.Here, where(b, pinned).Where)
	fp := cron.Job{ID: "fp", Device: "10.0.0.7:5555/R58M1234"}
	assert.Equal(t, cron.Here, where(b, fp).Where, "a fingerprint's serialno names the phone")
	lost := cron.Job{ID: "l", Device: "OFF1"}
	assert.Equal(t, cron.Nowhere, where(a, lost).Where, "an offline phone is nowhere")
	assert.Equal(t, cron.Nowhere, where(b, lost).Where)
	emu := cron.Job{ID: "e", Target: &cron.JobTarget{Type: "emulator"}}
	pa := where(a, emu)
	assert.Equal(t, cron.Here, pa.Where)
	assert.Equal(t, "emulator-5554", pa.Device, "the host chooses its idle phone of the type")
	assert.Equal(t, cron.Elsewhere, where(b, emu).Where)
	tv := cron.Job{ID: "tv", Target: &cron.JobTarget{Type: "android-tv"}}
	assert.Equal(t, cron.Nowhere, where(a, tv).Where)
	assert.Equal(t, cron.Here, where(a, cron.Job{ID: "any"}).Where)
}

// TestRedisAwayIsAnErrorNotAClaim: with Redis stopped, placing and
// claiming fail (the run pauses) without claiming; presence says so; and
// both work again once Redis is back.
func TestRedisAwayIsAnErrorNotAClaim(t *testing.T) {
	rs := redistest.Start(t)
	a := host(t, rs, "a", fleet.Phone{Serial: "s1", State: "device"})
	ctx := context.Background()
	rs.Stop()
	_, err := a.Place(ctx, cron.Job{ID: "j"})
	require.Error(t, err)
	_, err = a.Lock(ctx, "j@1", time.Minute)
	require.Error(t, err)
	assert.False(t, errors.Is(err, cron.ErrTaken), "an outage is not another host's claim")
	require.Eventually(t, func() bool { ok, _ := a.Reachable(); return !ok }, 5*time.Second, 50*time.Millisecond)
	rs.Restart()
	require.Eventually(t, func() bool { ok, _ := a.Reachable(); return ok }, 5*time.Second, 50*time.Millisecond)
	_, err = a.Lock(ctx, "j@1", time.Minute)
	require.NoError(t, err)
}

// TestPasswordNeverShown: the Redis URL's password is not in errors.
func TestPasswordNeverShown(t *testing.T) {
	_, err := fleet.Open(fleet.Options{URL: "redis://user:s3cret@127.0.0.1:1/zero"})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "s3cret")
	assert.Contains(t, err.Error(), "fleet.redisUrl")
	f, err := fleet.Open(fleet.Options{URL: "redis://user:s3cret@127.0.0.1:1/0", Host: "x"})
	require.NoError(t, err)
	defer f.Close()
	err = f.Ping(context.Background())
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "s3cret")
	assert.NotContains(t, f.URL(), "s3cret")
	assert.Contains(t, f.URL(), "127.0.0.1:1")
}
