package cli

import (
	"fmt"
	"io"
	"sync"

	"github.com/openpocket/openpocket/internal/executor/execset"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/workspace"
)

// built is what the command's providers build, each once, on first use:
// the home and effective config (opened together), the workspace's
// executor set and the run service. Only these hold them, so no helper
// works only if another ran first, and concurrent callers (MCP calls,
// dashboard jobs) share one of each. A failure is the command's: later
// calls get the same error.
type built struct {
	home     func() (homeConfig, error)
	executor func() (*execset.Set, error)
	service  func() (*run.Service, error)
}

// homeConfig is the command's home and the config in effect (--config's
// when given, else the home's).
type homeConfig struct {
	home *workspace.Home
	cfg  workspace.Config
}

// providers are the command's (MainWith builds them before the command
// runs; an App built in a test gets them on first use).
func (a *App) providers() *built {
	a.builtOnce.Do(func() {
		a.built = &built{home: sync.OnceValues(a.openHome), executor: sync.OnceValues(a.openExecutorSet),
			service: sync.OnceValues(a.openRunService)}
	})
	return a.built
}

// home is the selected agent's home (OPENPOCKET_HOME's by default,
// created on first use).
func (a *App) home() (*workspace.Home, error) {
	hc, err := a.providers().home()
	return hc.home, err
}

// config returns the effective configuration.
func (a *App) config() (workspace.Config, error) {
	hc, err := a.providers().home()
	return hc.cfg, err
}

// openHome opens the home and applies --config when given; it prints
// the config's findings.
func (a *App) openHome() (homeConfig, error) {
	h, err := a.Globals.openAgentHome()
	if err != nil {
		return homeConfig{}, UsageError{err}
	}
	printConfigWarnings(a.Stderr, h.Warnings())
	if a.Config == "" {
		return homeConfig{home: h, cfg: h.Config()}, nil
	}
	cfg, warns, err := workspace.LoadConfigWarnings(a.Config)
	if err != nil {
		return homeConfig{}, UsageError{err}
	}
	printConfigWarnings(a.Stderr, warns)
	return homeConfig{home: h, cfg: cfg}, nil
}

// printConfigWarnings prints config findings: a migrated upstream key is a
// note (the file loaded as meant), anything else a warning.
func printConfigWarnings(w io.Writer, warns []workspace.Warning) {
	for _, cw := range warns {
		kind := "warning"
		if cw.Note {
			kind = "note"
		}
		fmt.Fprintf(w, "%s: %s\n", kind, cw)
	}
}

// runService is the run service of this command, built once
// (newService): the global flags' device selection (config's target when
// they name none), device leases held until the command ends, the
// workspace's executors.
func (a *App) runService() (*run.Service, error) { return a.providers().service() }

func (a *App) openRunService() (*run.Service, error) {
	hc, err := a.providers().home()
	if err != nil {
		return nil, err
	}
	set, err := a.executorSet()
	if err != nil {
		return nil, err
	}
	f := a.services()
	sp := f.commandSpec(hc.home, hc.cfg, leasesHeld)
	sp.executors = set
	svc := f.newService(sp)
	a.onExit(svc.Close)
	return svc, nil
}

// leaseMode is how a run service takes device leases (run.Config).
type leaseMode int

const (
	// leasesHeld: a command holds each device from its first use until
	// it ends (CLI commands).
	leasesHeld leaseMode = iota
	// leasesPerRun: each run holds its device for exactly the run (the
	// gateway's jobs, a dashboard's actions).
	leasesPerRun
	// leasesNone: no lease (looking at the screen does not drive it).
	leasesNone
)

// executorSet is the workspace's executor set, opened once per command;
// background exec sessions end with it.
func (a *App) executorSet() (*execset.Set, error) { return a.providers().executor() }

func (a *App) openExecutorSet() (*execset.Set, error) {
	set, err := a.onUse().NewExecutors()
	if err != nil {
		return nil, err
	}
	a.onExit(func() { set.Close() })
	return set, nil
}
