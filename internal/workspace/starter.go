package workspace

import (
	"fmt"
	"github.com/openpocket/openpocket/engine/hostfs"
	"path/filepath"
)

// The starter layout a fresh workspace gets, as upstream's
// ensureWorkspaceBootstrap lays it out: a README in each folder saying
// what goes there, scripts/runs/, and cron/jobs.json holding one example
// job, disabled, to copy from. Files are written only when missing, so a
// person's edits (or a removed example) stay as they are.

var starterReadmes = map[string]string{
	"memory/README.md": "# Memory\n\nDaily notes, one file per day (YYYY-MM-DD.md), appended after each task.\n" +
		"MEMORY.md beside this folder holds what should be remembered for good.\n" +
		"memory_search and memory_get read only these files.\n",
	"skills/README.md": "# Skills\n\nSkill files (*.md) for this workspace. They take priority over the install's\n" +
		"and the bundled skills; auto/ holds the ones written after successful runs.\n",
	"scripts/README.md": "# Scripts\n\nHelper scripts for run_script. Each run keeps its script, output and\n" +
		"result under runs/run-<id>/; auto/ holds replay scripts of successful runs.\n",
	"cron/README.md": "# Scheduled jobs\n\njobs.json lists the jobs the gateway runs. Change it with `openpocket cron add`,\n" +
		"`cron enable|disable|remove ID` (or ask the agent: cron_add, cron_update, cron_remove)\n" +
		"rather than by hand while the gateway runs; `openpocket cron list` shows problems.\n\n" +
		"Each job: id, name, enabled, schedule {kind cron|at|every, expr, at, everyMs, tz,\n" +
		"summaryText}, payload {kind agent_turn, task} (or playbook/lua), delivery {channel, to},\n" +
		"model, promptMode, createdAt, updatedAt, createdBy, runOnStartup, device.\n" +
		"The example job is disabled: enable it with `openpocket cron enable example-status-check`.\n",
}

// starterJobs is cron/jobs.json with the disabled example job (%s: the
// creation time).
const starterJobs = `{
  "version": 2,
  "jobs": [
    {
      "id": "example-status-check",
      "name": "Example: hourly status check",
      "enabled": false,
      "schedule": {
        "kind": "every",
        "everyMs": 3600000,
        "tz": "UTC",
        "summaryText": "every hour"
      },
      "payload": {
        "kind": "agent_turn",
        "task": "Open Settings and check that the phone is connected to a network."
      },
      "delivery": null,
      "model": null,
      "promptMode": "minimal",
      "createdAt": %[1]q,
      "updatedAt": %[1]q,
      "createdBy": "workspace_seed",
      "runOnStartup": false
    }
  ]
}
`

// ensureStarter writes the starter files that are missing.
func (h *Home) ensureStarter() error {
	ws := h.Workspace()
	if err := hostfs.MkdirAll(ws, filepath.Join(ws, "scripts", "runs"), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Join(ws, "scripts", "runs"), err)
	}
	for name, text := range starterReadmes {
		if err := writeIfMissing(ws, filepath.Join(ws, name), []byte(text)); err != nil {
			return err
		}
	}
	// Only the workspace's own jobs file: one configured elsewhere is the
	// person's.
	jobs := filepath.Join(ws, "cron", "jobs.json")
	if h.JobsPath() != jobs {
		return nil
	}
	return writeIfMissing(ws, jobs, fmt.Appendf(nil, starterJobs, isoTime(h.Now())))
}

// writeIfMissing creates path under the workspace ws unless something is
// there already (a link, even, is left alone and never followed).
func writeIfMissing(ws, path string, data []byte) error {
	_, err := hostfs.WriteNew(ws, path, data, 0o644)
	return err
}
