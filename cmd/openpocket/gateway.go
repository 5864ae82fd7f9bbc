package main

import (
	"context"

	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/gateway"
	"github.com/openpocket/openpocket/internal/gwenv"
)

// ServeGateway runs internal/gateway over the environment the CLI fills
// in (the run service factory, human auth, keep-awake, the chat channels
// it builds over this application's StartChannels); front ends never
// import each other, so the composition root hands it over.
func (*application) ServeGateway(ctx context.Context, env gwenv.Gateway) error {
	return gateway.Serve(ctx, gateway.Options{Gateway: env})
}

// NewJobRunner is the gateway's job runner for `openpocket cron run` and
// the dashboards' "Run now": one payload → run mapping for scheduled and
// foreground runs alike.
func (*application) NewJobRunner(env gwenv.JobRunner) cron.Runner {
	return gateway.NewJobRunner(env)
}
