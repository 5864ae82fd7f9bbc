package cli

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

	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/workspace"
)

// GatewayCmd runs the scheduler and the heartbeat in the foreground.
type GatewayCmd struct {
	StopTimeout time.Duration `help:"How long to wait for cancelled jobs to finish after Ctrl-C or SIGTERM." default:"2m" placeholder:"DURATION"`
	Dashboard   string        `help:"Also serve this agent's dashboard page on HOST:PORT (beyond loopback with the install's token)." placeholder:"HOST:PORT"`

	// Tests: a fake clock, fake run functions or run services, and a
	// hook that gets the running gateway.
	clock      clockwork.Clock
	runsFor    jobRunsFor
	newService serviceFactory
	started    func(*gateway)
}

// gateway is one running gateway process.
type gateway struct {
	app       *App
	home      *workspace.Home
	clock     clockwork.Clock
	sched     *cron.Scheduler
	print     *gatewayPrinter
	jobsPath  string
	statePath string

	// mu guards the config, the run service (reload vs. job start) and
	// the heartbeat.
	mu         sync.Mutex
	cfg        workspace.Config
	newService serviceFactory
	gen        *serviceGen
	hbCancel   context.CancelFunc
	hbDone     chan struct{}

	// Chat channels (channels.* in config.json) and their goroutines.
	channels []ChatChannel
	chCancel context.CancelFunc
	chWG     sync.WaitGroup
}

// Run holds the gateway lock, runs the jobs of the jobs file and writes
// the heartbeat until Ctrl-C or SIGTERM, then cancels running jobs and
// waits for them. SIGUSR1 reloads config.json and the jobs file.
func (c *GatewayCmd) Run(app *App) error {
	h, err := app.home()
	if err != nil {
		return err
	}
	release, err := cron.AcquireGatewayLock(h.State())
	if err != nil {
		return err
	}
	defer release()
	if app.UseSim {
		if _, err := app.startSim(); err != nil {
			return err
		}
	}
	if app.cfg.HumanAuth.Enabled {
		// Scheduled runs have no terminal: their human-auth links point here.
		base, err := app.startRelay(app.Ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(app.Stderr, "human-auth relay: %s\n", base)
	}
	if err := app.startAgentDashboard(c.Dashboard); err != nil {
		return err
	}
	g, err := c.newGateway(app, h)
	if err != nil {
		return err
	}
	g.print.line("●", "gateway started (pid %d): jobs %s, checked every %ds; heartbeat every %ds to %s",
		os.Getpid(), g.jobsPath, g.cfg.Cron.TickSec, g.cfg.Heartbeat.EverySec, g.heartbeatPath())

	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	defer signal.Stop(usr1)

	ctx := app.Ctx
	// Not ctx: stop cancels the running jobs itself, after saying so.
	if err := g.sched.Start(context.Background()); err != nil {
		return err
	}
	g.startHeartbeat()
	if err := g.startChannels(); err != nil {
		_ = g.stop(c.StopTimeout)
		return err
	}
	if c.started != nil {
		c.started(g)
	}
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-usr1:
			g.print.line("↻", "SIGUSR1: reloading config and jobs")
			_ = g.reload() // errors are printed
		}
	}
	return g.stop(c.StopTimeout)
}

// deadlineOf is ctx's deadline (now when it has none).
func deadlineOf(ctx context.Context) time.Time {
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return time.Now()
}

// newGateway builds the gateway's scheduler over the jobs file and state,
// its printer, its run service (rebuilt on reload) and its job runner,
// which runs each job on the current service with the job's device.
func (c *GatewayCmd) newGateway(app *App, h *workspace.Home) (*gateway, error) {
	clock := c.clock
	if clock == nil {
		clock = clockwork.NewRealClock()
	}
	g := &gateway{app: app, home: h, clock: clock, cfg: app.cfg, newService: c.newService,
		jobsPath: h.Resolve(app.cfg.Cron.JobsFile), statePath: filepath.Join(h.State(), "cron-state.json")}
	g.print = &gatewayPrinter{w: app.Stderr, tty: isTTY(app.Stderr), clock: clock, started: map[string]time.Time{}}
	if g.newService == nil {
		g.newService = app.gatewayServices(h)
	}
	g.mu.Lock()
	g.swapServiceLocked(g.cfg)
	g.mu.Unlock()

	runner := newJobRunner(g.jobRunsFor, h.Workspace())
	if c.runsFor != nil {
		runner.runsFor = c.runsFor
	}
	if _, err := cron.LoadState(g.statePath); err != nil {
		g.print.line("!", "warning: %v; starting with empty job state", err)
	}
	schedLog := slog.New(slog.DiscardHandler) // events are printed instead
	if app.Verbose && app.Logger != nil {
		schedLog = app.Logger
	}
	var err error
	g.sched, err = cron.New(g.jobsPath, g.statePath, runner, cron.Options{
		Clock:         clock,
		Logger:        schedLog,
		OnEvent:       func(e cron.Event) { g.print.event(e); g.deliver(e) },
		TickInterval:  time.Duration(g.cfg.Cron.TickSec) * time.Second,
		DefaultDevice: app.defaultDeviceName(),
	})
	if err != nil {
		g.closeService()
		return nil, err
	}
	return g, nil
}

func (g *gateway) heartbeatPath() string { return filepath.Join(g.home.State(), "heartbeat.log") }

// startHeartbeat (re)starts the heartbeat with the current config.
func (g *gateway) startHeartbeat() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stopHeartbeatLocked()
	hb := g.cfg.Heartbeat
	stuck := time.Duration(hb.StuckTaskWarnSec) * time.Second
	if hb.StuckTaskWarnSec == 0 {
		stuck = -1 // 0 in config: no stuck warnings
	}
	level := slog.LevelError // stuck warnings are printed by OnStuck
	if g.app.Verbose {
		level = slog.LevelDebug
	}
	h := cron.NewHeartbeat(g.heartbeatPath(), g.sched.StatusFunc(), cron.HeartbeatOptions{
		Every:     time.Duration(hb.EverySec) * time.Second,
		StuckWarn: stuck,
		Clock:     g.clock,
		Logger:    slog.New(slog.NewTextHandler(g.app.Stderr, &slog.HandlerOptions{Level: level})),
		KeepAwake: func(st cron.HeartbeatStatus) error { return g.app.keepAwake(st.Device) },
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

func (g *gateway) stopHeartbeatLocked() {
	if g.hbCancel != nil {
		g.hbCancel()
		<-g.hbDone
		g.hbCancel, g.hbDone = nil, nil
	}
}

// reload re-reads the config (for the next runs and the heartbeat) and
// the jobs file (what SIGUSR1 does). A config that does not load keeps
// the current one. It returns the first error, already printed.
func (g *gateway) reload() error {
	path := g.app.Config
	if path == "" {
		path = g.home.ConfigPath()
	}
	var first error
	cfg, warns, err := workspace.LoadConfigWarnings(path)
	if err != nil {
		g.print.line("!", "config not reloaded, keeping the current one: %v", err)
		first = err
	} else {
		for _, w := range warns {
			g.print.line("!", "warning: %s", w)
		}
		g.mu.Lock()
		old := g.cfg
		g.cfg, g.app.cfg = cfg, cfg
		// The next runs use a service of the new config; the running
		// ones finish on theirs.
		g.swapServiceLocked(cfg)
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
func (g *gateway) stop(timeout time.Duration) error {
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

// gatewayPrinter writes one line per scheduler event: compact with
// symbols on a terminal, timestamped and grep-friendly otherwise.
type gatewayPrinter struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool
	clock   clockwork.Clock
	started map[string]time.Time
}

func (p *gatewayPrinter) line(sym, format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.writeLocked(p.clock.Now(), sym, fmt.Sprintf(format, args...))
}

func (p *gatewayPrinter) writeLocked(at time.Time, sym, msg string) {
	msg = strings.Join(strings.Fields(msg), " ")
	if r := []rune(msg); len(r) > 300 {
		msg = string(r[:299]) + "…"
	}
	if p.tty {
		fmt.Fprintf(p.w, "%s %s %s\n", at.Local().Format("15:04:05"), sym, msg)
		return
	}
	fmt.Fprintf(p.w, "%s %s\n", at.UTC().Format(time.RFC3339), msg)
}

// event is the scheduler's OnEvent.
func (p *gatewayPrinter) event(e cron.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	at := e.At
	if at.IsZero() {
		at = p.clock.Now()
	}
	switch e.Kind {
	case cron.EventStarted:
		p.started[e.JobID] = at
		p.writeLocked(at, "▶", fmt.Sprintf("job %s started (%s)", e.JobID, e.Trigger))
	case cron.EventFinished:
		took := ""
		if t0, ok := p.started[e.JobID]; ok {
			took = " after " + at.Sub(t0).Round(time.Second).String()
			delete(p.started, e.JobID)
		}
		sym, what := "✓", "ok"
		if e.Status != cron.StatusOK {
			sym, what = "✗", "failed"
		}
		msg := ""
		if e.Message != "" {
			msg = ": " + e.Message
		}
		p.writeLocked(at, sym, fmt.Sprintf("job %s %s%s%s", e.JobID, what, took, msg))
	case cron.EventSkipped:
		p.writeLocked(at, "⏭", fmt.Sprintf("job %s skipped: %s", e.JobID, e.Message))
	case cron.EventReloaded:
		p.writeLocked(at, "↻", "jobs loaded: "+e.Message)
	case cron.EventProblem:
		p.writeLocked(at, "!", "warning: "+e.Message)
	case cron.EventError:
		p.writeLocked(at, "!", "error: "+e.Message)
	default:
		p.writeLocked(at, "·", fmt.Sprintf("%s %s %s", e.Kind, e.JobID, e.Message))
	}
}
