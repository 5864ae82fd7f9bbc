package main

import (
	"context"
	"log/slog"

	"github.com/openpocket/openpocket/internal/cli"
	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/gateway"
	"github.com/openpocket/openpocket/internal/workspace"
)

// serveGateway runs internal/gateway over the CLI's environment: the run
// service factory, human auth, keep-awake and the chat channels the CLI
// builds (front ends never import each other, so the composition root
// joins them).
func serveGateway(ctx context.Context, env cli.GatewayEnv) error {
	o := gateway.Options{Home: env.Home, ConfigPath: env.ConfigPath, Config: env.Config, Stderr: env.Stderr, TTY: env.TTY,
		Verbose: env.Verbose, Logger: env.Logger, StopTimeout: env.StopTimeout, DefaultDevice: env.DefaultDevice,
		NewService: env.NewService, KeepAwake: env.KeepAwake, CountDevices: env.CountDevices}
	if env.HumanAuth != nil {
		o.HumanAuth = func(cfg workspace.Config) gateway.HumanAuthFor { return env.HumanAuth(cfg) }
	}
	if env.StartChannels != nil {
		o.StartChannels = func(cfg workspace.Config, stateDir string, current gateway.Current, logger *slog.Logger) ([]gateway.Channel, error) {
			chans, err := env.StartChannels(cfg, stateDir, current, logger)
			out := make([]gateway.Channel, len(chans))
			for i, ch := range chans {
				out[i] = ch
			}
			return out, err
		}
	}
	return gateway.Serve(ctx, o)
}

// jobRunner is the gateway's job runner for `openpocket cron run`: one
// payload → run mapping for scheduled and foreground runs alike.
func jobRunner(env cli.JobRunnerEnv) cron.Runner {
	return gateway.NewJobRunner(gateway.JobRunnerOptions{Service: env.Service, Base: env.Base, StateDir: env.StateDir, Warn: env.Warn,
		HumanAuth: env.HumanAuth, Agent: env.Agent, BadInput: env.BadInput})
}
