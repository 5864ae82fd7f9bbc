package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/lease"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/internal/workspace"
)

// Phones is a command's way to its devices, built once in MainWith from
// the global flags: the adb server, the virtual phone (--sim: started on
// first use, detached when the command ends), the device leases the
// command holds until it ends, and its first device failure. Commands
// that drive a phone directly declare it (Run(ctx, …, phones)); every run
// service opens and leases its devices through it.
type Phones struct {
	flags   Globals // device selection, adb server, --sim, --wait-device, install and agent
	ctx     context.Context
	command string // names this process in device leases ("openpocket agent")
	stderr  io.Writer
	onExit  func(func())

	simMu sync.Mutex
	sim   *sim.Sim

	leaseMu sync.Mutex
	leases  map[string]*lease.Lease

	// notes printed already (noteOnce).
	notes map[string]bool

	errs deviceErrs
}

// newPhones builds a command's Phones; onExit registers work for when the
// command ends (detach the virtual phone, release leases).
func newPhones(ctx context.Context, g Globals, command string, stderr io.Writer, onExit func(func())) *Phones {
	if stderr == nil {
		stderr = io.Discard
	}
	return &Phones{flags: g, ctx: ctx, command: command, stderr: stderr, onExit: onExit}
}

func (p *Phones) adbClient() *adb.Client { return adb.NewClient(p.flags.ADBServer) }

// adbAddr is the adb server address: --adb-server, else the environment
// variables adb itself reads.
func (p *Phones) adbAddr() string { return adb.ServerAddr(p.flags.ADBServer) }

// startSim starts the embedded virtual phone once per command, attached
// to the adb server, and detaches it when the command ends.
func (p *Phones) startSim() (*sim.Sim, error) {
	p.simMu.Lock()
	defer p.simMu.Unlock()
	if p.sim != nil {
		return p.sim, nil
	}
	s, err := sim.Start(p.ctx, sim.Options{ADBServer: p.adbAddr(), Attach: true})
	if err != nil {
		return nil, err
	}
	p.sim = s
	p.onExit(func() { s.Close() })
	return s, nil
}

// virtual is the virtual phone once started (nil before, or without --sim).
func (p *Phones) virtual() *sim.Sim {
	p.simMu.Lock()
	defer p.simMu.Unlock()
	return p.sim
}

// open resolves the command's device (flags, $ANDROID_SERIAL, the
// agent's binding, its config's target, the only attached device) and
// takes its lease for the rest of the command, so no other process
// drives it meanwhile.
func (p *Phones) open(ctx context.Context) (device.Transport, error) {
	d, _, err := p.openChosen(ctx, agentOf(p.flags), p.flags.ownTarget())
	if err == nil {
		err = p.hold(ctx, d.Serial())
	}
	if err != nil {
		p.errs.note(err)
		return nil, err
	}
	return d, nil
}

// openPhone is open wrapped for direct use with the device options o.
func (p *Phones) openPhone(ctx context.Context, o device.Options) (*device.Phone, error) {
	t, err := p.open(ctx)
	if err != nil {
		return nil, err
	}
	return device.NewPhone(t, o), nil
}

// agentOf is the agent the flags select ("default" when none is).
func agentOf(g Globals) string {
	if g.AgentID == "" {
		return workspace.DefaultAgent
	}
	return g.AgentID
}

// honourBindings refuses a device another agent has bound, however agent
// id reached it (--device, the config, the only attached device, also
// named by endpoint), and records the phone's ro.serialno in the agent's
// own binding once seen.
func (p *Phones) honourBindings(ctx context.Context, t device.Transport, id, endpoint string) error {
	in, err := workspace.OpenInstall(p.flags.Home)
	if err != nil {
		return UsageError{err}
	}
	names := []string{t.Serial(), endpoint}
	if holder, found, err := in.HolderOf(id, names...); err != nil {
		return err
	} else if found {
		return &workspace.BoundError{Target: t.Serial(), Holder: holder}
	}
	own, ok, err := in.Binding(id)
	if err != nil || !ok || own.SerialNo != "" || !own.Names(names...) {
		return err
	}
	res, err := t.Shell(ctx, "getprop ro.serialno")
	if err != nil || res.ExitCode != 0 {
		return nil // best effort: the serial it was bound by still holds
	}
	serialNo := strings.TrimSpace(string(res.Stdout))
	if holder, found, err := in.HolderOf(id, serialNo); err == nil && found {
		return &workspace.BoundError{Target: t.Serial() + "/" + serialNo, Holder: holder}
	}
	return in.RecordSerialNo(id, serialNo)
}

// hold takes the device lease of serial once per command (it may open its
// device several times), released when the command ends.
func (p *Phones) hold(ctx context.Context, serial string) error {
	p.leaseMu.Lock()
	defer p.leaseMu.Unlock()
	if p.leases[serial] != nil {
		return nil
	}
	l, err := p.acquire(ctx, serial)
	if err != nil {
		return err
	}
	if p.leases == nil {
		p.leases = map[string]*lease.Lease{}
	}
	p.leases[serial] = l
	p.onExit(func() {
		l.Release()
		p.leaseMu.Lock()
		delete(p.leases, serial)
		p.leaseMu.Unlock()
	})
	return nil
}

// acquire takes serial's lease in this command's name, waiting up to
// --wait-device (saying so) when another process drives it.
func (p *Phones) acquire(ctx context.Context, serial string) (*lease.Lease, error) {
	wait := p.flags.WaitDevice
	l, err := lease.Acquire(ctx, serial, lease.Options{Wait: wait, Command: p.command,
		OnWait: func(h lease.Holder) {
			fmt.Fprintf(p.stderr, "device %s is in use by %s; waiting up to %s\n", serial, h, wait)
		}})
	if err != nil {
		if errors.Is(err, lease.ErrBusy) && wait == 0 {
			return nil, fmt.Errorf("%w; wait for it with --wait-device DURATION", err)
		}
		return nil, err
	}
	return l, nil
}

// leaseFunc is the run services' Lease: this process's lease on the
// device, waiting for it up to --wait-device; errs keeps a failure.
func (p *Phones) leaseFunc(errs *deviceErrs) run.LeaseFunc {
	return func(ctx context.Context, serial string) (func(), error) {
		l, err := p.acquire(ctx, serial)
		if err != nil {
			errs.note(err)
			return nil, err
		}
		return func() { l.Release() }, nil
	}
}

// plainLease is a dashboard page's Lease: a busy phone is reported as the
// lease says it, with no command-line advice (--wait-device) and no wait
// message.
func (p *Phones) plainLease(errs *deviceErrs) run.LeaseFunc {
	return func(ctx context.Context, serial string) (func(), error) {
		l, err := lease.Acquire(ctx, serial, lease.Options{Wait: p.flags.WaitDevice, Command: p.command})
		if err != nil {
			errs.note(err)
			return nil, err
		}
		return func() { l.Release() }, nil
	}
}

// failedRun is the error of a run that failed and was reported: its cause
// is the device error the command's runs hit, if any, so the exit code is
// 3, not 1.
func (p *Phones) failedRun(msg string) FailedError {
	return FailedError{Msg: msg, Cause: p.errs.first()}
}

// deviceErrs keeps the first failure to open or lease a device: a Lua
// run sees it only as text (nil, err or a raised message), and the exit
// code must still say "device problem".
type deviceErrs struct {
	mu  sync.Mutex
	err error
}

func (d *deviceErrs) note(err error) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err == nil {
		d.err = err
	}
}

func (d *deviceErrs) first() error {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}
