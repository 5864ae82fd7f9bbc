package cli

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/gateway"
	"github.com/openpocket/openpocket/internal/lease"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// appendScript appends its tag to /sdcard/drivers.log n times, pausing
// between writes, so two drivers running at once would interleave.
func appendScript(t *testing.T, tag string, n int) string {
	return writeScript(t, fmt.Sprintf(`for i = 1, %d do
  assert(device.shell("echo %s >> /sdcard/drivers.log"))
  wait.ms(40)
end
`, n, tag))
}

// runDriver runs script as one command would (Main's cleanups included,
// which release the device lease).
func runDriver(t *testing.T, serial, script string, wait time.Duration) error {
	app, _, stderr := luaApp(t, t.Context(), serial)
	app.command, app.WaitDevice = "openpocket run", wait
	defer app.runCleanups()
	err := (&RunCmd{Script: script}).Run(runDeps(t, app))
	if err != nil {
		return fmt.Errorf("%w (stderr: %s)", err, stderr.String())
	}
	return nil
}

// TestTwoDriversOnOnePhoneNeverInterleave: two commands driving one phone
// at once, both willing to wait, run one after the other.
func TestTwoDriversOnOnePhoneNeverInterleave(t *testing.T) {
	t.Setenv(lease.DirEnv, t.TempDir())
	s := simtest.Start(t)
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for _, tag := range []string{"A", "B"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- runDriver(t, s.Serial(), appendScript(t, tag, 6), time.Minute)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	log, err := s.Phone().Files().ReadFile("/sdcard/drivers.log")
	require.NoError(t, err)
	got := strings.ReplaceAll(string(log), "\n", "")
	assert.Contains(t, []string{"AAAAAABBBBBB", "BBBBBBAAAAAA"}, got, "the two runs interleaved")
}

// TestSecondDriverIsRefusedNamingTheHolder: without --wait-device a second
// command on a busy phone fails at once with exit 3, naming the holder.
func TestSecondDriverIsRefusedNamingTheHolder(t *testing.T) {
	t.Setenv(lease.DirEnv, t.TempDir())
	s := simtest.Start(t)
	first := make(chan error, 1)
	go func() { first <- runDriver(t, s.Serial(), appendScript(t, "A", 40), 0) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		h, err := lease.ReadHolder("", s.Serial())
		if err == nil && h.PID == os.Getpid() {
			break
		}
		require.True(t, time.Now().Before(deadline), "the first run never took the lease")
		time.Sleep(10 * time.Millisecond)
	}
	// A script sees the refusal as its device call's error.
	err := runDriver(t, s.Serial(), appendScript(t, "B", 1), 0)
	require.Error(t, err)
	holder := fmt.Sprintf("device %s is in use by pid %d (openpocket run) since", s.Serial(), os.Getpid())
	assert.Contains(t, err.Error(), holder)

	// A command that opens the device itself fails with exit 3.
	app, _, _ := luaApp(t, t.Context(), s.Serial())
	app.command = "openpocket act"
	err = (&ActCmd{Action: `{"type":"shell","command":"echo B >> /sdcard/drivers.log"}`}).Run(app.Ctx, Streams{Stdout: app.Stdout, Stderr: app.Stderr}, app.devices())
	app.runCleanups()
	require.Error(t, err)
	assert.Equal(t, ExitDevice, ExitCode(err))
	assert.Contains(t, err.Error(), holder)
	assert.Contains(t, err.Error(), "wait for it with --wait-device DURATION")
	select {
	case e := <-first:
		t.Fatalf("the first run ended before the checks: %v", e)
	default:
	}
	require.NoError(t, <-first)
	log, err := s.Phone().Files().ReadFile("/sdcard/drivers.log")
	require.NoError(t, err)
	assert.NotContains(t, string(log), "B", "the refused run touched the phone")
}

// TestGatewayJobHoldsTheLeaseForItsRun: a scheduled job's run takes its
// device's lease when it opens the device and gives it back when the run
// ends, so a job and a manual command never drive one phone together.
func TestGatewayJobHoldsTheLeaseForItsRun(t *testing.T) {
	t.Setenv(lease.DirEnv, t.TempDir())
	s := simtest.Start(t)
	app, _, _ := luaApp(t, t.Context(), "")
	app.command = "openpocket gateway"
	h, err := app.home()
	require.NoError(t, err)
	cfg, err := app.config()
	require.NoError(t, err)
	svc, closeSvc := app.services().gatewayServices(h)(cfg)
	defer closeSvc()
	claim, err := svc.Claim(t.Context(), run.Target{Device: s.Serial()})
	require.NoError(t, err)

	_, err = lease.Acquire(t.Context(), s.Serial(), lease.Options{})
	var busy *lease.BusyError
	require.ErrorAs(t, err, &busy, "the job's run holds the lease")
	assert.Equal(t, "openpocket gateway", busy.Holder.Command)

	claim.Release()
	l, err := lease.Acquire(t.Context(), s.Serial(), lease.Options{})
	require.NoError(t, err, "the lease is free once the run ended")
	require.NoError(t, l.Release())
}

// TestJobOnADeviceInUseIsBusyNotFailed: a scheduled run whose device
// another process drives does not start; it reports cron.ErrBusy naming
// the holder, so the scheduler skips it and retries a one-shot job.
func TestJobOnADeviceInUseIsBusyNotFailed(t *testing.T) {
	t.Setenv(lease.DirEnv, t.TempDir())
	s := simtest.Start(t)
	held, err := lease.Acquire(t.Context(), s.Serial(), lease.Options{Command: "openpocket agent"})
	require.NoError(t, err)
	defer held.Release()

	app, _, _ := luaApp(t, t.Context(), "")
	script := appendScript(t, "J", 1)
	svc, err := app.runService()
	require.NoError(t, err)
	// The job runner cmd/openpocket assembles (JobRunners) over this
	// command's service, as `cron run` builds it.
	runner := gateway.NewJobRunner(gateway.JobRunnerOptions{Service: svc})
	_, _, err = runner.Run(t.Context(), cron.Job{ID: "j1", Device: s.Serial(), Payload: cron.Payload{Kind: cron.PayloadLua, Path: script}})
	require.ErrorIs(t, err, cron.ErrBusy)
	assert.Contains(t, err.Error(), "(openpocket agent)")
	_, err = s.Phone().Files().ReadFile("/sdcard/drivers.log")
	assert.Error(t, err, "the job touched the busy phone")

	require.NoError(t, held.Release())
	ok, msg, err := runner.Run(t.Context(), cron.Job{ID: "j1", Device: s.Serial(), Payload: cron.Payload{Kind: cron.PayloadLua, Path: script}})
	require.NoError(t, err)
	assert.True(t, ok, msg)
}
