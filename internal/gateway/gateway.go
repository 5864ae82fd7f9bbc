// Package gateway is the long-running front end that runs an agent's
// scheduled jobs (internal/cron) on the run service (internal/run), writes
// the heartbeat, runs the chat channels and reloads config and jobs on
// SIGUSR1. It depends on the run service and on small ports the
// composition root binds (a run service factory, keep-awake, human auth,
// chat channels); it never imports internal/cli or another front end.
package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/fleet"
	"github.com/openpocket/openpocket/internal/gwenv"
	"github.com/openpocket/openpocket/internal/workspace"
)

// Options are what a gateway is built from: the environment the CLI
// fills in (gwenv.Gateway; the composition root hands it over unchanged)
// and the tests' hooks.
type Options struct {
	gwenv.Gateway

	// Tests: a fake clock, fake run functions and a hook that gets the
	// running gateway.
	clock   clockwork.Clock
	runsFor runsFor
	started func(*Gateway)
}

// HumanAuthFor builds an agent run's human-auth answerer once its session
// exists (run.AgentOptions.HumanAuthFor).
type HumanAuthFor = gwenv.HumanAuthFor

// Current holds the gateway's current run service and the config it was
// built from for one piece of work; done ends the hold.
type Current = gwenv.Current

// Channel is a chat front end the gateway runs (internal/channel's).
type Channel = gwenv.Channel

// Gateway is one running gateway.
type Gateway struct {
	opts      Options
	home      *workspace.Home
	clock     clockwork.Clock
	sched     *cron.Scheduler
	fleet     *fleet.Fleet // nil outside a fleet
	print     *printer
	jobsPath  string
	statePath string

	// mu guards the config, the run service (reload vs. job start) and
	// the heartbeat.
	mu       sync.Mutex
	cfg      workspace.Config
	gen      *serviceGen
	hbCancel context.CancelFunc
	hbDone   chan struct{}

	// The control socket's server (control.go).
	ctlCancel context.CancelFunc
	ctlDone   chan struct{}

	// Chat channels (channels.* in config.json) and their goroutines.
	// chMu guards channels, chReady and early: runOnStartup jobs can finish
	// before the channels have started, and their results wait in early
	// until they have (channelsReady).
	chMu     sync.Mutex
	channels []Channel
	chReady  bool
	early    []cron.Event
	chCancel context.CancelFunc
	chWG     sync.WaitGroup
}

// Serve runs the jobs of the jobs file and writes the heartbeat until ctx
// ends (Ctrl-C or SIGTERM), then cancels running jobs and waits for them.
// SIGUSR1 reloads config.json and the jobs file. The caller holds the
// gateway lock.
func Serve(ctx context.Context, o Options) error {
	g, err := newGateway(o)
	if err != nil {
		return err
	}
	g.print.line("●", "gateway started (pid %d): jobs %s, checked every %ds; heartbeat every %ds to %s",
		os.Getpid(), g.jobsPath, g.cfg.Cron.TickSec, g.cfg.Heartbeat.EverySec, g.heartbeatPath())

	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	defer signal.Stop(usr1)

	g.startFleet() // before the first tick: the fleet knows this host's phones
	// Not ctx: stop cancels the running jobs itself, after saying so.
	if err := g.sched.Start(context.Background()); err != nil {
		g.closeFleet()
		return err
	}
	g.startHeartbeat()
	g.startControl()
	if err := g.startChannels(); err != nil {
		_ = g.stop(o.StopTimeout)
		return err
	}
	if o.started != nil {
		o.started(g)
	}
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-usr1:
			g.print.line("↻", "SIGUSR1: reloading config and jobs")
			_ = g.Reload() // errors are printed
		}
	}
	return g.stop(o.StopTimeout)
}

// deadlineOf is ctx's deadline (now when it has none).
func deadlineOf(ctx context.Context) time.Time {
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return time.Now()
}

// newGateway builds the gateway's scheduler over the jobs file and state, its
// printer, its run service (rebuilt on reload) and its job runner, which
// runs each job on the current service with the job's device.
func newGateway(o Options) (*Gateway, error) {
	clock := o.clock
	if clock == nil {
		clock = clockwork.NewRealClock()
	}
	h := o.Home
	g := &Gateway{opts: o, home: h, clock: clock, cfg: o.Config,
		jobsPath: h.Resolve(o.Config.Cron.JobsFile), statePath: filepath.Join(h.State(), "cron-state.json")}
	g.print = &printer{w: o.Stderr, tty: o.TTY, clock: clock, started: map[string]time.Time{}}
	if o.NewService != nil {
		g.mu.Lock()
		g.swapServiceLocked(g.cfg)
		g.mu.Unlock()
	}
	runner := newJobRunner(g.jobRunsFor, h.Workspace(), h.State(), o.Stderr)
	if o.runsFor != nil {
		runner.runsFor = o.runsFor
	}
	if _, err := cron.LoadState(g.statePath); err != nil {
		g.print.line("!", "warning: %v; starting with empty job state", err)
	}
	schedLog := slog.New(slog.DiscardHandler) // events are printed instead
	if o.Verbose && o.Logger != nil {
		schedLog = o.Logger
	}
	var err error
	if g.fleet, err = g.openFleet(); err != nil {
		g.closeService()
		return nil, err
	}
	var coord cron.Coordinator
	if g.fleet != nil {
		coord = g.fleet
	}
	g.sched, err = cron.New(g.jobsPath, g.statePath, runner, cron.Options{
		Fleet:         coord,
		Clock:         clock,
		Logger:        schedLog,
		OnEvent:       func(e cron.Event) { g.print.event(e); g.deliver(e) },
		TickInterval:  time.Duration(g.cfg.Cron.TickSec) * time.Second,
		DefaultDevice: o.DefaultDevice,
		Agent:         agentOr(o.Agent),
	})
	if err != nil {
		g.closeFleet()
		g.closeService()
		return nil, err
	}
	return g, nil
}

func (g *Gateway) heartbeatPath() string { return filepath.Join(g.home.State(), "heartbeat.log") }

// startHeartbeat (re)starts the heartbeat with the current config.
func (g *Gateway) startHeartbeat() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stopHeartbeatLocked()
	hb := g.cfg.Heartbeat
	stuck := time.Duration(hb.StuckTaskWarnSec) * time.Second
	if hb.StuckTaskWarnSec == 0 {
		stuck = -1 // 0 in config: no stuck warnings
	}
	level := slog.LevelError // stuck warnings are printed by OnStuck
	if g.opts.Verbose {
		level = slog.LevelDebug
	}
	h := cron.NewHeartbeat(g.heartbeatPath(), g.heartbeatStatus(), cron.HeartbeatOptions{
		Every:     time.Duration(hb.EverySec) * time.Second,
		StuckWarn: stuck,
		Clock:     g.clock,
		Logger:    slog.New(slog.NewTextHandler(g.opts.Stderr, &slog.HandlerOptions{Level: level})),
		KeepAwake: g.keepAwake,
		Devices:   g.countDevices(),
		OnStuck: func(st cron.HeartbeatStatus, d time.Duration) {
			g.print.line("⚠", "task %q on %s has been running for %s (heartbeat.stuckTaskWarnSec %d)",
				st.CurrentTask, st.Device, d.Round(time.Second), hb.StuckTaskWarnSec)
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	g.hbCancel, g.hbDone = cancel, done
	go func() {
		defer close(done)
		if err := h.Beat(); err != nil { // a first line right away
			g.print.line("!", "heartbeat not written: %v", err)
		}
		_ = h.Run(ctx)
	}()
}

func (g *Gateway) countDevices() func() (int, int, error) {
	if g.opts.CountDevices == nil {
		return nil
	}
	return func() (int, int, error) {
		ctx, cancel := context.WithTimeout(context.Background(), keepAwakeTimeout)
		defer cancel()
		return g.opts.CountDevices(ctx)
	}
}

// keepAwakeTimeout bounds the heartbeat's wake-up call on a busy device.
const keepAwakeTimeout = 5 * time.Second

func (g *Gateway) keepAwake(st cron.HeartbeatStatus) error {
	if g.opts.KeepAwake == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), keepAwakeTimeout)
	defer cancel()
	return g.opts.KeepAwake(ctx, st.Device)
}

func (g *Gateway) stopHeartbeatLocked() {
	if g.hbCancel != nil {
		g.hbCancel()
		<-g.hbDone
		g.hbCancel, g.hbDone = nil, nil
	}
}

// Reload re-reads the config (for the next runs, on a new run service,
// and the heartbeat) and the jobs file (what SIGUSR1 does). A config that
// does not load keeps the current one. It returns the first error,
// already printed.
func (g *Gateway) Reload() error {
	var first error
	cfg, warns, err := g.home.LoadConfigFile() // the defaults while init has written none
	if g.opts.ConfigPath != "" {
		cfg, warns, err = workspace.LoadConfigWarnings(g.opts.ConfigPath)
	}
	if err != nil {
		g.print.line("!", "config not reloaded, keeping the current one: %v", err)
		first = err
	} else {
		for _, w := range warns {
			if w.Note {
				continue // upstream keys migrated: told once at start
			}
			g.print.line("!", "warning: %s", w)
		}
		g.mu.Lock()
		old := g.cfg
		g.cfg = cfg
		// The next runs use a service of the new config; the running
		// ones finish on theirs.
		if g.opts.NewService != nil {
			g.swapServiceLocked(cfg)
		}
		g.mu.Unlock()
		if cfg.Heartbeat != old.Heartbeat {
			g.startHeartbeat()
		}
		if !slicesEqualFleet(cfg.Fleet, old.Fleet) {
			g.print.line("!", "fleet changes take effect when the gateway restarts")
		}
		if cfg.Cron != old.Cron {
			g.print.line("!", "cron.tickSec and cron.jobsFile changes take effect when the gateway restarts")
		}
	}
	if err := g.sched.Reload(); err != nil && first == nil {
		first = err // printed by the error event
	}
	return first
}

// stop cancels running jobs (their run functions finalize their sessions),
// waits up to timeout for them, and stops the heartbeat.
func (g *Gateway) stop(timeout time.Duration) error {
	if runs := g.sched.Running(); len(runs) > 0 {
		ids := make([]string, len(runs))
		for i, r := range runs {
			ids[i] = r.JobID
		}
		g.print.line("■", "stopping: cancelling %s and waiting up to %s (Ctrl-C again to force)", strings.Join(ids, ", "), timeout)
	}
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	g.stopControl()
	err := g.sched.Stop(ctx)
	// After the scheduler: its last results are still delivered.
	if cerr := g.stopChannels(time.Until(deadlineOf(ctx))); cerr != nil && err == nil {
		err = cerr
	}
	g.mu.Lock()
	g.stopHeartbeatLocked()
	g.mu.Unlock()
	g.closeFleet() // after the last run: its record is written
	if err != nil {
		return fmt.Errorf("gateway: %w", err)
	}
	g.closeService()
	g.print.line("■", "gateway stopped")
	return nil
}

// agentOr is the agent a gateway serves ("default" when unnamed).
func agentOr(id string) string {
	if id == "" {
		return "default"
	}
	return id
}
