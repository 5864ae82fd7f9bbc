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
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/workspace"
)

// Options are what a gateway is built from; the composition root binds the
// ports.
type Options struct {
	Home *workspace.Home
	// ConfigPath is reread on reload; Config is the effective config now.
	ConfigPath string
	Config     workspace.Config
	// Stderr receives one line per event; TTY draws them compact.
	Stderr  io.Writer
	TTY     bool
	Verbose bool
	Logger  *slog.Logger
	// StopTimeout bounds the wait for cancelled jobs after Ctrl-C.
	StopTimeout time.Duration
	// DefaultDevice names the device of jobs without one (per-device
	// exclusion and messages).
	DefaultDevice string

	// NewService builds a run service from a config: each run holding its
	// device's lease for exactly the run. close ends it (executors) once
	// no run uses it any more.
	NewService func(cfg workspace.Config) (svc *run.Service, close func())
	// HumanAuth is the request_human_auth answerer of agent jobs on a
	// service of cfg (nil: none).
	HumanAuth func(cfg workspace.Config) HumanAuthFor
	// KeepAwake wakes a device running a long task (heartbeat).
	KeepAwake func(ctx context.Context, serial string) error
	// CountDevices counts the adb server's devices and those online for
	// the heartbeat line (nil: 0 and 0).
	CountDevices func(ctx context.Context) (all, online int, err error)
	// StartChannels builds the chat channels cfg enables; current gives
	// their work the gateway's current run service (nil: no channels).
	StartChannels func(cfg workspace.Config, stateDir string, current Current, logger *slog.Logger) ([]Channel, error)

	// Tests: a fake clock, fake run functions and a hook that gets the
	// running gateway.
	clock   clockwork.Clock
	runsFor runsFor
	started func(*Gateway)
}

// HumanAuthFor builds an agent run's human-auth answerer once its session
// exists (run.AgentOptions.HumanAuthFor).
type HumanAuthFor = func(ctx context.Context, sess *engine.Session) (run.HumanAuthFunc, error)

// Current holds the gateway's current run service and the config it was
// built from for one piece of work; done ends the hold.
type Current func() (svc *run.Service, cfg workspace.Config, done func())

// Channel is a chat front end the gateway runs (internal/channel's).
type Channel interface {
	Name() string
	Run(ctx context.Context) error
	Deliver(ctx context.Context, to string, text string) error
}

// Gateway is one running gateway.
type Gateway struct {
	opts      Options
	home      *workspace.Home
	clock     clockwork.Clock
	sched     *cron.Scheduler
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
	channels []Channel
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

	// Not ctx: stop cancels the running jobs itself, after saying so.
	if err := g.sched.Start(context.Background()); err != nil {
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
	g.sched, err = cron.New(g.jobsPath, g.statePath, runner, cron.Options{
		Clock:         clock,
		Logger:        schedLog,
		OnEvent:       func(e cron.Event) { g.print.event(e); g.deliver(e) },
		TickInterval:  time.Duration(g.cfg.Cron.TickSec) * time.Second,
		DefaultDevice: o.DefaultDevice,
	})
	if err != nil {
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
	h := cron.NewHeartbeat(g.heartbeatPath(), g.sched.StatusFunc(), cron.HeartbeatOptions{
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
	if err != nil {
		return fmt.Errorf("gateway: %w", err)
	}
	g.closeService()
	g.print.line("■", "gateway stopped")
	return nil
}
