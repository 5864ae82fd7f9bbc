package cli

import (
	"context"
	"io"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/run"
)

// JobRunnerFactory builds the cron.Runner that maps a job's payload to a
// run: the gateway's own (internal/gateway's job runner), bound by the
// composition root (Deps.JobRunner), so `cron run` and the gateway run a
// job the same way and the CLI keeps no copy of that mapping.
type JobRunnerFactory func(env JobRunnerEnv) cron.Runner

// JobRunnerEnv is what a job runner for `cron run` is built from.
type JobRunnerEnv struct {
	// Service is the command's run service (leases held until it ends).
	Service *run.Service
	// Base resolves relative payload paths (the workspace).
	Base string
	// StateDir holds the key that signs the payload paths `cron add`
	// wrote (an unsigned path outside Base is refused).
	StateDir string
	// Warn receives playbook compile warnings.
	Warn io.Writer
	// HumanAuth builds an agent run's human-auth answerer.
	HumanAuth func(ctx context.Context, sess *engine.Session) (run.HumanAuthFunc, error)
	// Agent is the template of agent runs: the terminal and progress.
	Agent run.AgentOptions
	// BadInput marks bad input's errors (exit 2).
	BadInput func(error) error
}

// failedRunner runs no job: every run fails with err (the command's run
// service could not be built).
type failedRunner struct{ err error }

func (f failedRunner) Run(context.Context, cron.Job) (bool, string, error) {
	return false, f.err.Error(), f.err
}
