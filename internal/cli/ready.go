package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/adb"
)

// readyDevice wakes and unlocks the session's device before a run (agent,
// playbook, skill replay): a phone that went to sleep would otherwise start
// every run on a black or lock screen. It types target.pin on a PIN
// keyguard, prints what it did, and fails the run, finalizing its session,
// when the device stays locked.
func (a *App) readyDevice(sess *engine.Session) (engine.RunResult, error) {
	if err := a.wakeAndUnlock(sess); err != nil {
		return sess.Finish(false, err.Error()), err
	}
	return engine.RunResult{}, nil
}

// warnIfNotReady is readyDevice for the REPL: a locked device is reported
// but the prompt still opens, so the user can look and unlock by hand.
func (a *App) warnIfNotReady(sess *engine.Session) {
	if err := a.wakeAndUnlock(sess); err != nil {
		fmt.Fprintf(a.Stderr, "warning: %v\n", err)
	}
}

func (a *App) wakeAndUnlock(sess *engine.Session) error {
	phone, err := sess.Phone()
	if err != nil {
		return err
	}
	rep, err := phone.EnsureReady(sess.Context(), device.ReadyOptions{PIN: a.cfg.Target.Pin})
	ready := map[string]any{"steps": rep.Steps, "ready": err == nil}
	if err != nil {
		ready["error"] = err.Error()
	}
	sess.Emit("device_ready", ready)
	if len(rep.Steps) > 0 && err == nil {
		fmt.Fprintln(a.Stderr, rep.String())
	}
	if err != nil {
		return fmt.Errorf("device %s: %w", phone.Serial(), err)
	}
	return nil
}

// keepAwakeTimeout bounds the heartbeat's wake-up call on a busy device.
const keepAwakeTimeout = 5 * time.Second

// keepAwake sends KEYCODE_WAKEUP to a device running a long task (from the
// gateway's heartbeat), so its screen does not time out mid-task. WAKEUP,
// unlike POWER, never turns an awake screen off.
func (a *App) keepAwake(serial string) error {
	ctx, cancel := context.WithTimeout(a.Ctx, keepAwakeTimeout)
	defer cancel()
	d, err := a.adbClient().Open(ctx, adb.Target{Serial: serial})
	if err != nil {
		return err
	}
	_, err = d.Shell(ctx, "input keyevent KEYCODE_WAKEUP")
	return err
}
