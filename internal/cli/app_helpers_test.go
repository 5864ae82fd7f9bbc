package cli

import (
	"context"
	"io"
	"log/slog"

	"github.com/openpocket/openpocket/engine"
)

// Test helpers over an App built in a test (moved here from the command
// code: no command needs them, the tests drive the App's providers).

// agents is the Agents of the App's home and config.
func (a *App) agents() (*Agents, error) {
	h, err := a.home()
	if err != nil {
		return nil, err
	}
	cfg, err := a.config()
	if err != nil {
		return nil, err
	}
	return newAgents(a.humanAuth(), h, cfg), nil
}

// runAgent runs one agent task on the App's run service. A non-nil error
// with an empty result means nothing ran.
func (a *App) runAgent(ctx context.Context, task string, o agentRunOptions) (engine.RunResult, error) {
	svc, err := a.runService()
	if err != nil {
		return engine.RunResult{}, err
	}
	ag, err := a.agents()
	if err != nil {
		return engine.RunResult{}, err
	}
	return ag.run(ctx, svc, task, o)
}

// runLogger is the logger of one run that has a log file: records reach
// the terminal per its level and always the file, at every level.
func (a *App) runLogger(file io.Writer) *slog.Logger {
	return slog.New(slog.NewMultiHandler(a.logger().Handler(), newHumanHandler(file, slog.LevelDebug)))
}
