package cli

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/gwenv"
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

// Run holds the gateway lock, starts what the gateway's runs need (the
// virtual phone, the human-auth relay, the agent's dashboard) and serves
// the gateway until Ctrl-C or SIGTERM.
func (c *GatewayCmd) Run(ctx context.Context, f services, auth *HumanAuth, gw GatewayServer, channels ChannelStarter, dash DashboardServer,
	jobs JobRunners, h *workspace.Home, cfg workspace.Config) error {
	if c.Verb != "" && c.Verb != "start" {
		return UsageError{fmt.Errorf("gateway: unknown argument %q: the gateway runs in the foreground (`openpocket gateway` or `openpocket gateway start`); stop it with Ctrl-C", c.Verb)}
	}
	release, err := cron.AcquireGatewayLock(h.State())
	if err != nil {
		return err
	}
	defer release()
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
	if err := startAgentDashboard(ctx, newDashboards(f, auth, jobs), dash, c.Dashboard); err != nil {
		return err
	}
	return gw.ServeGateway(ctx, gatewayEnv(f, auth, channels, h, cfg, c.StopTimeout))
}

// gatewayEnv is the gateway's environment over the command's factory,
// human-auth helper and front ends, whose state is only read from here on
// (the gateway's runs use their service's config).
func gatewayEnv(f services, auth *HumanAuth, channels ChannelStarter, h *workspace.Home, cfg workspace.Config, stopTimeout time.Duration) gwenv.Gateway {
	env := gwenv.Gateway{Home: h, ConfigPath: f.g.Config, Config: cfg, Stderr: f.stderr, TTY: isTTY(f.stderr),
		Verbose: f.g.Verbose, Logger: f.logger, StopTimeout: stopTimeout, DefaultDevice: defaultDeviceName(f.phones, f.g, cfg),
		NewService: f.gatewayServices(h),
		HumanAuth: func(cfg workspace.Config) func(ctx context.Context, sess *engine.Session) (run.HumanAuthFunc, error) {
			return func(ctx context.Context, sess *engine.Session) (run.HumanAuthFunc, error) {
				return auth.forRun(ctx, cfg.HumanAuth, sess, agentRunOptions{})
			}
		},
		KeepAwake: f.phones.keepAwake,
		Phones:    fleetPhones(f.phones, cfg),
		Agent:     f.g.agentID(),
		Agents:    fleetAgents(f.g, cfg),
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
	env.StartChannels = func(cfg workspace.Config, stateDir string, current gwenv.Current, logger *slog.Logger) ([]gwenv.Channel, error) {
		return channels.StartChannels(cfg, stateDir, &ChannelRunner{f: f, home: h, auth: auth, current: current}, logger)
	}
	return env
}
