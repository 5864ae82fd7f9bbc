package cli

import (
	"github.com/openpocket/openpocket/internal/executor/execset"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/workspace"
	"github.com/openpocket/openpocket/stdlib/executors"
)

// gatewayServices is the gateway's run service factory: the global flags'
// device selection (cfg's target when they name none), each run holding
// its device's lease and its own executors of cfg for exactly the run (a
// job's background exec sessions end with it, as they did when each job
// had a command of its own).
func (a *App) gatewayServices(h *workspace.Home) func(cfg workspace.Config) (*run.Service, func()) {
	return func(cfg workspace.Config) (*run.Service, func()) {
		rc := a.serviceConfig(h, cfg, leasesPerRun)
		rc.NewExecutors = func() (executors.Set, func()) {
			set := execset.New(h.Workspace(), executorConfigFrom(cfg))
			return set, func() { set.Close() }
		}
		svc := a.startService(rc)
		return svc, svc.Close
	}
}
