package cli

import (
	"context"
	"errors"
	"fmt"

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
	if a.UseSim {
		if _, err := a.startSim(); err != nil {
			return nil, err
		}
	}
	d, err := a.adbClient().Open(ctx, adb.Target{Serial: a.Device, Endpoint: a.Target})
	if err == nil {
		err = a.honourBindings(ctx, d)
	}
	if err == nil {
		err = a.leaseDevice(ctx, d.Serial())
	}
	if err != nil {
		if a.deviceErr == nil {
			// A Lua run sees this error only as text (nil, err or a raised
			// message); keep it so the run's exit code says "device problem".
			a.deviceErr = err
		}
		return nil, err
	}
	return d, nil
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
	l, err := lease.Acquire(ctx, serial, lease.Options{Wait: a.WaitDevice, Command: a.command,
		OnWait: func(h lease.Holder) {
			fmt.Fprintf(a.Stderr, "device %s is in use by %s; waiting up to %s\n", serial, h, a.WaitDevice)
		}})
	if err != nil {
		if errors.Is(err, lease.ErrBusy) && a.WaitDevice == 0 {
			return fmt.Errorf("%w; wait for it with --wait-device DURATION", err)
		}
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

// openPhone connects and wraps the device for direct use by a command.
func (a *App) openPhone() (*device.Phone, error) {
	t, err := a.openDevice(a.Ctx)
	if err != nil {
		return nil, err
	}
	return device.NewPhone(t, a.phoneOptions()), nil
}
