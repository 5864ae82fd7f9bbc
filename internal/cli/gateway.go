package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/fleet"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/workspace"
)

// GatewayCmd runs the scheduler and the heartbeat in the foreground.
type GatewayCmd struct {
	// Verb accepts upstream's spelling, `openpocket gateway start`.
	Verb        string        `arg:"" optional:"" help:"\"start\" (optional; upstream's spelling of the same command)." placeholder:"start"`
	StopTimeout time.Duration `help:"How long to wait for cancelled jobs to finish after Ctrl-C or SIGTERM." default:"2m" placeholder:"DURATION"`
	Dashboard   string        `help:"Also serve this agent's dashboard page on HOST:PORT (beyond loopback with the install's token)." placeholder:"HOST:PORT"`
}

// GatewayServe runs the gateway (internal/gateway) until ctx ends. The
// composition root binds it (Deps.ServeGateway): front ends never import
// each other, so the CLI only hands over what the gateway is built from.
type GatewayServe func(ctx context.Context, env GatewayEnv) error

// GatewayEnv is what the gateway is built from: the agent's home and
// config, its streams, and the ports the CLI implements.
type GatewayEnv struct {
	Home *workspace.Home
	// ConfigPath is reread on SIGUSR1; Config is the effective config.
	ConfigPath string
	Config     workspace.Config
	Stderr     io.Writer
	TTY        bool
	Verbose    bool
	Logger     *slog.Logger
	// StopTimeout bounds the wait for cancelled jobs (--stop-timeout).
	StopTimeout time.Duration
	// DefaultDevice names the device of jobs without one.
	DefaultDevice string
	// NewService builds a run service from a config: the global flags'
	// device selection, each run holding its device's lease for exactly
	// the run, the workspace's executors of that config.
	NewService func(cfg workspace.Config) (*run.Service, func())
	// HumanAuth answers agent jobs' request_human_auth (the relay when
	// humanAuth.enabled; links on stderr).
	HumanAuth func(cfg workspace.Config) func(ctx context.Context, sess *engine.Session) (run.HumanAuthFunc, error)
	// KeepAwake wakes a device running a long task.
	KeepAwake func(ctx context.Context, serial string) error
	// CountDevices counts the adb server's devices and those online
	// (the heartbeat line's devices and bootedDevices).
	CountDevices func(ctx context.Context) (all, online int, err error)
	// Phones lists the adb server's phones for a fleet (fleet.go).
	Phones func(ctx context.Context) ([]fleet.Phone, error)
	// StartChannels builds the enabled chat channels over the gateway's
	// current run service (nil: none).
	StartChannels func(cfg workspace.Config, stateDir string, current GatewayCurrent, logger *slog.Logger) ([]ChatChannel, error)
}

// GatewayCurrent holds the gateway's current run service and its config
// for one piece of work; done ends the hold.
type GatewayCurrent = func() (svc *run.Service, cfg workspace.Config, done func())

// Run holds the gateway lock, starts what the gateway's runs need (the
// virtual phone, the human-auth relay, the agent's dashboard) and serves
// the gateway until Ctrl-C or SIGTERM.
func (c *GatewayCmd) Run(ctx context.Context, f services, auth *HumanAuth, deps Deps, h *workspace.Home, cfg workspace.Config) error {
	if c.Verb != "" && c.Verb != "start" {
		return UsageError{fmt.Errorf("gateway: unknown argument %q: the gateway runs in the foreground (`openpocket gateway` or `openpocket gateway start`); stop it with Ctrl-C", c.Verb)}
	}
	release, err := cron.AcquireGatewayLock(h.State())
	if err != nil {
		return err
	}
	defer release()
	if deps.ServeGateway == nil {
		return errors.New("this build has no gateway (cmd/openpocket binds Deps.ServeGateway)")
	}
	if f.g.UseSim {
		if _, err := f.phones.startSim(); err != nil {
			return err
		}
	}
	if cfg.HumanAuth.Enabled {
		// Scheduled runs have no terminal: their human-auth links point here.
		base, err := auth.startRelay(ctx, cfg.HumanAuth)
		if err != nil {
			return err
		}
		fmt.Fprintf(f.stderr, "human-auth relay: %s\n", base)
	}
	if err := startAgentDashboard(ctx, newDashboards(f, auth, deps), deps.ServeDashboard, c.Dashboard); err != nil {
		return err
	}
	return deps.ServeGateway(ctx, gatewayEnv(f, auth, deps, h, cfg, c.StopTimeout))
}

// gatewayEnv is the gateway's environment over the command's factory,
// human-auth helper and front ends, whose state is only read from here on
// (the gateway's runs use their service's config).
func gatewayEnv(f services, auth *HumanAuth, deps Deps, h *workspace.Home, cfg workspace.Config, stopTimeout time.Duration) GatewayEnv {
	env := GatewayEnv{Home: h, ConfigPath: f.g.Config, Config: cfg, Stderr: f.stderr, TTY: isTTY(f.stderr),
		Verbose: f.g.Verbose, Logger: f.logger, StopTimeout: stopTimeout, DefaultDevice: defaultDeviceName(f.phones, f.g, cfg),
		NewService: f.gatewayServices(h),
		HumanAuth: func(cfg workspace.Config) func(ctx context.Context, sess *engine.Session) (run.HumanAuthFunc, error) {
			return func(ctx context.Context, sess *engine.Session) (run.HumanAuthFunc, error) {
				return auth.forRun(ctx, cfg.HumanAuth, sess, agentRunOptions{})
			}
		},
		KeepAwake: f.phones.keepAwake,
		Phones:    fleetPhones(f.phones, cfg),
		CountDevices: func(ctx context.Context) (int, int, error) {
			devs, err := f.phones.adbClient().Devices(ctx)
			online := 0
			for _, d := range devs {
				if d.State == "device" {
					online++
				}
			}
			return len(devs), online, err
		},
	}
	if deps.StartChannels != nil {
		env.StartChannels = func(cfg workspace.Config, stateDir string, current GatewayCurrent, logger *slog.Logger) ([]ChatChannel, error) {
			return deps.StartChannels(cfg, stateDir, &ChannelRunner{f: f, home: h, auth: auth, current: current}, logger)
		}
	}
	return env
}
