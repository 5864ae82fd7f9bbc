package cli

import (
	"context"
	"time"

	"github.com/openpocket/openpocket/internal/adb"
)

// keepAwakeTimeout bounds the heartbeat's wake-up call on a busy device.
const keepAwakeTimeout = 5 * time.Second

// keepAwake sends KEYCODE_WAKEUP to a device running a long task (from the
// gateway's heartbeat), so its screen does not time out mid-task. WAKEUP,
// unlike POWER, never turns an awake screen off.
func (p *Phones) keepAwake(ctx context.Context, serial string) error {
	ctx, cancel := context.WithTimeout(ctx, keepAwakeTimeout)
	defer cancel()
	d, err := p.adbClient().Open(ctx, adb.Target{Serial: serial})
	if err != nil {
		return err
	}
	_, err = d.Shell(ctx, "input keyevent KEYCODE_WAKEUP")
	return err
}
