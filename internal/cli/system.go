package cli

import (
	"context"
	"log/slog"

	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/gwenv"
	"github.com/openpocket/openpocket/internal/humanauth"
	"github.com/openpocket/openpocket/internal/workspace"
)

// System is the application the composition root assembles and hands to
// MainWith (cmd/openpocket's application, its one file app.go): the
// adapters (Assembly) and the front ends the CLI starts but may not import
// (front ends never import each other). No command takes it whole:
// MainWith binds each narrow interface below, and a command's Run
// declares the ones it uses, so reading a Run's parameters says what the
// command reaches outside the CLI.
type System interface {
	Assembly
	Relay
	GatewayServer
	JobRunners
	MCPServer
	DashboardServer
	ChannelStarter
}

// Relay starts the human-auth web relay (internal/relay) on addr over
// store and returns its base URL; phone serves the page's live screen and
// takeover taps.
type Relay interface {
	StartRelay(ctx context.Context, store *humanauth.Store, addr string, phone RelayPhone) (base string, stop func(), err error)
}

// RelayPhone is the relay page's way to the phone a request names (by
// serial): its current screen, and the taps of a person who takes over
// (internal/relay.Phone has the same methods).
type RelayPhone interface {
	Screen(ctx context.Context, serial string) ([]byte, error)
	Tap(ctx context.Context, serial string, x, y int) error
}

// GatewayServer runs the gateway (internal/gateway) until ctx ends.
type GatewayServer interface {
	ServeGateway(ctx context.Context, env gwenv.Gateway) error
}

// JobRunners builds the cron.Runner that maps a job's payload to a run:
// the gateway's own, so `cron run`, the dashboards' "Run now" and the
// gateway run a job the same way and the CLI keeps no copy of that
// mapping.
type JobRunners interface {
	NewJobRunner(env gwenv.JobRunner) cron.Runner
}

// MCPServer serves the MCP server (internal/mcp) over a backend on calls
// (internal/mcp/backend) until ctx ends or the client disconnects.
type MCPServer interface {
	ServeMCP(ctx context.Context, calls MCPCalls, o MCPServeOptions) error
}

// DashboardServer serves the dashboards (internal/dashboard) until ctx
// ends.
type DashboardServer interface {
	ServeDashboard(ctx context.Context, env DashboardEnv) error
}

// ChannelStarter builds the chat channels (internal/channel/...) cfg
// enables over runner; none enabled is an empty list. stateDir is the
// agent's state directory (chat histories live there).
type ChannelStarter interface {
	StartChannels(cfg workspace.Config, stateDir string, runner *ChannelRunner, logger *slog.Logger) ([]gwenv.Channel, error)
}

// bindSystem binds each of sys's interfaces for the commands' Run methods.
func bindSystem(bind func(impl, iface any), sys System) {
	bind(sys, (*System)(nil)) // help re-enters MainWith with it
	bind(sys, (*Assembly)(nil))
	bind(sys, (*Relay)(nil))
	bind(sys, (*GatewayServer)(nil))
	bind(sys, (*JobRunners)(nil))
	bind(sys, (*MCPServer)(nil))
	bind(sys, (*DashboardServer)(nil))
	bind(sys, (*ChannelStarter)(nil))
}
