package cli

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/workspace"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/lease"
	"github.com/openpocket/openpocket/internal/sim"
)

func (a *App) adbClient() *adb.Client { return adb.NewClient(a.ADBServer) }

// adbAddr is the adb server address: --adb-server, else the environment
// variables adb itself reads.
func (a *App) adbAddr() string { return adb.ServerAddr(a.ADBServer) }

// startSim starts the embedded virtual phone once per process, attached to
// the adb server, and detaches it when the command ends.
func (a *App) startSim() (*sim.Sim, error) {
	if a.sim != nil {
		return a.sim, nil
	}
	s, err := sim.Start(a.Ctx, sim.Options{ADBServer: a.adbAddr(), Attach: true})
	if err != nil {
		return nil, err
	}
	a.sim = s
	a.onExit(func() { s.Close() })
	if a.Device == "" && a.Target == "" {
		a.Device = s.Serial()
	}
	return s, nil
}

// openDevice selects the target device per the global flags and takes its
// lease for the rest of the command, so no other process drives it
// meanwhile.
func (a *App) openDevice(ctx context.Context) (device.Transport, error) {
	d, err := a.selectDevice(ctx, a.Device, a.Target)
	if err == nil {
		err = a.leaseDevice(ctx, d.Serial())
	}
	if err != nil {
		a.noteDeviceErr(err)
		return nil, err
	}
	return d, nil
}

// selectDevice connects to the device serial or endpoint names (the
// virtual phone first when --sim asks for it) and refuses one another
// agent has bound.
func (a *App) selectDevice(ctx context.Context, serial, endpoint string) (device.Transport, error) {
	if a.UseSim {
		if _, err := a.startSim(); err != nil {
			return nil, err
		}
		if serial == "" && endpoint == "" {
			serial = a.Device
		}
	}
	d, err := a.adbClient().Open(ctx, adb.Target{Serial: serial, Endpoint: endpoint})
	if err == nil {
		err = a.honourBindings(ctx, d)
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// defaultTarget is the device a run's "" target means: the global flags'
// (or the virtual phone's) when they name one, else cfg's target.
func (a *App) defaultTarget(cfg workspace.Config) (serial, endpoint string) {
	if a.Device != "" || a.Target != "" || a.UseSim {
		return a.Device, a.Target
	}
	return cfg.Target.Device, cfg.Target.AdbEndpoint
}

// heldOpenMu serializes the device opens of commands' run services: runs
// on several devices at once (play --devices) share one App's virtual
// phone and first device error. Opens are quick.
var heldOpenMu sync.Mutex

// deviceOpener is a run service's device opener: "" is the default
// device (defaultTarget), a serial that device. It takes no lease: the
// service does (run.Config.Lease). serialize: the opens of one command.
func (a *App) deviceOpener(cfg workspace.Config, serialize bool) run.DeviceOpener {
	return func(ctx context.Context, target string) (engine.Device, func(), error) {
		if serialize {
			heldOpenMu.Lock()
			defer heldOpenMu.Unlock()
		}
		serial, endpoint := a.defaultTarget(cfg)
		if target != "" && target != serial {
			serial, endpoint = target, ""
		}
		d, err := a.selectDevice(ctx, serial, endpoint)
		if err != nil {
			a.noteDeviceErr(err)
			return nil, nil, err
		}
		return d, nil, nil
	}
}

// deviceErrMu guards deviceErr: runs on several devices note it at once.
var deviceErrMu sync.Mutex

// noteDeviceErr keeps the first failure to open or lease a device: a Lua
// run sees it only as text (nil, err or a raised message), and the run's
// exit code must still say "device problem".
func (a *App) noteDeviceErr(err error) {
	deviceErrMu.Lock()
	defer deviceErrMu.Unlock()
	if a.deviceErr == nil {
		a.deviceErr = err
	}
}

// failedRun is the error of a run that failed and was reported: its cause
// is the device error the run hit, if any, so the exit code is 3, not 1.
func (a *App) failedRun(msg string) FailedError {
	return FailedError{Msg: msg, Cause: a.deviceErr}
}

// leaseDevice takes the device lease of serial once per App (a command
// may open its device several times), released when the command ends.
func (a *App) leaseDevice(ctx context.Context, serial string) error {
	if a.leases[serial] != nil {
		return nil
	}
	l, err := a.acquireLease(ctx, serial)
	if err != nil {
		return err
	}
	if a.leases == nil {
		a.leases = map[string]*lease.Lease{}
	}
	a.leases[serial] = l
	a.onExit(func() {
		l.Release()
		delete(a.leases, serial)
	})
	return nil
}

// leaseFunc is the run services' Lease: this process's lease on the
// device, waiting for it up to --wait-device.
func (a *App) leaseFunc() run.LeaseFunc {
	return func(ctx context.Context, serial string) (func(), error) {
		l, err := a.acquireLease(ctx, serial)
		if err != nil {
			a.noteDeviceErr(err)
			return nil, err
		}
		return func() { l.Release() }, nil
	}
}

// acquireLease takes serial's lease in this command's name, waiting up to
// --wait-device (saying so) when another process drives it.
func (a *App) acquireLease(ctx context.Context, serial string) (*lease.Lease, error) {
	l, err := lease.Acquire(ctx, serial, lease.Options{Wait: a.WaitDevice, Command: a.command,
		OnWait: func(h lease.Holder) {
			fmt.Fprintf(a.Stderr, "device %s is in use by %s; waiting up to %s\n", serial, h, a.WaitDevice)
		}})
	if err != nil {
		if errors.Is(err, lease.ErrBusy) && a.WaitDevice == 0 {
			return nil, fmt.Errorf("%w; wait for it with --wait-device DURATION", err)
		}
		return nil, err
	}
	return l, nil
}

// openPhone connects and wraps the device for direct use by a command.
func (a *App) openPhone() (*device.Phone, error) {
	t, err := a.openDevice(a.Ctx)
	if err != nil {
		return nil, err
	}
	return device.NewPhone(t, a.phoneOptions()), nil
}
