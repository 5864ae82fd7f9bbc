package main_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// heapChildEnv marks the process of its own the capture loop's test
// runs in.
const heapChildEnv = "OPENPOCKET_HEAP_TEST_CHILD"

// memoryLimit is cmd/openpocket's defaultMemoryLimit (memlimit.go; a
// main package cannot be imported).
const memoryLimit = 40 << 20

// heapRun is what a long-running front end's captures did to this
// process's memory (runtime/metrics): the live heap after the first
// collections past warm-up and at the end, and the most memory the
// runtime held (what the soft limit governs) after warm-up.
type heapRun struct {
	liveAfterWarmUp, liveEnd, liveMaxFirst, liveMaxSecond, heldMax uint64
	// liveMedFirst and liveMedSecond are the medians of each half's
	// samples: one collection that caught two frames alive (a loaded
	// machine delays the collector) moves a maximum, not a median; a
	// leak moves both.
	liveMedFirst, liveMedSecond uint64
}

// median of samples (0 for none).
func median(samples []uint64) uint64 {
	if len(samples) == 0 {
		return 0
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	return s[len(s)/2]
}

// captureLoop takes n full snapshots (scaled image, set-of-mark overlay,
// the full-size PNG prepared, as the agent takes them) on one phone kept
// for the whole loop, the screen changing before each, under the default
// memory limit; the virtual phone runs as a process of its own, so this
// process's heap holds only the capturing side.
func captureLoop(tb testing.TB, n int) heapRun {
	simtest.RequireADB(tb)
	cmd := exec.Command(binary, "--home", tb.TempDir(), "sim")
	out, err := cmd.StdoutPipe()
	require.NoError(tb, err)
	require.NoError(tb, cmd.Start())
	tb.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	serial, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(tb, err)
	ctx := context.Background()
	d, err := adb.NewClient("").Open(ctx, adb.Target{Serial: strings.TrimSpace(serial)})
	require.NoError(tb, err)
	p := device.NewPhone(d, device.Options{})
	_, err = p.LaunchApp(ctx, "com.android.settings")
	require.NoError(tb, err)

	defer debug.SetMemoryLimit(debug.SetMemoryLimit(memoryLimit))
	samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	const warmUp = 10
	var r heapRun
	var first, second []uint64
	for i := range n {
		_, err := d.Shell(ctx, "settings put global wifi_on "+[]string{"0", "1"}[i%2])
		require.NoError(tb, err)
		snap, err := p.Capture(ctx, device.CaptureOptions{Scaled: true, SOM: true, FullPNG: true})
		require.NoError(tb, err)
		_, err = snap.FullPNG() // a step screenshot saved
		require.NoError(tb, err)
		metrics.Read(samples)
		live, held := samples[0].Value.Uint64(), samples[1].Value.Uint64()-samples[2].Value.Uint64()
		switch {
		case i < warmUp:
			continue
		case i == warmUp:
			r.liveAfterWarmUp = live
		case i < warmUp+(n-warmUp)/2:
			r.liveMaxFirst = max(r.liveMaxFirst, live)
			first = append(first, live)
		default:
			r.liveMaxSecond = max(r.liveMaxSecond, live)
			second = append(second, live)
		}
		r.heldMax, r.liveEnd = max(r.heldMax, held), live
	}
	r.liveMedFirst, r.liveMedSecond = median(first), median(second)
	return r
}

// TestLongRunningCapturesStayWithinTheMemoryLimit: a front end that keeps
// its phone and captures a changing screen again and again (a gateway's
// every-second job, an MCP client polling) holds no more memory than the
// soft limit allows, and its live heap does not grow once warm: the
// frames of one capture are garbage by the next.
func TestLongRunningCapturesStayWithinTheMemoryLimit(t *testing.T) {
	if os.Getenv(heapChildEnv) == "" {
		// The memory the runtime holds is the whole process's, and the
		// tests before this one in the package leave theirs behind (a
		// full run measured 49 MiB where this loop alone holds 39): the
		// loop runs in a process of its own, this test binary again.
		cmd := exec.Command(os.Args[0], "-test.run=^TestLongRunningCapturesStayWithinTheMemoryLimit$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), heapChildEnv+"=1")
		out, err := cmd.CombinedOutput()
		t.Logf("capture loop in a process of its own:\n%s", out)
		require.NoError(t, err, "the capture loop's own process failed")
		return
	}
	r := captureLoop(t, 60)
	t.Logf("live heap after warm-up %d MiB, first half median %d max %d MiB, second half median %d max %d MiB, end %d MiB; runtime memory max %d MiB (limit %d MiB)",
		r.liveAfterWarmUp>>20, r.liveMedFirst>>20, r.liveMaxFirst>>20, r.liveMedSecond>>20, r.liveMaxSecond>>20, r.liveEnd>>20, r.heldMax>>20, memoryLimit>>20)
	// The limit is soft: the runtime overshoots it while the background
	// collector lags the allocations, which a loaded machine makes worse
	// (39 MiB alone, 44 MiB in CI with two packages' tests on two cores).
	// A quarter over is still "held near the limit"; the leak check is
	// the flat live heap below.
	assert.LessOrEqual(t, r.heldMax, uint64(memoryLimit)*5/4, "the runtime's memory stays near the soft limit (25%% over at most)")
	// Flat: the second half holds no more live than the first half did,
	// give or take part of a frame. Medians: a full run measured one
	// sample of 36 MiB among 21s (a collection that caught two frames
	// alive while two packages' tests and more ran), which a leak check
	// must not mistake for growth; a frame leaked per capture (10 MiB a
	// time) doubles the median within the loop.
	assert.LessOrEqual(t, r.liveMedSecond, r.liveMedFirst+4<<20, "the live heap grows after warm-up")
}

// BenchmarkLongRunningCaptureHeap is the ten-minute figure in less: 600
// snapshots of a changing screen — a gateway's every-second job for ten
// minutes — taken back to back on one phone. Reported: the live heap
// after warm-up and at the end, and the most memory the runtime held.
func BenchmarkLongRunningCaptureHeap(b *testing.B) {
	var r heapRun
	for range b.N {
		r = captureLoop(b, 600)
	}
	b.ReportMetric(float64(r.liveAfterWarmUp)/(1<<20), "live-warm-MiB")
	b.ReportMetric(float64(r.liveEnd)/(1<<20), "live-end-MiB")
	b.ReportMetric(float64(max(r.liveMaxFirst, r.liveMaxSecond))/(1<<20), "live-max-MiB")
	b.ReportMetric(float64(r.heldMax)/(1<<20), "runtime-max-MiB")
}
