package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/humanauth"
	"github.com/openpocket/openpocket/internal/workspace"
	"github.com/openpocket/openpocket/stdlib/agent"
)

// RelayStarter starts the human-auth web relay on addr over store and
// returns its base URL. The composition root binds internal/relay's Start
// (front ends never import each other).
type RelayStarter func(ctx context.Context, store *humanauth.Store, addr string) (base string, stop func(), err error)

// Deps are what the composition root hands the CLI.
type Deps struct {
	StartRelay RelayStarter
	// StartChannels builds the chat channels the gateway runs.
	StartChannels ChannelStarter
	// ServeMCP serves the MCP server (openpocket mcp).
	ServeMCP MCPServer
	// ServeDashboard serves the dashboards (openpocket dashboard,
	// gateway --dashboard).
	ServeDashboard DashboardServe
	// ServeGateway runs the gateway (openpocket gateway).
	ServeGateway GatewayServe
	// JobRunner builds the gateway's job runner for `cron run`.
	JobRunner JobRunnerFactory
}

// AuthCmd answers human-auth requests from the machine:
// `openpocket auth list | approve ID [--text …] | reject ID`. Requests are
// files in the state directory, so this works while a run (or the
// gateway) in another process waits; the first answer wins.
type AuthCmd struct {
	List    AuthListCmd    `cmd:"" help:"List pending human-auth requests."`
	Approve AuthApproveCmd `cmd:"" help:"Approve a pending request, optionally with text to type into the focused field."`
	Reject  AuthRejectCmd  `cmd:"" help:"Reject a pending request."`
}

// AuthListCmd lists pending requests.
type AuthListCmd struct{}

// AuthApproveCmd approves one.
type AuthApproveCmd struct {
	ID   string `arg:"" help:"Request id (from auth list)."`
	Text string `help:"Text typed into the focused field (an OTP code); stored as a seed 003 text artifact." placeholder:"TEXT"`
}

// AuthRejectCmd rejects one.
type AuthRejectCmd struct {
	ID string `arg:"" help:"Request id (from auth list)."`
}

func (c *AuthListCmd) Help() string    { return exampleHelp("auth list") }
func (c *AuthApproveCmd) Help() string { return exampleHelp("auth approve") }
func (c *AuthRejectCmd) Help() string  { return exampleHelp("auth reject") }

func (a *App) authStore() (*humanauth.Store, error) {
	h, err := a.home()
	if err != nil {
		return nil, err
	}
	return humanauth.Open(h.State()), nil
}

// Run prints id, capability, expiry and instruction of each request.
func (c *AuthListCmd) Run(app *App) error {
	s, err := app.authStore()
	if err != nil {
		return err
	}
	ps, err := s.List()
	if err != nil {
		return err
	}
	if len(ps) == 0 {
		fmt.Fprintln(app.Stdout, "no pending human-auth requests")
		return nil
	}
	tw := tabwriter.NewWriter(app.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCAPABILITY\tEXPIRES\tINSTRUCTION")
	for _, p := range ps {
		left := time.Until(p.ExpiresAt).Round(time.Second)
		exp := "in " + left.String()
		if left <= 0 {
			exp = "expired"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.ID, p.Capability, exp, agentShort(agentFirstLine(p.Instruction), 60))
	}
	return tw.Flush()
}

// Run approves the request.
func (c *AuthApproveCmd) Run(app *App) error {
	d := humanauth.Decision{Status: "approved", Message: "the user approved", By: "cli", Text: c.Text}
	return app.decideAuth(c.ID, &d, c.Text)
}

// Run rejects the request.
func (c *AuthRejectCmd) Run(app *App) error {
	d := humanauth.Decision{Status: "rejected", Message: "the user rejected the request", By: "cli"}
	return app.decideAuth(c.ID, &d, "")
}

func (a *App) decideAuth(id string, d *humanauth.Decision, text string) error {
	s, err := a.authStore()
	if err != nil {
		return err
	}
	p, err := s.Get(id)
	switch {
	case errors.Is(err, humanauth.ErrNotFound):
		return UsageError{fmt.Errorf("auth: no pending request %q (see openpocket auth list)", id)}
	case errors.Is(err, humanauth.ErrDecided):
		return FailedError{Msg: fmt.Sprintf("auth: request %s was already answered", id)}
	case err != nil:
		return err
	case p.Expired(time.Now()):
		return FailedError{Msg: fmt.Sprintf("auth: request %s has expired", id)}
	}
	if text != "" {
		if d.Artifact, err = s.SaveJSON(id, p.Capability, map[string]any{"kind": humanauth.TextKind(p.Capability), "value": text}); err != nil {
			return err
		}
		d.Message += " and provided text"
	}
	if err := s.Decide(id, *d); errors.Is(err, humanauth.ErrDecided) {
		return FailedError{Msg: fmt.Sprintf("auth: request %s was already answered", id)}
	} else if err != nil {
		return err
	}
	fmt.Fprintf(a.Stdout, "%s %s\n", d.Status, id)
	return nil
}

// startRelay starts the relay for this process when humanAuth.enabled and
// none runs here yet (the gateway's); a relay another process already
// runs on the address (the gateway) serves our requests too, since they
// are files. It returns the base URL links use.
func (a *App) startRelay(ctx context.Context) (string, error) {
	return a.startRelayWith(ctx, a.cfg.HumanAuth)
}

// relayMu guards the start of a process's relay: a gateway's runs may
// start it at once (after a reload enabled human auth).
var relayMu sync.Mutex

// startRelayWith is startRelay with the humanAuth settings given (a
// gateway's runs use those of the config their run service was built
// from).
func (a *App) startRelayWith(ctx context.Context, cfg workspace.HumanAuthConfig) (string, error) {
	relayMu.Lock()
	defer relayMu.Unlock()
	addr := net.JoinHostPort(cfg.RelayHost, strconv.Itoa(cfg.RelayPort))
	if a.relayBase == "" && a.StartRelay != nil {
		s, err := a.authStore()
		if err != nil {
			return "", err
		}
		b, stop, err := a.StartRelay(ctx, s, addr)
		switch {
		case err == nil:
			a.relayBase = b
			a.onExit(stop)
		case errors.Is(err, errAddrInUse(err)):
			a.logger().Warn("human-auth relay address in use; links assume the relay listening there (the gateway's) serves them", "addr", addr)
		default:
			return "", err
		}
	}
	return relayAddrBase(cfg, a.relayBase), nil
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

// humanAuthWith is the run's request_human_auth answerer: with
// humanAuth.enabled, a Broker whose links the relay serves (and, on an
// interactive terminal, the terminal too — the first answer wins); for a
// chat's run without the relay, a Broker over the chat alone (the request
// is listed by `openpocket auth`, a code becomes its text artifact); nil
// otherwise (the terminal only, as before).
// hc holds the humanAuth settings (of the config the run's service was
// built from).
func (a *App) humanAuthWith(ctx context.Context, hc workspace.HumanAuthConfig, sess *engine.Session, o agentRunOptions) (agent.HumanAuthFunc, error) {
	if !hc.Enabled {
		if o.Ask == nil {
			return nil, nil
		}
		return a.chatOnlyAuth(hc, o.Ask)
	}
	h, err := a.home()
	if err != nil {
		return nil, err
	}
	return a.humanAuthIn(ctx, authHome{home: h, agentID: a.agentID(), relay: true}, hc, sess, o)
}

// authHome is whose human-auth requests a run makes: the agent's home
// (its request store) and id; relay starts this process's relay for
// their links (otherwise they name the configured relay address).
type authHome struct {
	home    *workspace.Home
	agentID string
	relay   bool
}

// humanAuthIn is humanAuthWith for the agent of ah (humanAuth enabled or
// not: a run without a chat asks nobody when it is not).
func (a *App) humanAuthIn(ctx context.Context, ah authHome, hc workspace.HumanAuthConfig, sess *engine.Session, o agentRunOptions) (agent.HumanAuthFunc, error) {
	if !hc.Enabled {
		return nil, nil
	}
	h := ah.home
	base := relayAddrBase(hc, "")
	if ah.relay {
		var err error
		if base, err = a.startRelayWith(ctx, hc); err != nil {
			return nil, err
		}
	}
	b := &humanauth.Broker{Store: humanauth.Open(h.State()), AgentID: ah.agentID, BaseURL: base,
		MaxTimeout: time.Duration(hc.RequestTimeoutSec) * time.Second, Workspace: h.Workspace(),
		OnLink: func(l humanauth.Link) {
			// Unattended runs (the gateway's) print the link on stderr.
			w := o.Stdout
			if w == nil {
				w = a.Stderr
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
	}
	return b.Ask, nil
}

// chatOnlyAuth is a relay-less Broker whose only asker is a chat.
func (a *App) chatOnlyAuth(hc workspace.HumanAuthConfig, ask agent.HumanAuthFunc) (agent.HumanAuthFunc, error) {
	h, err := a.home()
	if err != nil {
		return nil, err
	}
	b := &humanauth.Broker{Store: humanauth.Open(h.State()), AgentID: "default", Workspace: h.Workspace(),
		MaxTimeout: time.Duration(hc.RequestTimeoutSec) * time.Second, Terminal: ask}
	return func(ctx context.Context, req agent.HumanAuthRequest) (agent.HumanAuthDecision, error) {
		d, err := b.Ask(ctx, req)
		d.Link = "" // no relay serves it
		return d, err
	}, nil
}
