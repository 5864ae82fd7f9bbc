package cli

import (
	"context"

	"github.com/openpocket/openpocket/internal/cron"
)

// failedRunner runs no job: every run fails with err (the command's run
// service could not be built).
type failedRunner struct{ err error }

func (f failedRunner) Run(context.Context, cron.Job) (bool, string, error) {
	return false, f.err.Error(), f.err
}
