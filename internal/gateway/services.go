package gateway

import (
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

// current holds the current run service for one run; done ends the hold.
func (g *Gateway) current() (svc *run.Service, cfg workspace.Config, done func()) {
	g.mu.Lock()
	gen := g.gen
	gen.runs++
	g.mu.Unlock()
	return gen.svc, gen.cfg, func() {
		g.mu.Lock()
		gen.runs--
		last := gen.retired && gen.runs == 0
		g.mu.Unlock()
		if last {
			gen.close()
		}
	}
}

// swapServiceLocked makes a service built from cfg the current one (the
// caller holds mu); the old one closes once its runs ended.
func (g *Gateway) swapServiceLocked(cfg workspace.Config) {
	old := g.gen
	svc, closeSvc := g.opts.NewService(cfg)
	if closeSvc == nil {
		closeSvc = func() {}
	}
	g.gen = &serviceGen{svc: svc, cfg: cfg, close: closeSvc}
	if old == nil {
		return
	}
	old.retired = true
	if old.runs == 0 {
		go old.close() // not under mu: closing waits for executors
	}
}

// closeService closes the current service (the gateway stops).
func (g *Gateway) closeService() {
	g.mu.Lock()
	gen := g.gen
	g.gen = nil
	g.mu.Unlock()
	if gen != nil {
		gen.close()
	}
}
