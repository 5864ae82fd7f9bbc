// Command openpocket is the composition root: it hands the process's
// arguments and streams to the CLI, with the front ends the CLI starts
// (the human-auth relay, chat channels, the MCP server), and exits with the
// code it returns.
package main

import (
	"context"
	"errors"
	"os"
	// Cron jobs name time zones; embed the zone database so schedules work
	// on machines without tzdata.
	_ "time/tzdata"

	"github.com/openpocket/openpocket/internal/cli"
	"github.com/openpocket/openpocket/internal/humanauth"
	"github.com/openpocket/openpocket/internal/mcp"
	"github.com/openpocket/openpocket/internal/relay"
	"github.com/openpocket/openpocket/internal/wire"
)

func main() {
	setMemoryLimit()
	os.Exit(cli.MainWith(context.Background(), os.Args[1:], os.Stdout, os.Stderr, deps()))
}

// deps binds the front ends to the CLI (front ends never import each
// other, so the composition root does).
func deps() cli.Deps {
	return cli.Deps{StartRelay: startRelay, StartChannels: startChannels, ServeMCP: serveMCP, ServeDashboard: serveDashboard,
		ServeGateway: serveGateway, JobRunner: jobRunner, Assembly: wire.New()}
}

func startRelay(ctx context.Context, store *humanauth.Store, addr string, phone cli.RelayPhone) (string, func(), error) {
	return relay.Start(ctx, store, relay.Options{Addr: addr, Phone: phone})
}

// serveMCP runs internal/mcp over the CLI's backend, which satisfies
// mcp.Runner.
// A refused --http address is bad input (exit 2).
func serveMCP(ctx context.Context, b *cli.MCPBackend, o cli.MCPServeOptions) error {
	err := mcp.Serve(ctx, b, o.Stdin, o.Stdout, mcp.Options{Version: o.Version, Logger: o.Logger, HTTP: o.HTTP, Token: o.Token})
	if ae := (*mcp.AddressError)(nil); errors.As(err, &ae) {
		return cli.UsageError{Err: err}
	}
	return err
}
