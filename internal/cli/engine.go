package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/executor/coding"
	"github.com/openpocket/openpocket/internal/executor/memory"
	"github.com/openpocket/openpocket/internal/executor/script"
	"github.com/openpocket/openpocket/internal/llm"
	"github.com/openpocket/openpocket/internal/workspace"
)

// home opens OPENPOCKET_HOME once per command (created on first use) and
// applies --config when given.
func (a *App) home() (*workspace.Home, error) {
	if a.ws != nil {
		return a.ws, nil
	}
	h, err := workspace.Open(a.Home)
	if err != nil {
		return nil, UsageError{err}
	}
	a.ws = h
	a.cfg = h.Config()
	for _, w := range h.Warnings() {
		fmt.Fprintf(a.Stderr, "warning: %s\n", w)
	}
	if a.Config != "" {
		cfg, warns, err := workspace.LoadConfigWarnings(a.Config)
		if err != nil {
			return nil, UsageError{err}
		}
		for _, w := range warns {
			fmt.Fprintf(a.Stderr, "warning: %s\n", w)
		}
		a.cfg = cfg
	}
	return h, nil
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
	c, err := llm.New(llm.Profile{Name: profile, BaseURL: p.BaseURL, Model: p.Model, APIKey: p.APIKey, APIKeyEnv: p.APIKeyEnv,
		MaxTokens: p.MaxTokens, ReasoningEffort: p.ReasoningEffort, Temperature: p.Temperature},
		llm.Options{Modes: modes, Logger: a.Logger})
	if err != nil {
		return nil, UsageError{fmt.Errorf("model profile %q: %w", profile, err)}
	}
	return c, nil
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
		Logger:       a.Logger,
		Executors:    buildExecutors(h, cfg),
	}
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

// buildExecutors wires the executors behind the engine's Executor port from
// config: run_script, the coding tools (when enabled) and the memory tools.
func buildExecutors(h *workspace.Home, cfg workspace.Config) map[string]engine.Executor {
	ws := h.Workspace()
	sc := cfg.ScriptExecutor
	m := map[string]engine.Executor{
		"run_script": script.New(ws, script.Config{AllowedCommands: sc.AllowedCommands, TimeoutSec: sc.TimeoutSec, MaxOutputChars: sc.MaxOutputChars}),
	}
	if ct := cfg.CodingTools; ct.Enabled {
		co := coding.New(ws, coding.Config{WorkspaceOnly: ct.WorkspaceOnly, TimeoutSec: ct.TimeoutSec, MaxOutputChars: ct.MaxOutputChars,
			AllowBackground: ct.AllowBackground, ApplyPatchEnabled: ct.ApplyPatchEnabled, AllowedCommands: ct.AllowedCommands})
		for _, t := range []string{"read", "write", "edit", "apply_patch", "exec", "process"} {
			m[t] = co
		}
	}
	mt := cfg.MemoryTools
	me := memory.New(ws, memory.Config{MaxResults: mt.MaxResults, MinScore: mt.MinScore, MaxSnippetChars: mt.MaxSnippetChars})
	m["memory_search"], m["memory_get"] = me, me
	return m
}
