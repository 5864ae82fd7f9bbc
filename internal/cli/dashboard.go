package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/openpocket/openpocket/internal/atomicfile"
	"github.com/openpocket/openpocket/internal/lease"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/workspace"
)

// DashboardCmd serves the manager dashboard in the foreground.
type DashboardCmd struct {
	Addr string `help:"Address to listen on; beyond loopback the printed URL carries the install's access token." default:"127.0.0.1:8790" placeholder:"HOST:PORT"`
}

func (c *DashboardCmd) Help() string {
	return exampleBlock("openpocket dashboard", "openpocket dashboard --addr 0.0.0.0:8790   (prints the URL with the token)")
}

// DashboardServe serves the dashboards until ctx ends. The composition
// root binds it (Deps.ServeDashboard): front ends never import each other,
// so the CLI only hands over what the dashboard's ports are built from.
type DashboardServe func(ctx context.Context, env DashboardEnv) error

// DashboardEnv is what the dashboard is built from.
type DashboardEnv struct {
	Addr string
	// Token is the install's access token ("" on loopback).
	Token   string
	Install *workspace.Install
	// Runtime opens one agent: its home and run services.
	Runtime func(id string) (*AgentRuntime, error)
	// Ready is called with the URL to open once the server listens.
	Ready func(url string)
	// Only, when set, limits the pages to that agent (a gateway serving
	// its own agent's dashboard).
	Only string
}

// AgentRuntime is one agent as a long-running front end drives it.
type AgentRuntime struct {
	ID   string
	Home *workspace.Home
	// View captures the screen without taking the device lease: looking
	// does not drive, so a running task is not disturbed.
	View *run.Service
	// Drive acts on the device, taking its lease for each action only.
	Drive *run.Service
	// RunJob and ReplaySkill start a cron job or a skill replay now, as
	// `openpocket cron run` and `openpocket skills run` would.
	RunJob      func(ctx context.Context, id string) error
	ReplaySkill func(ctx context.Context, name string) error
	Close       func()
}

func (c *DashboardCmd) Run(app *App) error {
	if app.serveDashboard == nil {
		return errors.New("this build has no dashboard (cmd/openpocket binds Deps.ServeDashboard)")
	}
	in, err := app.install()
	if err != nil {
		return err
	}
	if _, err := workspace.Open(in.Dir()); err != nil {
		return UsageError{err}
	}
	token := ""
	if !loopbackAddr(c.Addr) {
		if token, err = installToken(in); err != nil {
			return err
		}
	}
	return app.serveDashboard(app.Ctx, DashboardEnv{Addr: c.Addr, Token: token, Install: in, Runtime: app.agentRuntime,
		Ready: func(url string) {
			fmt.Fprintf(app.Stdout, "dashboard: %s\n", url)
			if token != "" {
				fmt.Fprintln(app.Stderr, "the URL carries the install's access token: share it only with people who may drive its phones")
			}
		}})
}

// startAgentDashboard serves the selected agent's dashboard from its
// gateway, in the background until the command ends ("" = none).
func (a *App) startAgentDashboard(addr string) error {
	if addr == "" {
		return nil
	}
	if a.serveDashboard == nil {
		return errors.New("this build has no dashboard (cmd/openpocket binds Deps.ServeDashboard)")
	}
	in, err := a.install()
	if err != nil {
		return err
	}
	token := ""
	if !loopbackAddr(addr) {
		if token, err = installToken(in); err != nil {
			return err
		}
	}
	ready := make(chan string, 1)
	failed := make(chan error, 1)
	go func() {
		failed <- a.serveDashboard(a.Ctx, DashboardEnv{Addr: addr, Token: token, Install: in, Runtime: a.agentRuntime, Only: a.agentID(),
			Ready: func(url string) { ready <- url }})
	}()
	select {
	case base := <-ready:
		u, err := url.Parse(base)
		if err != nil {
			return err
		}
		u.Path = "/a/" + a.agentID() + "/"
		fmt.Fprintf(a.Stderr, "dashboard: %s\n", u)
		return nil
	case err := <-failed:
		return err
	}
}

func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}

// installToken is INSTALL/state/dashboard-token, made on first use.
func installToken(in *workspace.Install) (string, error) {
	path := filepath.Join(in.Dir(), "state", "dashboard-token")
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) >= 32 {
		return strings.TrimSpace(string(b)), nil
	}
	buf := make([]byte, 24)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	token := hex.EncodeToString(buf)
	if _, err := atomicfile.WriteNew(path, []byte(token+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("dashboard token: %w", err)
	}
	b, err := os.ReadFile(path) // another process may have made it first
	if err != nil {
		return "", fmt.Errorf("dashboard token: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// agentRuntime opens agent id for a long-running front end.
func (a *App) agentRuntime(id string) (*AgentRuntime, error) {
	view, err := a.agentApp(id, leasesNone)
	if err != nil {
		return nil, err
	}
	drive, err := a.agentApp(id, leasesPerRun)
	if err != nil {
		view.runCleanups()
		return nil, err
	}
	rt := &AgentRuntime{ID: id, Home: drive.ws, View: view.svc, Drive: drive.svc,
		Close: func() { view.runCleanups(); drive.runCleanups() }}
	// Jobs and replays get an App of their own each: they run in the
	// background, and an App serves one command at a time.
	rt.RunJob = func(ctx context.Context, job string) error {
		return a.background(ctx, id, func(b *App) error { return (&CronRunCmd{ID: job}).Run(b) })
	}
	rt.ReplaySkill = func(ctx context.Context, name string) error {
		return a.background(ctx, id, func(b *App) error {
			svc, err := b.runService()
			if err != nil {
				return err
			}
			return (&SkillsRunCmd{Name: name}).Run(b.Ctx, b, svc)
		})
	}
	return rt, nil
}

// agentApp is an App acting as agent id, its run service built with the
// lease mode given (the same factory as every run service's).
func (a *App) agentApp(id string, mode leaseMode) (*App, error) {
	g := a.Globals
	g.AgentID, g.Device, g.Target, g.UseSim, g.Config = id, "", "", false, ""
	b := &App{Globals: g, Stdout: io.Discard, Stderr: a.Stderr, Ctx: a.Ctx, Logger: a.Logger, command: a.command, newJobRunner: a.newJobRunner}
	h, err := b.home()
	if err != nil {
		return nil, err
	}
	b.Device, b.Target = b.cfg.Target.Device, b.cfg.Target.AdbEndpoint
	set, err := b.executorSet()
	if err != nil {
		b.runCleanups()
		return nil, err
	}
	rc := b.serviceConfig(h, b.cfg, mode)
	rc.Executors = set
	if rc.Lease != nil {
		// A page's action reports a busy phone as the lease says it, with
		// no command-line advice (--wait-device) and no wait message.
		rc.Lease = func(ctx context.Context, serial string) (func(), error) {
			l, err := lease.Acquire(ctx, serial, lease.Options{Wait: b.WaitDevice, Command: b.command})
			if err != nil {
				return nil, err
			}
			return func() { l.Release() }, nil
		}
	}
	b.svc = b.startService(rc)
	b.onExit(b.svc.Close)
	return b, nil
}

// background checks the agent opens, then runs fn on a fresh App in its
// own goroutine; the outcome lands in the agent's sessions and state.
func (a *App) background(ctx context.Context, id string, fn func(*App) error) error {
	b, err := a.agentApp(id, leasesPerRun)
	if err != nil {
		return err
	}
	b.Ctx = ctx
	go func() {
		defer b.runCleanups()
		if err := fn(b); err != nil {
			b.logger().Warn("dashboard: background run failed", "agent", id, "err", err)
		}
	}()
	return nil
}
