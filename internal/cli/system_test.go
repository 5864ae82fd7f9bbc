package cli

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"reflect"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	relay    func(ctx context.Context, store *humanauth.Store, addr string, phone RelayPhone) (string, func(), error)
	gateway  func(ctx context.Context, env gwenv.Gateway) error
	jobs     func(env gwenv.JobRunner) cron.Runner
	mcp      func(ctx context.Context, calls MCPCalls, o MCPServeOptions) error
	dash     func(ctx context.Context, env DashboardEnv) error
	channels func(cfg workspace.Config, stateDir string, runner *ChannelRunner, logger *slog.Logger) ([]gwenv.Channel, error)
}

var _ System = testSystem{}

func notBound(name string) error { return errors.New("this test binds no " + name) }

func (s testSystem) StartRelay(ctx context.Context, store *humanauth.Store, addr string, phone RelayPhone) (string, func(), error) {
	if s.relay == nil {
		return "", func() {}, nil // no relay here: links name the configured address
	}
	return s.relay(ctx, store, addr, phone)
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

func (s testSystem) ServeMCP(ctx context.Context, calls MCPCalls, o MCPServeOptions) error {
	if s.mcp == nil {
		return notBound("MCP server")
	}
	return s.mcp(ctx, calls, o)
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

// bindRecorder records the types bindDeps binds.
type bindRecorder map[reflect.Type]bool

func (r bindRecorder) Bind(args ...any) {
	for _, a := range args {
		r[reflect.TypeOf(a)] = true
	}
}

func (r bindRecorder) BindTo(_, iface any) { r[reflect.TypeOf(iface).Elem()] = true }

func (r bindRecorder) BindSingletonProvider(provider any) error {
	r[reflect.TypeOf(provider).Out(0)] = true
	return nil
}

// Every parameter of every command's Run is something MainWith binds: a
// parameter nothing binds fails only when that command runs (kong
// resolves Run's parameters then), so this walks the whole grammar.
func TestEveryRunParameterIsBound(t *testing.T) {
	bound := bindRecorder{}
	app := &App{sys: testSystem{}, Stdout: io.Discard, Stderr: io.Discard, Ctx: context.Background()}
	require.NoError(t, bindDeps(bound, app.Ctx, app))
	bound[reflect.TypeOf(&kong.Context{})] = true // kong binds its own
	parser, err := kong.New(&CLI{}, kong.Name("openpocket"))
	require.NoError(t, err)
	runs := 0
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		for _, c := range n.Children {
			walk(c)
		}
		if !n.Target.IsValid() || !n.Target.CanAddr() {
			return
		}
		m, ok := n.Target.Addr().Type().MethodByName("Run")
		if !ok {
			return
		}
		runs++
		for i := 1; i < m.Type.NumIn(); i++ { // 0 is the receiver
			if pt := m.Type.In(i); !bound[pt] {
				t.Errorf("%s: Run's parameter %d (%s) is bound by nothing in MainWith", n.Path(), i, pt)
			}
		}
	}
	walk(parser.Model.Node)
	assert.Greater(t, runs, 30, "the walk reached the commands")
}
