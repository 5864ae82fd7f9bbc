package main

import (
	"context"
	"errors"

	"github.com/openpocket/openpocket/internal/cli"
	"github.com/openpocket/openpocket/internal/humanauth"
	"github.com/openpocket/openpocket/internal/mcp"
	"github.com/openpocket/openpocket/internal/mcp/backend"
	"github.com/openpocket/openpocket/internal/relay"
	"github.com/openpocket/openpocket/internal/wire"
)

// application is the whole program as it is assembled, in one place (as
// tailscale's tsd.System is): the adapters behind every run service
// (internal/wire: model clients, executor sets, run services) and the
// front ends the CLI starts but may not import — the human-auth relay, the
// gateway and its job runner, chat channels, the MCP server and the
// dashboards. main builds one and hands it to the CLI, whose commands see
// it only through the narrow interfaces they declare (cli.System: Relay,
// GatewayServer, JobRunners, MCPServer, DashboardServer, ChannelStarter,
// Assembly). Each front end's method lives next to its glue: StartRelay
// and ServeMCP here, ServeGateway and NewJobRunner in gateway.go,
// StartChannels in channels.go, ServeDashboard (pages over
// internal/dashboard/backend, with the relay hub) in dashboardhub.go.
type application struct {
	wire.Assembly
}

var _ cli.System = (*application)(nil)

// newApplication assembles the program.
func newApplication() *application {
	return &application{Assembly: wire.New()}
}

// StartRelay serves the human-auth relay over store on addr.
func (*application) StartRelay(ctx context.Context, store *humanauth.Store, addr string, phone cli.RelayPhone) (string, func(), error) {
	return relay.Start(ctx, store, relay.Options{Addr: addr, Phone: phone})
}

// ServeMCP runs internal/mcp over its backend on the command's calls. A
// refused --http address is bad input (exit 2).
func (*application) ServeMCP(ctx context.Context, calls cli.MCPCalls, o cli.MCPServeOptions) error {
	b := backend.New(backend.Env{Home: o.Home, Config: o.Config, Port: calls, ADBServer: o.ADBServer, Warn: o.Warn})
	defer b.Close()
	err := mcp.Serve(ctx, b, o.Stdin, o.Stdout, mcp.Options{Version: o.Version, Logger: o.Logger, HTTP: o.HTTP, Token: o.Token})
	if ae := (*mcp.AddressError)(nil); errors.As(err, &ae) {
		return cli.UsageError{Err: err}
	}
	return err
}
