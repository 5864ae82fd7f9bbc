package cli

import (
	"github.com/openpocket/openpocket/internal/executor/coding"
	"github.com/openpocket/openpocket/internal/executor/memory"
	"github.com/openpocket/openpocket/internal/executor/script"
	"github.com/openpocket/openpocket/internal/workspace"
	"github.com/openpocket/openpocket/lua"
	"github.com/openpocket/openpocket/stdlib"
	"github.com/openpocket/openpocket/stdlib/executors"
)

// executorConfigFrom maps config.json's scriptExecutor, codingTools and
// memoryTools to the executors' configuration. Every configured value is
// honoured as given; zero numbers mean the executors' own defaults.
func executorConfigFrom(cfg workspace.Config) executors.Config {
	se, ct, mt := cfg.ScriptExecutor, cfg.CodingTools, cfg.MemoryTools
	return executors.Config{
		Script: script.Config{
			AllowedCommands: se.AllowedCommands,
			TimeoutSec:      se.TimeoutSec,
			MaxOutputChars:  se.MaxOutputChars,
		},
		Coding: coding.Config{
			WorkspaceOnly:     ct.WorkspaceOnly,
			TimeoutSec:        ct.TimeoutSec,
			MaxOutputChars:    ct.MaxOutputChars,
			AllowBackground:   ct.AllowBackground,
			ApplyPatchEnabled: ct.ApplyPatchEnabled,
			AllowedCommands:   ct.AllowedCommands,
		},
		CodingDisabled: !ct.Enabled,
		Memory: memory.Config{
			MaxResults:      mt.MaxResults,
			MinScore:        mt.MinScore,
			MaxSnippetChars: mt.MaxSnippetChars,
		},
	}
}

// openExecutors builds the executors of OPENPOCKET_HOME/workspace (the
// home from --home, $OPENPOCKET_HOME or ~/.openpocket, created with its
// workspace/scripts and workspace/memory directories on first use) from
// the effective configuration (--config when given). The caller closes the
// set.
func (a *App) openExecutors() (*executors.Set, error) {
	h, err := a.home()
	if err != nil {
		return nil, err
	}
	cfg, err := a.config()
	if err != nil {
		return nil, err
	}
	return executors.New(h.Workspace(), executorConfigFrom(cfg)), nil
}

// newScriptRegistry builds the registry Lua scripts run by the CLI see:
// the whole standard library plus the executor modules.
var newScriptRegistry = func(mods ...lua.Module) *lua.Registry { return stdlib.Registry(mods...) }
