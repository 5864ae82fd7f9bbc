package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/executor/execset"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/workspace"
)

// serviceSpec says which run service newService builds. Every run
// service — a command's, the gateway's, a dashboard's, an MCP call's —
// comes from newService with one of these: no front end copies the App to
// get a service of its own, and what differs between them is spelled out
// here.
type serviceSpec struct {
	home *workspace.Home
	cfg  workspace.Config
	// agentID is the agent the runs act as: another agent's bound phone is
	// refused.
	agentID string
	// device and endpoint, when set, name the default device outright
	// (an MCP call's device); both "" leave it to the resolver (resolve.go:
	// the command's flags for its own agent, $ANDROID_SERIAL, the agent's
	// binding, cfg's target, the only attached device).
	device, endpoint string
	mode             leaseMode
	// plainLease reports a busy phone as the lease says it, with no
	// --wait-device advice and no wait message (dashboards' actions).
	plainLease bool
	// executors is the runs' shared executor set; nil gives each run a set
	// of cfg's own, closed when it ends (a job's background exec sessions
	// end with it).
	executors *execset.Set
	// errs keeps the first device failure of the runs (nil: not kept).
	errs *deviceErrs
}

// services is the command's one run service factory: the global flags
// (device selection, agent), the devices its services open and lease
// (Phones), the logger of their runs and the stream their wake-up reports
// go to. It holds nothing else, so any front end of the command (MCP
// calls, dashboards, the gateway, chat channels) may build from it at any
// time; MainWith binds it.
type services struct {
	g      Globals
	phones *Phones
	logger *slog.Logger
	stderr io.Writer
	// asm builds the adapters (the composition root's System).
	asm Assembly
}

// services is the command's run service factory.
func (a *App) services() services {
	return services{g: a.Globals, phones: a.devices(), logger: a.logger(), stderr: a.Stderr, asm: a.sys}
}

// commandSpec is the spec of this command's own services: the global
// flags' device selection, home, config and agent.
func (f services) commandSpec(h *workspace.Home, cfg workspace.Config, mode leaseMode) serviceSpec {
	return serviceSpec{home: h, cfg: cfg, agentID: f.g.agentID(), mode: mode, errs: &f.phones.errs}
}

// gatewayServices is the gateway's run service factory (newService): the
// global flags' device selection (cfg's target when they name none), each
// run holding its device's lease and its own executors of cfg for exactly
// the run (a job's background exec sessions end with it, as they did when
// each job had a command of its own).
func (f services) gatewayServices(h *workspace.Home) func(cfg workspace.Config) (*run.Service, func()) {
	return func(cfg workspace.Config) (*run.Service, func()) {
		svc := f.newService(f.commandSpec(h, cfg, leasesPerRun))
		return svc, svc.Close
	}
}

// newService builds the run service of sp: its home, config, device
// selection, leases and executors (assembled by the composition root's
// Assembly over the CLI's device ports); the wake-up reports of its runs
// go to stderr. Close it when done.
func (f services) newService(sp serviceSpec) *run.Service {
	svc := f.asm.NewService(sp.home, sp.cfg, f.ports(sp))
	// What the wake-up before a run did is worth a line on the terminal.
	svc.Subscribe(func(ev run.Event) {
		if ev.Ready != nil && ev.Ready.Report != "" {
			fmt.Fprintln(f.stderr, ev.Ready.Report)
		}
	})
	return svc
}

// ports are the run.Config parts of sp the CLI owns: the device opener
// and leases over its Phones, the logger and the log format of runs' log
// files, the shared executors; the assembly adds the adapters.
func (f services) ports(sp serviceSpec) run.Config {
	rc := run.Config{
		OpenDevice: f.deviceOpener(sp),
		Logger:     f.logger,
		LogHandler: func(w io.Writer, level slog.Level) slog.Handler {
			return newHumanHandler(w, level)
		},
	}
	if sp.executors != nil {
		rc.Executors = sp.executors
	}
	switch {
	case sp.mode == leasesNone:
	case sp.plainLease:
		rc.Lease = f.phones.plainLease(sp.errs)
	default:
		rc.Lease, rc.HoldLeases = f.phones.leaseFunc(sp.errs), sp.mode == leasesHeld
	}
	return rc
}

// heldOpenMu serializes the device opens of commands' run services: runs
// on several devices at once (play --devices) share one virtual phone.
// Opens are quick.
var heldOpenMu sync.Mutex

// deviceOpener is a run service's device opener: "" is sp's default
// device (the resolver's choice), a serial that device. It takes no
// lease: the service does (run.Config.Lease).
func (f services) deviceOpener(sp serviceSpec) run.DeviceOpener {
	return func(ctx context.Context, target string) (engine.Device, func(), error) {
		if sp.mode == leasesHeld {
			heldOpenMu.Lock()
			defer heldOpenMu.Unlock()
		}
		d, err := f.openFor(ctx, sp, target)
		if err != nil {
			sp.errs.note(err)
			return nil, nil, err
		}
		return d, nil, nil
	}
}

// openFor opens target (a serial; "" the default device of sp) and
// refuses a device another agent has bound.
func (f services) openFor(ctx context.Context, sp serviceSpec, target string) (*adb.Device, error) {
	if f.phones.flags.UseSim {
		if _, err := f.phones.startSim(); err != nil {
			return nil, err
		}
	}
	explicit := sp.device != "" || sp.endpoint != ""
	if target == "" && !explicit {
		d, _, err := f.phones.openChosen(ctx, sp.agentID, sp.cfg.Target)
		return d, err
	}
	t := adb.Target{Serial: sp.device, Endpoint: sp.endpoint}
	if !explicit {
		if sel, err := f.phones.selection(sp.agentID, sp.cfg.Target); err == nil {
			c, _ := adb.Static(sel)
			t = adb.Target{Serial: c.Serial, Endpoint: c.Endpoint}
		}
	}
	if target != "" && target != t.Serial && target != t.Endpoint {
		t = adb.Target{Serial: target}
	}
	d, err := f.phones.adbClient().Open(ctx, t)
	if err == nil {
		err = f.phones.honourBindings(ctx, d, sp.agentID, t.Endpoint)
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}
