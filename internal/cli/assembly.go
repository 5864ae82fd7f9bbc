package cli

import (
	"log/slog"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/executor/execset"
	"github.com/openpocket/openpocket/internal/llm"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/workspace"
)

// Assembly builds the adapters the CLI's runs and commands use: the
// composition root's System implements it (internal/wire), so the CLI
// declares what it needs and never assembles a model client, an executor
// set or a run service's adapters itself. A profile the user must fix
// comes back as an error whose BadInput method reports true (exit 2).
type Assembly interface {
	// Model is the client of profile ("" = defaultModel) of cfg,
	// remembering the working endpoint in h.
	Model(logger *slog.Logger, h *workspace.Home, cfg workspace.Config, profile string) (*llm.Client, error)
	// ProfileModel is the client of one profile; modes nil remembers the
	// working endpoint in memory only.
	ProfileModel(logger *slog.Logger, name string, p workspace.ModelProfile, modes llm.ModeStore) (*llm.Client, error)
	// Executors is the executor set of a workspace directory under cfg;
	// the caller closes it.
	Executors(dir string, cfg workspace.Config) *execset.Set
	// PhoneOptions is the device layer's tuning of cfg.
	PhoneOptions(cfg workspace.Config) device.Options
	// NewService builds the run service of h and cfg over the CLI's ports
	// (device opener, leases, logging, shared executors).
	NewService(h *workspace.Home, cfg workspace.Config, ports run.Config) *run.Service
}
