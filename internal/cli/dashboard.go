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

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/atomicfile"
	"github.com/openpocket/openpocket/internal/dashenv"
	"github.com/openpocket/openpocket/internal/gwenv"
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

// DashboardEnv is what the dashboard is built from: the composition root
// serves it (DashboardServer), since front ends never import each other.
type DashboardEnv struct {
	Addr string
	// Token is the install's access token ("" on loopback).
	Token   string
	Install *workspace.Install
	// Runtime opens one agent: its home and run services.
	Runtime dashenv.Opener
	// Ready is called with the URL to open once the server listens.
	Ready func(url string)
	// Only, when set, limits the pages to that agent (a gateway serving
	// its own agent's dashboard).
	Only string
	// RelayPhone shows a request's phone on the relay hub's pages and
	// passes takeover taps to it.
	RelayPhone RelayPhone
}

// Run serves the manager dashboard until Ctrl-C.
func (c *DashboardCmd) Run(ctx context.Context, st Streams, f services, auth *HumanAuth, srv DashboardServer, jobs JobRunners) error {
	in, err := f.g.install()
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
	return srv.ServeDashboard(ctx, DashboardEnv{Addr: c.Addr, Token: token, Install: in, Runtime: newDashboards(f, auth, jobs).runtime,
		RelayPhone: adbRelayPhone{server: f.g.ADBServer},
		Ready: func(url string) {
			fmt.Fprintf(st.Stdout, "dashboard: %s\n", url)
			if token != "" {
				fmt.Fprintln(st.Stderr, "the URL carries the install's access token: share it only with people who may drive its phones")
			}
		}})
}

// startAgentDashboard serves the selected agent's dashboard (d) from its
// gateway with serve, in the background until the command ends ("" =
// none).
func startAgentDashboard(ctx context.Context, d dashboards, srv DashboardServer, addr string) error {
	if addr == "" {
		return nil
	}
	g := d.f.g
	in, err := g.install()
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
		failed <- srv.ServeDashboard(ctx, DashboardEnv{Addr: addr, Token: token, Install: in, Runtime: d.runtime, Only: g.agentID(),
			RelayPhone: adbRelayPhone{server: g.ADBServer},
			Ready:      func(url string) { ready <- url }})
	}()
	select {
	case base := <-ready:
		u, err := url.Parse(base)
		if err != nil {
			return err
		}
		u.Path = "/a/" + g.agentID() + "/"
		fmt.Fprintf(d.f.stderr, "dashboard: %s\n", u)
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

// dashboards are the dashboard's backends: the command's run service
// factory (global flags, devices, logger, stderr), its human-auth helper
// and the job runner of "run now".
type dashboards struct {
	f    services
	auth *HumanAuth
	jobs JobRunners
}

func newDashboards(f services, auth *HumanAuth, jobs JobRunners) dashboards {
	return dashboards{f: f, auth: auth, jobs: jobs}
}

// runtime opens agent id for a long-running front end: its home and
// two run services from the one factory (newService) — a view that takes
// no lease, a driver whose runs each hold the phone's lease and executors
// of their own — over the agent's config and target.
func (d dashboards) runtime(id string) (*dashenv.AgentRuntime, error) {
	h, cfg, err := d.homeOf(id)
	if err != nil {
		return nil, err
	}
	spec := func(mode leaseMode) serviceSpec {
		return serviceSpec{home: h, cfg: cfg, agentID: id, mode: mode, plainLease: mode != leasesNone}
	}
	view, drive := d.f.newService(spec(leasesNone)), d.f.newService(spec(leasesPerRun))
	rt := &dashenv.AgentRuntime{ID: id, Home: h, View: view, Drive: drive,
		Close: func() { view.Close(); drive.Close() }}
	// Jobs run in the agent's gateway when it runs (it owns their state
	// and the phone), else on the driver, as `openpocket cron run` would;
	// replays on the driver. The outcome lands in the agent's sessions and
	// state, and is returned for the page.
	rt.RunJob = func(ctx context.Context, job string) (string, error) {
		if res, ran, err := runInGateway(ctx, h, job); ran || err != nil {
			return gatewayOutcome(res, err)
		}
		runner := jobRunnerWith(d.jobs, func() (gwenv.JobRunner, error) { return d.jobEnv(h, cfg, id, drive), nil })
		if err := gatewayNotRunning(h, job); err != nil {
			return "", err
		}
		st, took, err := runJobNow(ctx, h, cfg, job, d.f.phones.chosenName(id, cfg.Target), runner)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("ok after %s: %s", took, strings.TrimSpace(st.LastMessage)), nil
	}
	rt.ReplaySkill = func(ctx context.Context, name string) (string, error) {
		return replaySkill(ctx, d.f.stderr, drive, name)
	}
	rt.Device = func(ctx context.Context) (string, error) {
		dev, ch, err := d.f.phones.openChosenWith(ctx, id, cfg.Target, false)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s (chosen by %s)", dev.Serial(), ch.Source), nil
	}
	return rt, nil
}

// homeOf opens agent id's home and config (its own config.json: the
// global --config is this command's agent's), printing config warnings.
func (d dashboards) homeOf(id string) (*workspace.Home, workspace.Config, error) {
	var (
		h   *workspace.Home
		err error
	)
	if id == workspace.DefaultAgent {
		h, err = workspace.Open(d.f.g.Home)
	} else {
		var in *workspace.Install
		if in, err = d.f.g.install(); err == nil {
			h, err = in.OpenAgent(id)
		}
	}
	if err != nil {
		return nil, workspace.Config{}, UsageError{err}
	}
	printConfigWarnings(d.f.stderr, h.Warnings())
	return h, h.Config(), nil
}

// jobEnv is the job runner environment of a dashboard's "run
// now": the agent's driver service, no terminal (progress dropped),
// human-auth links for the agent without starting a relay here.
func (d dashboards) jobEnv(h *workspace.Home, cfg workspace.Config, id string, svc *run.Service) gwenv.JobRunner {
	o := agentRunOptions{Stdin: os.Stdin, Stdout: io.Discard}
	return gwenv.JobRunner{Service: svc, Base: h.Workspace(), StateDir: h.State(), Warn: d.f.stderr,
		HumanAuth: func(ctx context.Context, sess *engine.Session) (run.HumanAuthFunc, error) {
			return d.auth.forRunIn(ctx, authHome{home: h, agentID: id}, cfg.HumanAuth, sess, o)
		},
		Agent:    run.AgentOptions{Stdin: o.Stdin, Stdout: o.Stdout},
		BadInput: func(err error) error { return UsageError{err} },
	}
}

// replaySkill replays skill name (a name or path) on svc's default device
// as `openpocket skills run` does, persisting its session, and returns
// its message; a failure is also reported on stderr and its error says
// why (the failed step and the session).
func replaySkill(ctx context.Context, stderr io.Writer, svc *run.Service, name string) (string, error) {
	c := &SkillsRunCmd{Name: name}
	name, task, src, from, err := c.resolve(svc.Config().Skills)
	if err != nil {
		return "", err
	}
	if c.shadowNote != "" {
		fmt.Fprintln(stderr, c.shadowNote)
	}
	if err := run.CheckSkill(from, src); err != nil {
		return "", UsageError{err}
	}
	res, err := svc.Replay(ctx, run.ReplayOptions{Name: name, Skill: from, Source: src, Task: "skill " + name + ": " + task, Persist: true})
	if err != nil {
		var notReady *run.NotReadyError
		if res.Message != "" && !errors.As(err, &notReady) {
			reportReplayFailure(stderr, err, res.SessionPath)
		}
		if res.SessionPath != "" {
			return "", fmt.Errorf("%w (session %s)", err, filepath.Base(res.SessionPath))
		}
		return "", err
	}
	return res.Message, nil
}
