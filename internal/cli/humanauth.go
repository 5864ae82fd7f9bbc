package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/humanauth"
	"github.com/openpocket/openpocket/internal/workspace"
	"github.com/openpocket/openpocket/stdlib/agent"
)

// HumanAuth answers the request_human_auth of this command's agent runs:
// it starts this process's relay when a run first needs one (and keeps
// its base URL for the links of later runs) and builds each run's Broker.
// MainWith builds it once and binds it; commands and front ends that run
// agents share it, so one relay serves them all.
type HumanAuth struct {
	relay Relay
	// home is the command's home (its request store), opened on first use:
	// a command that never asks a person needs none.
	home    func() (*workspace.Home, error)
	agentID string
	stderr  io.Writer
	logger  *slog.Logger
	onExit  func(func())
	// adbServer is where the relay page's screen and takeover taps go
	// (--adb-server; "" is adb's default).
	adbServer string

	// base is the URL of the relay this process started ("" until one is).
	base string
}

// humanAuth is the command's HumanAuth (MainWith builds it; an App built in
// a test gets one over its own fields on first use).
func (a *App) humanAuth() *HumanAuth {
	if a.auth == nil {
		a.auth = &HumanAuth{relay: a.sys, home: a.home, agentID: a.agentID(), stderr: a.Stderr, logger: a.logger(), onExit: a.onExit,
			adbServer: a.ADBServer}
	}
	return a.auth
}

// relayMu guards the start of a process's relay: a gateway's runs may
// start it at once (after a reload enabled human auth).
var relayMu sync.Mutex

// startRelay starts the relay for this process when the humanAuth
// settings cfg enable it and none runs here yet (the gateway's); a relay
// another process already runs on the address (the gateway) serves our
// requests too, since they are files. It returns the base URL links use.
func (ha *HumanAuth) startRelay(ctx context.Context, cfg workspace.HumanAuthConfig) (string, error) {
	relayMu.Lock()
	defer relayMu.Unlock()
	addr := net.JoinHostPort(cfg.RelayHost, strconv.Itoa(cfg.RelayPort))
	if ha.base == "" && ha.relay != nil {
		h, err := ha.home()
		if err != nil {
			return "", err
		}
		b, stop, err := ha.relay.StartRelay(ctx, humanauth.Open(h.State()), addr, adbRelayPhone{server: ha.adbServer})
		switch {
		case err == nil:
			ha.base = b
			ha.onExit(stop)
		case errors.Is(err, errAddrInUse(err)):
			ha.logger.Warn("human-auth relay address in use; links assume the relay listening there (the gateway's) serves them", "addr", addr)
		default:
			return "", err
		}
	}
	return relayAddrBase(cfg, ha.base), nil
}

// relayAddrBase is the base of relay links: the public base URL when
// configured, else the relay this process started (started), else the
// configured relay address.
func relayAddrBase(cfg workspace.HumanAuthConfig, started string) string {
	base := "http://" + net.JoinHostPort(cfg.RelayHost, strconv.Itoa(cfg.RelayPort))
	if started != "" {
		base = started
	}
	if pub := strings.TrimSpace(cfg.PublicBaseURL); pub != "" {
		base = pub
	}
	return strings.TrimRight(base, "/")
}

func errAddrInUse(err error) error {
	if err != nil && strings.Contains(err.Error(), "address already in use") {
		return err
	}
	return errors.New("not in use")
}

// forRun is the run's request_human_auth answerer: with
// humanAuth.enabled, a Broker whose links the relay serves (and, on an
// interactive terminal, the terminal too — the first answer wins); for a
// chat's run without the relay, a Broker over the chat alone (the request
// is listed by `openpocket auth`, a code becomes its text artifact); nil
// otherwise (the terminal only, as before).
// hc holds the humanAuth settings (of the config the run's service was
// built from).
func (ha *HumanAuth) forRun(ctx context.Context, hc workspace.HumanAuthConfig, sess *engine.Session, o agentRunOptions) (agent.HumanAuthFunc, error) {
	if !hc.Enabled {
		if o.Ask == nil {
			return nil, nil
		}
		return ha.chatOnly(hc, o.Ask)
	}
	h, err := ha.home()
	if err != nil {
		return nil, err
	}
	return ha.forRunIn(ctx, authHome{home: h, agentID: ha.agentID, relay: true}, hc, sess, o)
}

// authHome is whose human-auth requests a run makes: the agent's home
// (its request store) and id; relay starts this process's relay for
// their links (otherwise they name the configured relay address).
type authHome struct {
	home    *workspace.Home
	agentID string
	relay   bool
}

// forRunIn is forRun for the agent of ah (humanAuth enabled or not: a
// run without a chat asks nobody when it is not).
func (ha *HumanAuth) forRunIn(ctx context.Context, ah authHome, hc workspace.HumanAuthConfig, sess *engine.Session, o agentRunOptions) (agent.HumanAuthFunc, error) {
	if !hc.Enabled {
		return nil, nil
	}
	h := ah.home
	base := relayAddrBase(hc, "")
	if ah.relay {
		var err error
		if base, err = ha.startRelay(ctx, hc); err != nil {
			return nil, err
		}
	}
	b := &humanauth.Broker{Store: humanauth.Open(h.State()), AgentID: ah.agentID, BaseURL: base,
		MaxTimeout: time.Duration(hc.RequestTimeoutSec) * time.Second, Workspace: h.Workspace(),
		Delegate: hc.Mode == "delegate", Device: func() string { return runSerial(sess) }, Takeover: hc.Takeover,
		OnLink: func(l humanauth.Link) {
			// Unattended runs (the gateway's) print the link on stderr.
			w := o.Stdout
			if w == nil {
				w = ha.stderr
			}
			if w != nil {
				fmt.Fprintf(w, "\nHuman authorization link (%s, request %s, expires %s):\n  %s\n  or at this machine: openpocket auth approve %s [--text …] | reject %s\n",
					l.Request.Capability, l.Request.ID, l.Request.ExpiresAt.Local().Format("15:04:05"), l.URL, l.Request.ID, l.Request.ID)
			}
			if o.OnAuthLink != nil {
				o.OnAuthLink(l.Request.ID, l.URL)
			}
			sess.Emit("human_auth_request", map[string]any{"request_id": l.Request.ID, "capability": l.Request.Capability,
				"instruction": l.Request.Instruction, "url": l.URL, "expires_at": l.Request.ExpiresAt.Format(time.RFC3339)})
		}}
	switch {
	case o.Ask != nil: // a chat channel asks; the relay link works too
		b.Terminal = o.Ask
	case agent.IsTerminal(o.Stdin) && o.Stdout != nil:
		b.Terminal = agent.TerminalAuth(o.Stdin, o.Stdout)
		b.Lost = func(id string, d humanauth.Decision) { fmt.Fprint(o.Stdout, lostLine(id, d)) }
	}
	return b.Ask, nil
}

// chatOnly is a relay-less Broker whose only asker is a chat.
func (ha *HumanAuth) chatOnly(hc workspace.HumanAuthConfig, ask agent.HumanAuthFunc) (agent.HumanAuthFunc, error) {
	h, err := ha.home()
	if err != nil {
		return nil, err
	}
	b := &humanauth.Broker{Store: humanauth.Open(h.State()), AgentID: "default", Workspace: h.Workspace(),
		MaxTimeout: time.Duration(hc.RequestTimeoutSec) * time.Second, Terminal: ask, Delegate: hc.Mode == "delegate"}
	return func(ctx context.Context, req agent.HumanAuthRequest) (agent.HumanAuthDecision, error) {
		d, err := b.Ask(ctx, req)
		d.Link = "" // no relay serves it
		return d, err
	}, nil
}

// lostLine tells the terminal that another answer came first, so the
// "Approve? [y/N]" above it is closed.
func lostLine(id string, d humanauth.Decision) string {
	by := map[string]string{"web": "on the relay page", "cli": "with openpocket auth", "dashboard": "on the dashboard"}[d.By]
	if d.By == "timeout" {
		return fmt.Sprintf("\nNobody answered request %s in time; the question above is closed.\n", id)
	}
	if by == "" {
		by = "elsewhere"
	}
	return fmt.Sprintf("\nRequest %s was answered %s (%s); the question above is closed.\n", id, by, d.Status)
}

// runSerial is the serial of the phone sess drives ("" before it has one:
// the page then shows no screen).
func runSerial(sess *engine.Session) string {
	if sess == nil {
		return ""
	}
	p, err := sess.Phone()
	if err != nil {
		return ""
	}
	return p.Serial()
}

// adbRelayPhone opens a request's phone on the adb server for the relay
// page: a screenshot reads the screen (no device lease: the run waits for
// the person meanwhile), a takeover tap is `input tap`.
type adbRelayPhone struct{ server string }

func (r adbRelayPhone) open(ctx context.Context, serial string) (*device.Phone, error) {
	d, err := adb.NewClient(r.server).Open(ctx, adb.Target{Serial: serial})
	if err != nil {
		return nil, err
	}
	return device.NewPhone(d, device.Options{}), nil
}

func (r adbRelayPhone) Screen(ctx context.Context, serial string) ([]byte, error) {
	p, err := r.open(ctx, serial)
	if err != nil {
		return nil, err
	}
	return p.Screencap(ctx)
}

func (r adbRelayPhone) Tap(ctx context.Context, serial string, x, y int) error {
	p, err := r.open(ctx, serial)
	if err != nil {
		return err
	}
	res, err := p.Shell(ctx, fmt.Sprintf("input tap %d %d", x, y))
	if err == nil && res.ExitCode != 0 {
		err = fmt.Errorf("input tap: exit status %d", res.ExitCode)
	}
	return err
}
