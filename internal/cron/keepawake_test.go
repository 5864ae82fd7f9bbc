package cron

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
)

// While a task runs, every beat asks the gateway to keep that task's device
// awake; idle beats do not touch the device, and a failure is not fatal.
func TestHeartbeatKeepsBusyDeviceAwake(t *testing.T) {
	clk := clockwork.NewFakeClock()
	status := HeartbeatStatus{Device: "emu-1"}
	var woken []string
	fail := false
	hb := NewHeartbeat(filepath.Join(t.TempDir(), "heartbeat.log"), func() HeartbeatStatus { return status },
		HeartbeatOptions{Clock: clk, KeepAwake: func(st HeartbeatStatus) error {
			woken = append(woken, st.Device)
			if fail {
				return errors.New("device offline")
			}
			return nil
		}})
	if err := hb.Beat(); err != nil {
		t.Fatal(err)
	}
	if len(woken) != 0 {
		t.Fatalf("idle beat woke %v", woken)
	}
	status = HeartbeatStatus{Busy: true, CurrentTask: "long task", TaskStartedAt: clk.Now(), Device: "emu-2"}
	for i := 0; i < 2; i++ {
		clk.Advance(30 * time.Second)
		if err := hb.Beat(); err != nil {
			t.Fatal(err)
		}
	}
	fail = true
	if err := hb.Beat(); err != nil {
		t.Fatalf("a failed keep-awake must not fail the beat: %v", err)
	}
	if len(woken) != 3 || woken[0] != "emu-2" {
		t.Fatalf("woken = %v, want emu-2 three times", woken)
	}
}
