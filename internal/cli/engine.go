package cli

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/executor/execset"
	"github.com/openpocket/openpocket/internal/llm"
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
		if strings.HasPrefix(cw.Message, "migrated legacy key") {
			kind = "note"
		}
		fmt.Fprintf(w, "%s: %s\n", kind, cw)
	}
}

// modelFor builds the model client of a profile of cfg ("" = its
// defaultModel), remembering the working endpoint in h.
func modelFor(logger *slog.Logger, h *workspace.Home, cfg workspace.Config, profile string) (*llm.Client, error) {
	if profile == "" {
		profile = cfg.DefaultModel
	}
	p, ok := cfg.Models[profile]
	if !ok {
		return nil, UsageError{fmt.Errorf("model profile %q is not in %s `models` (profiles: %s)", profile, h.ConfigPath(), profileNames(cfg))}
	}
	modes, err := h.ModeStore()
	if err != nil {
		return nil, err
	}
	return newModelClient(logger, profile, p, modes)
}

// newModelClient builds the client of one profile; modes nil remembers the
// working endpoint in memory only.
func newModelClient(logger *slog.Logger, name string, p workspace.ModelProfile, modes llm.ModeStore) (*llm.Client, error) {
	if err := checkKeyEnv(name, p); err != nil {
		return nil, err
	}
	c, err := llm.New(llm.Profile{Name: name, BaseURL: p.BaseURL, Model: p.Model, APIKey: p.APIKey, APIKeyEnv: p.APIKeyEnv,
		MaxTokens: p.MaxTokens, ReasoningEffort: p.ReasoningEffort, Temperature: p.Temperature},
		llm.Options{Modes: modes, Logger: logger})
	if err != nil {
		return nil, UsageError{err} // llm names the profile
	}
	return c, nil
}

// checkKeyEnv refuses a profile whose apiKeyEnv names a variable that is
// not set, before the run starts: otherwise the first request fails (or a
// local server is sent another key) and the cause is far from the message.
func checkKeyEnv(name string, p workspace.ModelProfile) error {
	if p.APIKey != "" || p.APIKeyEnv == "" || strings.TrimSpace(os.Getenv(p.APIKeyEnv)) != "" {
		return nil
	}
	return UsageError{fmt.Errorf("model profile %q: apiKeyEnv names $%s, which is not set: export %s=… (or set apiKey in the profile)", name, p.APIKeyEnv, p.APIKeyEnv)}
}

func profileNames(cfg workspace.Config) string {
	names := ""
	for n := range cfg.Models {
		if names != "" {
			names += ", "
		}
		names += n
	}
	if names == "" {
		return "none"
	}
	return names
}

// phoneOptionsFor is the device layer's tuning of cfg.
func phoneOptionsFor(cfg workspace.Config) device.Options {
	o := device.Options{}
	if ms := cfg.Device.SettleTimeoutMs; ms > 0 {
		o.SettleTimeout = time.Duration(ms) * time.Millisecond
	}
	if p, ok := cfg.Profile(""); ok {
		o.Image = imageEncoding(p)
	}
	return o
}

// imageEncoding is how a model profile wants its screenshots (validated
// with the config: "jpeg", "png" or empty for JPEG).
func imageEncoding(p workspace.ModelProfile) screen.ImageEncoding {
	f, err := screen.ParseImageFormat(p.ImageFormat)
	if err != nil {
		f = screen.FormatJPEG
	}
	return screen.ImageEncoding{Format: f, Quality: p.ImageQuality}
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
	set, err := openExecutors(a.onUse())
	if err != nil {
		return nil, err
	}
	a.onExit(func() { set.Close() })
	return set, nil
}
