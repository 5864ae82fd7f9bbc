package cli

import (
	"context"

	"github.com/openpocket/openpocket/internal/executor/execset"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/workspace"
)

// serviceGen is one run service of the gateway, built from one config.
// Every job and chat task runs on the current one; a reload swaps in a
// new one, and the runs already started finish on theirs, which closes
// (its executors) when the last of them ends.
type serviceGen struct {
	svc   *run.Service
	cfg   workspace.Config
	close func()

	// Guarded by the gateway's mu.
	runs    int
	retired bool
}

// serviceFactory builds a run service from a config.
type serviceFactory func(cfg workspace.Config) *serviceGen

// gatewayServices is the gateway's factory: the global flags' device
// selection (cfg's target when they name none), each run holding its
// device's lease for exactly the run, the workspace's executors of cfg.
func (a *App) gatewayServices(h *workspace.Home) serviceFactory {
	return func(cfg workspace.Config) *serviceGen {
		set := execset.New(h.Workspace(), executorConfigFrom(cfg))
		svc := a.newRunService(h, cfg, set, leasesPerRun)
		return &serviceGen{svc: svc, cfg: cfg, close: func() {
			svc.Close()
			set.Close()
		}}
	}
}

// current holds the current run service for one run; done ends the hold.
func (g *gateway) current() (gen *serviceGen, done func()) {
	g.mu.Lock()
	gen = g.gen
	gen.runs++
	g.mu.Unlock()
	return gen, func() {
		g.mu.Lock()
		gen.runs--
		last := gen.retired && gen.runs == 0
		g.mu.Unlock()
		if last {
			gen.close()
		}
	}
}

// swapService makes a service built from cfg the current one (the
// caller holds mu); the old one closes once its runs ended.
func (g *gateway) swapServiceLocked(cfg workspace.Config) {
	old := g.gen
	g.gen = g.newService(cfg)
	if old == nil {
		return
	}
	old.retired = true
	if old.runs == 0 {
		go old.close() // not under mu: closing waits for executors
	}
}

// closeService closes the current service (the gateway stops).
func (g *gateway) closeService() {
	g.mu.Lock()
	gen := g.gen
	g.gen = nil
	g.mu.Unlock()
	if gen != nil {
		gen.close()
	}
}

// jobRunsFor runs each job on the current service with its device.
func (g *gateway) jobRunsFor(_ context.Context, device string) (jobRuns, func()) {
	gen, done := g.current()
	runs, release := g.app.serviceRuns(gen.svc, gen.cfg, device)
	return runs, func() {
		release()
		done()
	}
}
