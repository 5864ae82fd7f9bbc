package adb_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/sim"
)

// stressEnv makes the test binary one stress worker process (see
// TestMain); its value is the duration to run.
const stressEnv = "OPENPOCKET_TEST_STRESS_WORKER"

// stressServerEnv passes the adb server address to the workers.
const stressServerEnv = "OPENPOCKET_TEST_STRESS_SERVER"

// stressDurationEnv sets how long each stress worker cycles (default 20s,
// so `make test` stays bounded; set e.g. 60s for a longer soak).
const stressDurationEnv = "OPENPOCKET_STRESS_DURATION"

func TestMain(m *testing.M) {
	if v := os.Getenv(stressEnv); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bad", stressEnv, v)
			os.Exit(2)
		}
		// Interrupted (make soak stops it when its runs are done), it
		// still reports what it did.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		json.NewEncoder(os.Stdout).Encode(stressWorker(ctx, os.Getenv(stressServerEnv), d))
		stop()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func stressDuration() time.Duration {
	if d, err := time.ParseDuration(os.Getenv(stressDurationEnv)); err == nil && d > 0 {
		return d
	}
	return 20 * time.Second
}

// stressResult is one worker's report.
type stressResult struct {
	Cycles        int      `json:"cycles"`
	Gone          int      `json:"gone"` // phones that vanished without a detach
	SlowestGoneMs int64    `json:"slowestGoneMs"`
	Losses        []string `json:"losses,omitempty"` // calls that failed on a live phone
	// ServerAborts counts cycles cut short because the adb server itself
	// died (see TestAttachDetachStress); their failures are not losses.
	ServerAborts int    `json:"serverAborts"`
	Err          string `json:"err,omitempty"` // the worker could not go on
}

// runStressWorker runs one worker process and decodes its report.
func runStressWorker(server string, d time.Duration) stressResult {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), stressEnv+"="+d.String(), stressServerEnv+"="+server)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var r stressResult
	if jerr := json.Unmarshal(out, &r); err != nil || jerr != nil {
		return stressResult{Err: fmt.Sprintf("process failed: %v %v: %s %s", err, jerr, out, stderr.String())}
	}
	return r
}

// stressWorker attaches, uses and detaches phones until d has passed.
// Every third phone is not detached but vanishes (its adbd stops while the
// adb server still holds its transport); the next call must say so.
func stressWorker(ctx context.Context, server string, d time.Duration) stressResult {
	var r stressResult
	client := adb.NewClient(server)
	deadline := time.Now().Add(d)
	watch, err := watchServer(server)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	for cycle := 0; time.Now().Before(deadline) && ctx.Err() == nil; cycle++ {
		vanish := cycle%vanishEvery == vanishEvery-1
		losses, err := stressCycle(client, vanish, &r)
		if (err != nil || len(losses) > 0) && watch.diedSoon() {
			// The adb server aborted under us: everything failed, nothing
			// of ours. Start it again and go on.
			r.ServerAborts++
			if watch, err = restartServer(server); err != nil {
				r.Err = fmt.Sprintf("cycle %d: after the adb server aborted: %v", cycle, err)
				return r
			}
			continue
		}
		r.Losses = append(r.Losses, losses...)
		if err != nil {
			r.Err = fmt.Sprintf("cycle %d: %v", cycle, err)
			return r
		}
		r.Cycles++
		// A breath between cycles keeps the churn under the rate at which
		// adb 29's server aborts most often (see TestAttachDetachStress).
		select {
		case <-time.After(cyclePause):
		case <-ctx.Done():
		}
	}
	return r
}

// serverWatch holds a host:track-devices stream open: the adb server
// keeps it until it exits, so its end tells that the server died.
type serverWatch struct{ died chan struct{} }

func watchServer(server string) (*serverWatch, error) {
	nc, err := net.DialTimeout("tcp", server, 5*time.Second)
	if err != nil {
		return nil, err
	}
	req := "host:track-devices"
	var status [4]byte
	if _, err := fmt.Fprintf(nc, "%04x%s", len(req), req); err != nil {
		return nil, err
	}
	if _, err := io.ReadFull(nc, status[:]); err != nil || string(status[:]) != "OKAY" {
		return nil, fmt.Errorf("track-devices: %q %v", status, err)
	}
	w := &serverWatch{died: make(chan struct{})}
	go func() {
		io.Copy(io.Discard, nc)
		close(w.died)
	}()
	return w, nil
}

// diedSoon reports whether the server is gone or goes within a moment
// (a failed call may precede the stream's end by a few milliseconds).
func (w *serverWatch) diedSoon() bool {
	select {
	case <-w.died:
		return true
	case <-time.After(500 * time.Millisecond):
		return false
	}
}

func restartServer(server string) (*serverWatch, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := sim.EnsureADBServer(ctx, server); err != nil {
		return nil, err
	}
	return watchServer(server)
}

// cyclePause spaces a worker's cycles.
var cyclePause = envDuration("OPENPOCKET_STRESS_PAUSE", 200*time.Millisecond)

// vanishEvery: every n-th cycle the phone vanishes instead of detaching.
var vanishEvery = envInt("OPENPOCKET_STRESS_VANISH_EVERY", 3)

func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil {
		return d
	}
	return def
}

func envInt(name string, def int) int {
	var n int
	if _, err := fmt.Sscan(os.Getenv(name), &n); err == nil && n > 0 {
		return n
	}
	return def
}

// stressCycle runs one attach/use/detach cycle. It returns the failed
// calls on the live phone, and an error when the cycle could not go on.
func stressCycle(client *adb.Client, vanish bool, r *stressResult) (losses []string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := sim.Start(ctx, sim.Options{Attach: !vanish, ADBServer: client.Addr()})
	if err != nil {
		return nil, fmt.Errorf("start phone: %w", err)
	}
	defer s.Close()
	serial := s.Serial()
	if vanish {
		// Attached by hand, so Close leaves the adb server's transport.
		if err := client.Connect(ctx, serial); err != nil {
			return nil, err
		}
		if err := waitListed(ctx, client, serial); err != nil {
			return nil, err
		}
	}
	loss := func(what string, err error) {
		losses = append(losses, fmt.Sprintf("%s %s: %v", serial, what, err))
	}
	dev, err := client.Open(ctx, adb.Target{Serial: serial})
	if err != nil {
		loss("open", err)
		return losses, nil
	}
	for k := range 3 {
		res, err := dev.Shell(ctx, fmt.Sprintf("echo ping-%d", k))
		if err != nil || strings.TrimSpace(string(res.Stdout)) != fmt.Sprintf("ping-%d", k) {
			loss("shell", fmt.Errorf("%v (stdout %q)", err, res.Stdout))
		}
	}
	if state, err := listedState(ctx, client, serial); err != nil || state != "device" {
		loss("devices", fmt.Errorf("state %q, err %v", state, err))
	}
	if !vanish {
		if err := s.Close(); err != nil {
			return losses, err
		}
		// Gone, or (when another worker's vanished phone left the adb
		// server reconnecting to this port) offline: never usable.
		if _, err := client.Open(ctx, adb.Target{Serial: serial}); !errors.Is(err, adb.ErrDeviceNotFound) && !errors.Is(err, adb.ErrOffline) {
			return losses, fmt.Errorf("a detached phone is still usable or misreported: %v", err)
		}
		return losses, nil
	}
	s.Close()
	start := time.Now()
	_, err = dev.Shell(ctx, "echo still-there")
	took := time.Since(start)
	if err == nil {
		return losses, fmt.Errorf("a vanished phone still answered")
	}
	if !errors.Is(err, device.ErrDeviceLost) && !errors.Is(err, adb.ErrOffline) && !errors.Is(err, adb.ErrDeviceNotFound) {
		return losses, fmt.Errorf("a vanished phone was reported as %v, want a device-lost error", err)
	}
	r.Gone++
	r.SlowestGoneMs = max(r.SlowestGoneMs, took.Milliseconds())
	_ = client.Disconnect(ctx, serial)
	return losses, nil
}

func listedState(ctx context.Context, client *adb.Client, serial string) (string, error) {
	devs, err := client.Devices(ctx)
	if err != nil {
		return "", err
	}
	for _, d := range devs {
		if d.Serial == serial {
			return d.State, nil
		}
	}
	return "", nil
}

// waitListed waits until the adb server reports serial online after a
// connect (its handshake takes a moment).
func waitListed(ctx context.Context, client *adb.Client, serial string) error {
	for {
		state, err := listedState(ctx, client, serial)
		if err == nil && state == "device" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s never came online after connect (state %q, err %v)", serial, state, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
