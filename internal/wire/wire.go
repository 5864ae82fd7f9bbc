// Package wire is the composition root's assembly of the adapters behind
// the run service: model clients from config.json's profiles, the
// workspace's executor set, the device layer's tuning and the run.Config →
// *run.Service of a home and config. Only cmd/openpocket imports it; its
// application embeds an Assembly, which the CLI sees as the Assembly part
// of cli.System (an interface the CLI declares), so front ends never build
// adapters themselves.
package wire

import (
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/prompt"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/executor/execset"
	"github.com/openpocket/openpocket/internal/llm"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/skills"
	"github.com/openpocket/openpocket/internal/workspace"
	"github.com/openpocket/openpocket/stdlib/executors"
)

// Assembly builds adapters and run services. It holds nothing: every value
// comes from the home and config it is given.
type Assembly struct{}

// New is the assembly the composition root hands the CLI.
func New() Assembly { return Assembly{} }

// BadConfigError is a model profile the user has to fix (unknown, its key
// variable unset, refused by the client): bad input, which the CLI maps to
// exit 2 (it recognises BadInput).
type BadConfigError struct{ Err error }

func (e BadConfigError) Error() string { return e.Err.Error() }
func (e BadConfigError) Unwrap() error { return e.Err }

// BadInput marks the error as the user's input to fix.
func (BadConfigError) BadInput() bool { return true }

// Model builds the model client of a profile of cfg ("" = its
// defaultModel), remembering the working endpoint in h.
func (a Assembly) Model(logger *slog.Logger, h *workspace.Home, cfg workspace.Config, profile string) (*llm.Client, error) {
	if profile == "" {
		profile = cfg.DefaultModel
	}
	p, ok := cfg.Models[profile]
	if !ok {
		return nil, BadConfigError{fmt.Errorf("model profile %q is not in %s `models` (profiles: %s)", profile, h.ConfigPath(), cfg.ProfileList())}
	}
	modes, err := h.ModeStore()
	if err != nil {
		return nil, err
	}
	return a.ProfileModel(logger, profile, p, modes)
}

// ProfileModel builds the client of one profile; modes nil remembers the
// working endpoint in memory only.
func (Assembly) ProfileModel(logger *slog.Logger, name string, p workspace.ModelProfile, modes llm.ModeStore) (*llm.Client, error) {
	if err := checkKeyEnv(name, p); err != nil {
		return nil, err
	}
	c, err := llm.New(llm.Profile{Name: name, BaseURL: p.BaseURL, Model: p.Model, APIKey: p.APIKey, APIKeyEnv: p.APIKeyEnv,
		MaxTokens: p.MaxTokens, ReasoningEffort: p.ReasoningEffort, Temperature: p.Temperature},
		llm.Options{Modes: modes, Logger: logger})
	if err != nil {
		return nil, BadConfigError{err} // llm names the profile
	}
	return c, nil
}

// checkKeyEnv refuses a profile whose apiKeyEnv names a variable that is
// not set, before the run starts: otherwise the first request fails (or a
// local server is sent another key) and the cause is far from the message.
// A server on loopback or a private address needs no key: llm sends none
// and says so.
func checkKeyEnv(name string, p workspace.ModelProfile) error {
	if p.APIKey != "" || p.APIKeyEnv == "" || strings.TrimSpace(os.Getenv(p.APIKeyEnv)) != "" {
		return nil
	}
	if p.BaseURL != "" && llm.IsLocalURL(p.BaseURL) {
		return nil
	}
	return BadConfigError{fmt.Errorf("model profile %q: apiKeyEnv names $%s, which is not set: export %s=… (or set apiKey in the profile)", name, p.APIKeyEnv, p.APIKeyEnv)}
}

// Executors is the executor set of the workspace dir under cfg's
// scriptExecutor, codingTools and memoryTools. The caller closes it.
func (Assembly) Executors(dir string, cfg workspace.Config) *execset.Set {
	return execset.New(dir, executorConfigFrom(cfg))
}

// PhoneOptions is the device layer's tuning of cfg.
func (Assembly) PhoneOptions(cfg workspace.Config) device.Options {
	o := device.Options{}
	if ms := cfg.Device.SettleTimeoutMs; ms > 0 {
		o.SettleTimeout = time.Duration(ms) * time.Millisecond
	}
	o.ElementBudget = cfg.Device.ElementBudgetChars                          // 0: the default
	o.ShellTimeout = time.Duration(cfg.Device.ShellTimeoutSec) * time.Second // 0: the default
	if mode, err := device.ParseCaptureMode(cfg.Device.Capture); err == nil {
		o.Capture = mode // validated with the config
	}
	if p, ok := cfg.Profile(""); ok {
		o.Image = imageEncoding(p)
	}
	return o
}

// imageEncoding is how a model profile wants its screenshots (validated
// with the config: "jpeg", "png", or empty for the smaller of the two per
// image, which an empty Format asks the phone for).
func imageEncoding(p workspace.ModelProfile) screen.ImageEncoding {
	if p.ImageFormat == "" {
		return screen.ImageEncoding{Quality: p.ImageQuality}
	}
	f, err := screen.ParseImageFormat(p.ImageFormat)
	if err != nil {
		f = screen.FormatJPEG
	}
	return screen.ImageEncoding{Format: f, Quality: p.ImageQuality}
}

// NewService builds the run service of home h and config cfg over ports:
// the caller's device opener and leases (OpenDevice, Lease, HoldLeases),
// logging (Logger, LogHandler) and, when shared, Executors; this adds the
// adapters (model clients, executors per run when none is shared, the
// workspace, skills, agent defaults). Close it when done.
func (a Assembly) NewService(h *workspace.Home, cfg workspace.Config, ports run.Config) *run.Service {
	return run.New(a.serviceConfig(h, cfg, ports))
}

// serviceConfig is ports completed with h's and cfg's adapters.
func (a Assembly) serviceConfig(h *workspace.Home, cfg workspace.Config, rc run.Config) run.Config {
	logger := rc.Logger
	rc.PhoneOptions = a.PhoneOptions(cfg)
	rc.Model = func(profile string) (engine.Model, error) {
		m, err := a.Model(logger, h, cfg, profile)
		if err != nil {
			return nil, err
		}
		return m, nil
	}
	rc.Store, rc.WorkspaceDir, rc.StateDir = h, h.Workspace(), h.State()
	rc.ContextFiles = func(budget int) []prompt.ContextFile {
		var files []prompt.ContextFile
		for _, f := range h.ContextFiles(budget) {
			files = append(files, prompt.ContextFile{Name: f.Name, Content: f.Content})
		}
		return files
	}
	rc.Skills = &skills.Loader{HomeDir: h.Dir(), WorkspaceDir: h.Workspace()}
	rc.Agent = run.AgentDefaults{
		MaxSteps:           cfg.Agent.MaxSteps,
		SystemPromptMode:   cfg.Agent.SystemPromptMode,
		ReturnHome:         cfg.Agent.ReturnHomeOnTaskEnd,
		LoopDelay:          time.Duration(cfg.Agent.LoopDelayMs) * time.Millisecond,
		ContextBudgetChars: cfg.Agent.ContextBudgetChars,
		AutoArtifacts:      cfg.Agent.AutoArtifactsEnabled,
		Probe:              cfg.HumanAuth.Probe,
		StuckAfter:         cfg.Agent.StuckAfter,
		MaxTokens:          cfg.Agent.MaxTokens,
		ReplayFirst:        cfg.Agent.ReplayFirst,
	}
	// Validated with the config: an error here cannot happen.
	rc.Permissions, _ = cfg.HumanAuth.PermissionPolicy()
	rc.ModelImage = func(profile string) (screen.ImageEncoding, bool) {
		if p, ok := cfg.Profile(profile); ok {
			return imageEncoding(p), true
		}
		return screen.ImageEncoding{}, false
	}
	rc.PIN = cfg.Target.Pin
	if rc.Executors == nil {
		rc.NewExecutors = func() (executors.Set, func()) {
			set := a.Executors(h.Workspace(), cfg)
			return set, func() { set.Close() }
		}
	}
	return rc
}
