package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/executor/execset"
	"github.com/openpocket/openpocket/internal/llm"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/workspace"
)

// home opens OPENPOCKET_HOME once per command (created on first use) and
// applies --config when given.
func (a *App) home() (*workspace.Home, error) {
	if a.ws != nil {
		return a.ws, nil
	}
	h, err := a.openAgentHome()
	if err != nil {
		return nil, UsageError{err}
	}
	a.ws = h
	a.cfg = h.Config()
	printConfigWarnings(a.Stderr, h.Warnings())
	if a.Config != "" {
		cfg, warns, err := workspace.LoadConfigWarnings(a.Config)
		if err != nil {
			return nil, UsageError{err}
		}
		printConfigWarnings(a.Stderr, warns)
		a.cfg = cfg
	}
	return h, nil
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

// config returns the effective configuration.
func (a *App) config() (workspace.Config, error) {
	if _, err := a.home(); err != nil {
		return workspace.Config{}, err
	}
	return a.cfg, nil
}

// model builds the model client for a profile ("" = defaultModel).
func (a *App) model(profile string) (*llm.Client, error) {
	h, err := a.home()
	if err != nil {
		return nil, err
	}
	return a.modelFor(h, a.cfg, profile)
}

// modelFor builds the model client of a profile of cfg ("" = its
// defaultModel), remembering the working endpoint in h.
func (a *App) modelFor(h *workspace.Home, cfg workspace.Config, profile string) (*llm.Client, error) {
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
	return a.modelClient(profile, p, modes)
}

// modelClient builds the client of one profile; modes nil remembers the
// working endpoint in memory only.
func (a *App) modelClient(name string, p workspace.ModelProfile, modes llm.ModeStore) (*llm.Client, error) {
	if err := checkKeyEnv(name, p); err != nil {
		return nil, err
	}
	c, err := llm.New(llm.Profile{Name: name, BaseURL: p.BaseURL, Model: p.Model, APIKey: p.APIKey, APIKeyEnv: p.APIKeyEnv,
		MaxTokens: p.MaxTokens, ReasoningEffort: p.ReasoningEffort, Temperature: p.Temperature},
		llm.Options{Modes: modes, Logger: a.logger()})
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

// runService builds the run service of this command once (newService):
// the global flags' device selection (config's target when they name
// none), device leases held until the command ends, the workspace's
// executors.
func (a *App) runService() (*run.Service, error) {
	if a.svc != nil {
		return a.svc, nil
	}
	h, err := a.home()
	if err != nil {
		return nil, err
	}
	set, err := a.executorSet()
	if err != nil {
		return nil, err
	}
	sp := a.commandSpec(h, a.cfg, leasesHeld)
	sp.executors = set
	a.svc = a.newService(sp)
	a.onExit(a.svc.Close)
	return a.svc, nil
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

// executorSet opens the workspace's executors once per command; background
// exec sessions end with it.
func (a *App) executorSet() (*execset.Set, error) {
	if a.execSet != nil {
		return a.execSet, nil
	}
	set, err := a.openExecutors()
	if err != nil {
		return nil, err
	}
	a.execSet = set
	a.onExit(func() { set.Close() })
	return set, nil
}
