package wire

import (
	"github.com/openpocket/openpocket/internal/executor/coding"
	"github.com/openpocket/openpocket/internal/executor/execset"
	"github.com/openpocket/openpocket/internal/executor/memory"
	"github.com/openpocket/openpocket/internal/executor/script"
	"github.com/openpocket/openpocket/internal/sandbox"
	"github.com/openpocket/openpocket/internal/workspace"
)

// executorConfigFrom maps config.json's scriptExecutor, codingTools and
// memoryTools to the executors' configuration. Every configured value is
// honoured as given; zero numbers mean the executors' own defaults.
func executorConfigFrom(cfg workspace.Config) execset.Config {
	se, ct, mt := cfg.ScriptExecutor, cfg.CodingTools, cfg.MemoryTools
	box, limits := sandboxFrom(se)
	return execset.Config{
		Script: script.Config{
			AllowedCommands: se.AllowedCommands,
			TimeoutSec:      se.TimeoutSec,
			MaxOutputChars:  se.MaxOutputChars,
			Sandbox:         box,
			Limits:          limits,
		},
		Coding: coding.Config{
			WorkspaceOnly:     ct.WorkspaceOnly,
			TimeoutSec:        ct.TimeoutSec,
			MaxOutputChars:    ct.MaxOutputChars,
			AllowBackground:   ct.AllowBackground,
			ApplyPatchEnabled: ct.ApplyPatchEnabled,
			AllowedCommands:   ct.AllowedCommands,
			Sandbox:           box,
			Limits:            limits,
		},
		CodingDisabled: !ct.Enabled,
		Memory: memory.Config{
			MaxResults:      mt.MaxResults,
			MinScore:        mt.MinScore,
			MaxSnippetChars: mt.MaxSnippetChars,
		},
	}
}

// sandboxFrom maps scriptExecutor.sandbox and scriptExecutor.limits (the
// config is validated: the mode is "auto" or "off").
func sandboxFrom(se workspace.ScriptExecutorConfig) (*sandbox.Sandbox, sandbox.Limits) {
	mode, _ := sandbox.ParseMode(se.Sandbox)
	const mb = 1 << 20
	l := se.Limits
	return sandbox.New(mode, nil), sandbox.Limits{
		CPUSeconds:  uint64(l.CPUSec),
		MemoryBytes: uint64(l.MemoryMB) * mb,
		Processes:   uint64(l.Processes),
		FileBytes:   uint64(l.FileSizeMB) * mb,
		OpenFiles:   uint64(l.OpenFiles),
	}
}
