package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/llm"
	"github.com/openpocket/openpocket/internal/skills"
	"github.com/openpocket/openpocket/internal/workspace"
	"github.com/openpocket/openpocket/lua"
	"github.com/openpocket/openpocket/stdlib"
	"github.com/openpocket/openpocket/stdlib/executors"
	"github.com/openpocket/openpocket/stdlib/skillsmod"
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
	cfg := a.cfg
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

// phoneOptions derive the device layer's tuning from config.
func (a *App) phoneOptions() device.Options {
	o := device.Options{}
	if a.ws != nil {
		if ms := a.cfg.Device.SettleTimeoutMs; ms > 0 {
			o.SettleTimeout = time.Duration(ms) * time.Millisecond
		}
	}
	return o
}

// engineOptions choose what a run needs.
type engineOptions struct {
	// Model names the profile to load ("" with WithModel = default).
	Model     string
	WithModel bool
	// Persist gives the engine the workspace (sessions, memory).
	Persist bool
}

// newEngine composes an engine for one run.
func (a *App) newEngine(o engineOptions) (*engine.Engine, error) {
	h, err := a.home()
	if err != nil {
		return nil, err
	}
	cfg := a.cfg
	if a.Device == "" && a.Target == "" && !a.UseSim {
		a.Device, a.Target = cfg.Target.Device, cfg.Target.AdbEndpoint
	}
	e := &engine.Engine{
		OpenDevice:   a.openDevice,
		PhoneOptions: a.phoneOptions(),
		Logger:       a.logger(),
	}
	set, err := a.executorSet()
	if err != nil {
		return nil, err
	}
	e.Executors = set.Actions(executors.VMRunner(a.luaRegistry(set), func(ctx context.Context) any {
		if s := engine.SessionFrom(ctx); s != nil {
			return s
		}
		return nil
	}))
	_ = h
	if o.Persist {
		e.Workspace = h
	}
	if o.WithModel {
		m, err := a.model(o.Model)
		if err != nil {
			return nil, err
		}
		e.Model = m
	}
	return e, nil
}

// session starts a run on a fresh engine.
func (a *App) session(ctx context.Context, e *engine.Engine, opts engine.SessionOptions) (*engine.Session, error) {
	return e.NewSession(ctx, opts)
}

// executorSet opens the workspace's executors once per command; background
// exec sessions end with it.
func (a *App) executorSet() (*executors.Set, error) {
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

// luaRegistry is the module set every run sees: the standard library plus
// the executor modules (script, fs, exec, process, memory) and skills.
func (a *App) luaRegistry(set *executors.Set) *lua.Registry {
	return stdlib.Registry(a.luaModules(set, a.skillLoader())...)
}

// luaModules are the modules added to the standard library for CLI runs.
func (a *App) luaModules(set *executors.Set, loader *skills.Loader) []lua.Module {
	return append(set.Modules(), skillsmod.New(loader))
}

// skillLoader finds skills: bundled, OPENPOCKET_HOME/skills, workspace/skills.
func (a *App) skillLoader() *skills.Loader {
	l := &skills.Loader{}
	if a.ws != nil {
		l.HomeDir, l.WorkspaceDir = a.ws.Dir(), a.ws.Workspace()
	}
	return l
}
