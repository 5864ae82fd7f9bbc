package cli

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/gwenv"
	"github.com/openpocket/openpocket/internal/humanauth"
	"github.com/openpocket/openpocket/internal/wire"
	"github.com/openpocket/openpocket/internal/workspace"
)

// testSystem is the application of the CLI's tests: the real adapter
// assembly, as cmd/openpocket assembles it, and front ends a test binds
// when it needs one (nil: the front end fails the command, naming itself).
type testSystem struct {
	wire.Assembly
	relay    func(ctx context.Context, store *humanauth.Store, addr string) (string, func(), error)
	gateway  func(ctx context.Context, env gwenv.Gateway) error
	jobs     func(env gwenv.JobRunner) cron.Runner
	mcp      func(ctx context.Context, b *MCPBackend, o MCPServeOptions) error
	dash     func(ctx context.Context, env DashboardEnv) error
	channels func(cfg workspace.Config, stateDir string, runner *ChannelRunner, logger *slog.Logger) ([]gwenv.Channel, error)
}

var _ System = testSystem{}

func notBound(name string) error { return errors.New("this test binds no " + name) }

func (s testSystem) StartRelay(ctx context.Context, store *humanauth.Store, addr string) (string, func(), error) {
	if s.relay == nil {
		return "", func() {}, nil // no relay here: links name the configured address
	}
	return s.relay(ctx, store, addr)
}

func (s testSystem) ServeGateway(ctx context.Context, env gwenv.Gateway) error {
	if s.gateway == nil {
		return notBound("gateway")
	}
	return s.gateway(ctx, env)
}

func (s testSystem) NewJobRunner(env gwenv.JobRunner) cron.Runner {
	if s.jobs == nil {
		return failedRunner{notBound("job runner")}
	}
	return s.jobs(env)
}

func (s testSystem) ServeMCP(ctx context.Context, b *MCPBackend, o MCPServeOptions) error {
	if s.mcp == nil {
		return notBound("MCP server")
	}
	return s.mcp(ctx, b, o)
}

func (s testSystem) ServeDashboard(ctx context.Context, env DashboardEnv) error {
	if s.dash == nil {
		return notBound("dashboard")
	}
	return s.dash(ctx, env)
}

func (s testSystem) StartChannels(cfg workspace.Config, stateDir string, runner *ChannelRunner, logger *slog.Logger) ([]gwenv.Channel, error) {
	if s.channels == nil {
		return nil, nil
	}
	return s.channels(cfg, stateDir, runner, logger)
}

// Main is MainWith over the tests' application.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return MainWith(ctx, args, stdout, stderr, testSystem{})
}
