package cli

import (
	"context"

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

// noteDeviceErr keeps the command's first failure to open or lease a
// device (deviceErrs).
func (a *App) noteDeviceErr(err error) { a.deviceErrs.note(err) }

// failedRun is the error of a run that failed and was reported: its cause
// is the device error the run hit, if any, so the exit code is 3, not 1.
func (a *App) failedRun(msg string) FailedError {
	return FailedError{Msg: msg, Cause: a.deviceErrs.first()}
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

// openPhone connects and wraps the device for direct use by a command.
func (a *App) openPhone() (*device.Phone, error) {
	t, err := a.openDevice(a.Ctx)
	if err != nil {
		return nil, err
	}
	return device.NewPhone(t, a.phoneOptions()), nil
}
