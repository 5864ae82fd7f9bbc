package cli

import (
	"errors"
	"log/slog"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/executor/execset"
	"github.com/openpocket/openpocket/internal/llm"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/workspace"
)

// Assembly builds the adapters the CLI's runs and commands use: the
// composition root binds it (Deps.Assembly; internal/wire), so the CLI
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

// testAssembly is the assembly of MainWith calls without Deps.Assembly:
// nil, except in this package's tests, which set it to the real one
// (internal/wire) since only test code may import the composition root's
// package.
var testAssembly Assembly

// assembly is the command's Assembly (Deps.Assembly, else testAssembly).
func (a *App) assembly() Assembly {
	if a.deps.Assembly != nil {
		return a.deps.Assembly
	}
	if testAssembly != nil {
		return testAssembly
	}
	return missingAssembly{}
}

// missingAssembly fails every build: a binary whose composition root bound
// no Assembly is a bug of ours (exit 70), not the user's input.
type missingAssembly struct{}

var errNoAssembly = internalError{errors.New("this build has no adapter assembly (cmd/openpocket binds Deps.Assembly; a bug in openpocket)")}

func (missingAssembly) Model(*slog.Logger, *workspace.Home, workspace.Config, string) (*llm.Client, error) {
	return nil, errNoAssembly
}

func (missingAssembly) ProfileModel(*slog.Logger, string, workspace.ModelProfile, llm.ModeStore) (*llm.Client, error) {
	return nil, errNoAssembly
}

func (missingAssembly) Executors(string, workspace.Config) *execset.Set { panic(errNoAssembly) }

func (missingAssembly) PhoneOptions(workspace.Config) device.Options { panic(errNoAssembly) }

func (missingAssembly) NewService(*workspace.Home, workspace.Config, run.Config) *run.Service {
	panic(errNoAssembly)
}
