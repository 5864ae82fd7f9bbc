package script

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/sandbox"
)

// serverAddresser is implemented by transports that know their adb server
// (internal/adb's Device).
type serverAddresser interface{ ServerAddr() string }

type phoneKey struct{}

// WithPhone names the phone (serial, and its adb server, "" for adb's
// default) of scripts run with ctx outside a session: `openpocket --device
// SERIAL script run`.
func WithPhone(ctx context.Context, serial, server string) context.Context {
	return context.WithValue(ctx, phoneKey{}, sandbox.GateDevice{Serial: serial, Server: server})
}

// phoneOf returns how the run's adb gate finds the script's phone: the
// session's phone when ctx carries a session (opened on the script's first
// adb request, not before), otherwise the phone WithPhone named, otherwise
// the ANDROID_SERIAL openpocket itself was started with; without any, a
// script's adb reaches no device.
func (e *Executor) phoneOf(ctx context.Context) func() (sandbox.GateDevice, error) {
	sess := engine.SessionFrom(ctx)
	named, _ := ctx.Value(phoneKey{}).(sandbox.GateDevice)
	return func() (sandbox.GateDevice, error) {
		d := sandbox.GateDevice{Server: e.cfg.ADBServer}
		if sess == nil {
			d.Serial = os.Getenv("ANDROID_SERIAL")
			if named.Serial != "" {
				d.Serial = named.Serial
			}
			if named.Server != "" {
				d.Server = named.Server
			}
			return d, nil
		}
		p, err := sess.Phone()
		if err != nil {
			return d, fmt.Errorf("the run's phone: %w", err)
		}
		d.Serial = p.Serial()
		if sa, ok := p.Transport().(serverAddresser); ok {
			d.Server = sa.ServerAddr()
		}
		return d, nil
	}
}

// adbEnv are the host's adb variables a script never inherits: its adb
// talks to the gate (ADB_SERVER_SOCKET) and the gate picks the device.
var adbEnv = []string{"ANDROID_SERIAL", "ANDROID_ADB_SERVER_PORT", "ADB_SERVER_SOCKET"}

// scriptEnv is the reduced environment of a script's commands.
func scriptEnv(ws string) []string {
	return slices.DeleteFunc(sandbox.Environment(os.Environ(), ws), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(adbEnv, name)
	})
}
