package run_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/executor/execset"
	"github.com/openpocket/openpocket/internal/lease"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/stdlib/executors"
)

// leases is a Config.Lease over the real lease files that counts.
type leases struct {
	mu       sync.Mutex
	taken    int
	released int
}

func (l *leases) lease(ctx context.Context, serial string) (func(), error) {
	h, err := lease.Acquire(ctx, serial, lease.Options{Command: "run test"})
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.taken++
	l.mu.Unlock()
	return func() {
		_ = h.Release()
		l.mu.Lock()
		l.released++
		l.mu.Unlock()
	}, nil
}

func (l *leases) counts() (taken, released int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.taken, l.released
}

// leaseHeld reports whether someone holds serial's lease (by trying it).
func leaseHeld(t *testing.T, serial string) bool {
	t.Helper()
	l, err := lease.Acquire(t.Context(), serial, lease.Options{})
	if err != nil {
		require.ErrorIs(t, err, lease.ErrBusy)
		return true
	}
	require.NoError(t, l.Release())
	return false
}

// leasedService is newService with a Lease, and the phone's serial.
func leasedService(t *testing.T, cfg run.Config) (*run.Service, string) {
	t.Helper()
	serial := ""
	open := func(ctx context.Context, target string) (engine.Device, func(), error) {
		if target == "" {
			target = serial
		}
		d, err := adb.NewClient("127.0.0.1:5037").Open(ctx, adb.Target{Serial: target})
		return d, nil, err
	}
	serial = phone.Take(t).Serial()
	cfg.OpenDevice = open
	cfg.StateDir = t.TempDir()
	return run.New(cfg), serial
}

const touchPhone = `assert(device.shell("echo hi"))`

func TestRunHoldsItsDeviceLeaseForItsRunOnly(t *testing.T) {
	t.Setenv(lease.DirEnv, t.TempDir())
	var l leases
	svc, serial := leasedService(t, run.Config{Lease: l.lease})
	var during bool
	probe := func(ev run.Event) {
		if ev.Kind == "probe" {
			during = leaseHeld(t, serial)
		}
	}
	_, err := svc.Script(t.Context(), run.ScriptOptions{Name: "a.lua", Source: []byte(touchPhone + "\nevents.emit(\"probe\", {})\nerror(\"boom\")"), Events: probe})
	require.Error(t, err)
	assert.True(t, during, "the run holds its device's lease while it runs")
	taken, released := l.counts()
	assert.Equal(t, 1, taken)
	assert.Equal(t, 1, released, "a failed run releases its lease too")
	assert.False(t, leaseHeld(t, serial))

	_, err = svc.Script(t.Context(), run.ScriptOptions{Name: "b.lua", Source: []byte(touchPhone)})
	require.NoError(t, err)
	_, err = svc.Script(t.Context(), run.ScriptOptions{Name: "c.lua", Source: []byte("return 1")})
	require.NoError(t, err)
	taken, released = l.counts()
	assert.Equal(t, 2, taken, "each run takes its own lease; a script that never touches the phone takes none")
	assert.Equal(t, 2, released)
}

func TestHoldLeasesKeepsTheLeaseUntilClose(t *testing.T) {
	t.Setenv(lease.DirEnv, t.TempDir())
	var l leases
	svc, serial := leasedService(t, run.Config{Lease: l.lease, HoldLeases: true})
	for range 2 {
		_, err := svc.Script(t.Context(), run.ScriptOptions{Name: "a.lua", Source: []byte(touchPhone)})
		require.NoError(t, err)
	}
	taken, released := l.counts()
	assert.Equal(t, 1, taken, "the command takes its device's lease once")
	assert.Equal(t, 0, released)
	assert.True(t, leaseHeld(t, serial), "held between runs")
	svc.Close()
	_, released = l.counts()
	assert.Equal(t, 1, released)
	assert.False(t, leaseHeld(t, serial))
}

func TestClaimRefusesABusyDeviceBeforeTheRun(t *testing.T) {
	t.Setenv(lease.DirEnv, t.TempDir())
	var l leases
	svc, serial := leasedService(t, run.Config{Lease: l.lease})

	other, err := lease.Acquire(t.Context(), serial, lease.Options{Command: "openpocket agent"})
	require.NoError(t, err)
	_, err = svc.Claim(t.Context(), run.Target{})
	require.ErrorIs(t, err, lease.ErrBusy)
	assert.Contains(t, err.Error(), "(openpocket agent)")
	require.NoError(t, other.Release())

	c, err := svc.Claim(t.Context(), run.Target{})
	require.NoError(t, err)
	assert.Equal(t, serial, c.Serial())
	assert.True(t, leaseHeld(t, serial), "claimed before the run starts")
	var startHeld bool
	_, err = svc.Script(t.Context(), run.ScriptOptions{Target: c.Target(), Name: "a.lua", Source: []byte("return 1"),
		Events: func(ev run.Event) {
			if ev.Kind == run.KindRunStart {
				startHeld = leaseHeld(t, serial)
			}
		}})
	require.NoError(t, err)
	assert.True(t, startHeld, "the run holds the claimed lease even without touching the phone")
	assert.False(t, leaseHeld(t, serial), "released when the run ended")
	c.Release() // safe after the run
	taken, released := l.counts()
	assert.Equal(t, 1, taken)
	assert.Equal(t, 1, released)

	// A claim no run adopted is given back by Release.
	c, err = svc.Claim(t.Context(), run.Target{Device: serial})
	require.NoError(t, err)
	c.Release()
	assert.False(t, leaseHeld(t, serial))
}

func TestNewExecutorsGivesEachRunItsOwn(t *testing.T) {
	ws := t.TempDir()
	var mu sync.Mutex
	made, closed := 0, 0
	svc := run.New(run.Config{NewExecutors: func() (executors.Set, func()) {
		mu.Lock()
		made++
		mu.Unlock()
		return execset.New(ws, execset.Config{}), func() { mu.Lock(); closed++; mu.Unlock() }
	}})
	src := []byte(`assert(memory ~= nil and exec ~= nil, "the run has the executor modules")`)
	for range 2 {
		_, err := svc.Script(t.Context(), run.ScriptOptions{Name: "x.lua", Source: src})
		require.NoError(t, err)
	}
	_, err := svc.Script(t.Context(), run.ScriptOptions{Name: "boom.lua", Source: []byte("error('boom')")})
	require.Error(t, err)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 3, made, "one set per run")
	assert.Equal(t, 3, closed, "each closed when its run ended, failed or not")
}

// TestPhoneIsKeptLeasesAreNot: direct use (Phone, Snapshot) gets the same
// phone on every call, so a static screen's second look is served from
// its caches, while the lease is taken per call and free in between.
func TestPhoneIsKeptLeasesAreNot(t *testing.T) {
	t.Setenv(lease.DirEnv, t.TempDir())
	var l leases
	svc, serial := leasedService(t, run.Config{Lease: l.lease})
	ctx := t.Context()
	first, release, err := svc.Phone(ctx, run.Target{}, 0)
	require.NoError(t, err)
	assert.True(t, leaseHeld(t, serial), "a call holds the lease")
	release()
	assert.False(t, leaseHeld(t, serial), "no lease between calls")

	_, err = svc.Snapshot(ctx, run.SnapshotOptions{Capture: device.CaptureOptions{NoCache: true}})
	require.NoError(t, err)
	snap, err := svc.Snapshot(ctx, run.SnapshotOptions{})
	require.NoError(t, err)
	assert.Equal(t, screen.SourceCache, snap.CaptureMetrics.UIElementsSource, "the second look reuses the kept phone's element list")

	again, release, err := svc.Phone(ctx, run.Target{}, 0)
	require.NoError(t, err)
	release()
	assert.Same(t, first, again)
	other, release, err := svc.Phone(ctx, run.Target{}, 900)
	require.NoError(t, err)
	release()
	assert.NotSame(t, first, other, "another element budget is another phone")
	taken, released := l.counts()
	assert.Equal(t, 5, taken)
	assert.Equal(t, 5, released)

	svc.Close()
	after, release, err := svc.Phone(ctx, run.Target{}, 0)
	require.NoError(t, err)
	release()
	assert.NotSame(t, first, after, "Close forgets the kept phones")
	svc.Close()
}
