package cron

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
)

func TestHeartbeatLinesAndStuckWarningOnce(t *testing.T) {
	start := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	clk := clockwork.NewFakeClockAt(start)
	path := filepath.Join(t.TempDir(), "state", "heartbeat.log")
	var mu sync.Mutex
	status := HeartbeatStatus{Device: "emu-1"}
	var logs bytes.Buffer
	var logMu sync.Mutex
	stuck := 0
	hb := NewHeartbeat(path, func() HeartbeatStatus {
		mu.Lock()
		defer mu.Unlock()
		return status
	}, HeartbeatOptions{Every: 30 * time.Second, StuckWarn: 60 * time.Second, Clock: clk,
		Logger:  slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logs}, nil)),
		OnStuck: func(HeartbeatStatus, time.Duration) { stuck++ }})

	if err := hb.Beat(); err != nil { // idle
		t.Fatal(err)
	}
	mu.Lock()
	status = HeartbeatStatus{Busy: true, CurrentTask: "Open settings", TaskStartedAt: start, Device: "emu-1"}
	mu.Unlock()
	for _, d := range []time.Duration{30, 70, 100} {
		clk.Advance(d*time.Second - clk.Since(start))
		if err := hb.Beat(); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"at":"2026-05-01T08:00:00.000Z","busy":false,"currentTask":"","taskRuntimeSec":0,"device":"emu-1","ts":1777622400000,"task":null,"runtimeSec":null,"devices":0,"bootedDevices":0}
{"at":"2026-05-01T08:00:30.000Z","busy":true,"currentTask":"Open settings","taskRuntimeSec":30,"device":"emu-1","ts":1777622430000,"task":"Open settings","runtimeSec":30,"devices":0,"bootedDevices":0}
{"at":"2026-05-01T08:01:10.000Z","busy":true,"currentTask":"Open settings","taskRuntimeSec":70,"device":"emu-1","ts":1777622470000,"task":"Open settings","runtimeSec":70,"devices":0,"bootedDevices":0}
{"at":"2026-05-01T08:01:40.000Z","busy":true,"currentTask":"Open settings","taskRuntimeSec":100,"device":"emu-1","ts":1777622500000,"task":"Open settings","runtimeSec":100,"devices":0,"bootedDevices":0}
`
	if string(data) != want {
		t.Fatalf("heartbeat.log:\n%s\nwant:\n%s", data, want)
	}
	logMu.Lock()
	warnings := strings.Count(logs.String(), "task is taking long")
	logMu.Unlock()
	if stuck != 1 || warnings != 1 {
		t.Fatalf("stuck warnings: callback %d, log %d; want 1 each", stuck, warnings)
	}
}

func TestHeartbeatRunTicks(t *testing.T) {
	clk := clockwork.NewFakeClockAt(time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC))
	path := filepath.Join(t.TempDir(), "heartbeat.log")
	hb := NewHeartbeat(path, func() HeartbeatStatus { return HeartbeatStatus{} }, HeartbeatOptions{Every: 30 * time.Second, Clock: clk})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- hb.Run(ctx) }()
	deadline := time.Now().Add(waitLimit)
	for lines := 0; lines < 2; {
		if time.Now().After(deadline) {
			t.Fatalf("heartbeat wrote %d lines", lines)
		}
		if err := clk.BlockUntilContext(ctx, 1); err != nil {
			t.Fatal(err)
		}
		clk.Advance(30 * time.Second)
		time.Sleep(5 * time.Millisecond)
		data, _ := os.ReadFile(path)
		lines = strings.Count(string(data), "\n")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	var line HeartbeatLine
	if err := json.Unmarshal(bytes.SplitN(data, []byte("\n"), 2)[0], &line); err != nil || line.Busy {
		t.Fatalf("line = %+v, %v", line, err)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func TestGatewayLock(t *testing.T) {
	state := t.TempDir()
	release, err := AcquireGatewayLock(state)
	if err != nil {
		t.Fatal(err)
	}
	var l GatewayLock
	data, _ := os.ReadFile(GatewayLockPath(state))
	if err := json.Unmarshal(data, &l); err != nil || l.PID != os.Getpid() || l.StartedAt == "" || l.Host == "" {
		t.Fatalf("lock file = %s (%v)", data, err)
	}
	if _, err := AcquireGatewayLock(state); err == nil || !strings.Contains(err.Error(), "gateway already running (pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second acquire: %v", err)
	}
	release()
	if _, err := os.Stat(GatewayLockPath(state)); !os.IsNotExist(err) {
		t.Fatalf("release left the lock: %v", err)
	}

	// A lock from a process that has exited is stale and taken over.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	stale, _ := json.Marshal(GatewayLock{PID: cmd.Process.Pid, StartedAt: "2020-01-01T00:00:00.000Z", Host: host})
	writeFile(t, GatewayLockPath(state), string(stale))
	release, err = AcquireGatewayLock(state)
	if err != nil {
		t.Fatalf("stale lock not taken over: %v", err)
	}
	defer release()
	data, _ = os.ReadFile(GatewayLockPath(state))
	if err := json.Unmarshal(data, &l); err != nil || l.PID != os.Getpid() {
		t.Fatalf("lock after takeover = %s", data)
	}
}

// Upstream's heartbeat-runner writes {ts, busy, task, runtimeSec, devices,
// bootedDevices}; our line carries those fields beside its own.
func TestHeartbeatLineCarriesUpstreamsFields(t *testing.T) {
	clk := clockwork.NewFakeClockAt(time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC))
	path := filepath.Join(t.TempDir(), "heartbeat.log")
	hb := NewHeartbeat(path, func() HeartbeatStatus {
		return HeartbeatStatus{Busy: true, CurrentTask: "t", TaskStartedAt: clk.Now().Add(-5 * time.Second)}
	}, HeartbeatOptions{Clock: clk, Devices: func() (int, int, error) { return 3, 2, nil }})
	if err := hb.Beat(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var line map[string]any
	if err := json.Unmarshal(data, &line); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"ts": 1777622400000.0, "busy": true, "task": "t", "runtimeSec": 5.0, "devices": 3.0, "bootedDevices": 2.0} {
		if line[k] != want {
			t.Errorf("%s = %v, want %v", k, line[k], want)
		}
	}
}
