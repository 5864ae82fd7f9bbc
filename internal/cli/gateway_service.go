package cli

import (
	"github.com/openpocket/openpocket/internal/executor/execset"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/workspace"
)

// gatewayServices is the gateway's run service factory: the global flags'
// device selection (cfg's target when they name none), each run holding
// its device's lease for exactly the run, the workspace's executors of
// cfg; close ends the executors.
func (a *App) gatewayServices(h *workspace.Home) func(cfg workspace.Config) (*run.Service, func()) {
	return func(cfg workspace.Config) (*run.Service, func()) {
		set := execset.New(h.Workspace(), executorConfigFrom(cfg))
		svc := a.newRunService(h, cfg, set, leasesPerRun)
		return svc, func() {
			svc.Close()
			set.Close()
		}
	}
}
