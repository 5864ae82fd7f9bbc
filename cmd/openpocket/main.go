// Command openpocket is the composition root: it hands the process's
// arguments and streams to the CLI, with the front ends the CLI starts
// (the human-auth relay, chat channels), and exits with the code it returns.
package main

import (
	"context"
	"os"
	// Cron jobs name time zones; embed the zone database so schedules work
	// on machines without tzdata.
	_ "time/tzdata"

	"github.com/openpocket/openpocket/internal/cli"
	"github.com/openpocket/openpocket/internal/humanauth"
	"github.com/openpocket/openpocket/internal/relay"
)

func main() {
	cli.DashboardServer = serveDashboard
	os.Exit(cli.MainWith(context.Background(), os.Args[1:], os.Stdout, os.Stderr, cli.Deps{StartRelay: startRelay, StartChannels: startChannels}))
}

func startRelay(ctx context.Context, store *humanauth.Store, addr string) (string, func(), error) {
	return relay.Start(ctx, store, relay.Options{Addr: addr})
}
