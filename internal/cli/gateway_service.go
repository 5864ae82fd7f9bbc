package cli

import (
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/workspace"
)

// gatewayServices is the gateway's run service factory (newService): the
// global flags' device selection (cfg's target when they name none), each
// run holding its device's lease and its own executors of cfg for exactly
// the run (a job's background exec sessions end with it, as they did when
// each job had a command of its own).
func (a *App) gatewayServices(h *workspace.Home) func(cfg workspace.Config) (*run.Service, func()) {
	return func(cfg workspace.Config) (*run.Service, func()) {
		svc := a.services().newService(a.commandSpec(h, cfg, leasesPerRun))
		return svc, svc.Close
	}
}
