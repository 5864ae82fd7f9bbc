package cli

import (
	"context"
	"io"
	"log/slog"
	"os"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/executor/execset"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/workspace"
)

// MCPCmd serves the phone to coding agents over the Model Context
// Protocol. The server itself lives in internal/mcp; the composition root
// serves it (MCPServer) because front ends never import each other.
type MCPCmd struct {
	HTTP  string `name:"http" help:"Serve streamable HTTP on ADDR (e.g. 127.0.0.1:8765) instead of stdio; beyond loopback --token is required." placeholder:"ADDR"`
	Token string `help:"Bearer token HTTP clients must send (Authorization: Bearer TOKEN)." env:"OPENPOCKET_MCP_TOKEN" placeholder:"TOKEN"`
}

// MCPServeOptions say how the MCP server is reached and what its backend
// (internal/mcp/backend, built by the composition root) serves.
type MCPServeOptions struct {
	// HTTP is the streamable-HTTP address; "" serves stdio.
	HTTP  string
	Token string
	// Stdin/Stdout carry the stdio transport; Logger writes to stderr.
	Stdin   io.Reader
	Stdout  io.Writer
	Logger  *slog.Logger
	Version string
	// Home and Config are the command's; ADBServer is --adb-server; Warn
	// gets playbooks' compile warnings (stderr).
	Home      *workspace.Home
	Config    workspace.Config
	ADBServer string
	Warn      io.Writer
}

// MCPCalls is what the MCP backend needs of this command (the backend's
// Port): run services with the command's device selection, leases and
// executors, and its human-auth answerer.
type MCPCalls interface {
	Service(device string, perRun bool) (svc *run.Service, deviceErr func() error)
	DefaultDevice() string
	HumanAuthFor(ctx context.Context, hc workspace.HumanAuthConfig, sess *engine.Session) (run.HumanAuthFunc, error)
}

// Run prepares what every call shares (home, executors, the virtual phone
// with --sim) and serves until the client goes away or Ctrl-C.
func (c *MCPCmd) Run(ctx context.Context, st Streams, use OnUse, f services, auth *HumanAuth, srv MCPServer) error {
	h, err := use.Home()
	if err != nil {
		return err
	}
	cfg, err := use.Config()
	if err != nil {
		return err
	}
	set, err := use.Executors()
	if err != nil {
		return err
	}
	if f.g.UseSim {
		if _, err := f.phones.startSim(); err != nil {
			return err
		}
	}
	calls := mcpCalls{f: f, home: h, cfg: cfg, executors: set, auth: auth}
	return srv.ServeMCP(ctx, calls, MCPServeOptions{HTTP: c.HTTP, Token: c.Token,
		Stdin: os.Stdin, Stdout: st.Stdout, Logger: f.logger, Version: Version,
		Home: h, Config: cfg, ADBServer: f.g.ADBServer, Warn: f.stderr})
}

// mcpCalls are the MCP calls' run services: each from the command's
// factory (newService) over its home, config and one executor set.
type mcpCalls struct {
	f         services
	home      *workspace.Home
	cfg       workspace.Config
	executors *execset.Set
	auth      *HumanAuth
}

// Service is the run service of one call (leases held for the call) or of
// a device's direct calls (perRun: a lease per call).
func (m mcpCalls) Service(device string, perRun bool) (*run.Service, func() error) {
	mode := leasesHeld
	if perRun {
		mode = leasesPerRun
	}
	sp := m.f.commandSpec(m.home, m.cfg, mode)
	sp.executors, sp.errs = m.executors, &deviceErrs{}
	if device != "" {
		sp.device, sp.endpoint = device, ""
	}
	return m.f.newService(sp), sp.errs.first
}

// DefaultDevice is the command's device as far as known without the adb
// server.
func (m mcpCalls) DefaultDevice() string {
	return m.f.phones.chosenName(m.f.g.agentID(), m.cfg.Target)
}

// HumanAuthFor answers an agent call's human-auth requests: the relay
// when humanAuth is enabled, nobody otherwise (stdin is the transport).
func (m mcpCalls) HumanAuthFor(ctx context.Context, hc workspace.HumanAuthConfig, sess *engine.Session) (run.HumanAuthFunc, error) {
	return m.auth.forRun(ctx, hc, sess, agentRunOptions{})
}

// Help shows how clients start the server (docs/mcp.md has each client's
// config).
func (c *MCPCmd) Help() string {
	return "Examples:\n  openpocket mcp\n  openpocket --sim mcp\n  claude mcp add openpocket -- openpocket mcp\n  OPENPOCKET_MCP_TOKEN=secret openpocket mcp --http 0.0.0.0:8765" +
		"\n\nTools: devices, snapshot, act, find, wait_for, tap, type_text, launch_app, run_lua, play,\nskills_list, skill_run, agent_run, sessions_list, session_get. See docs/mcp.md."
}
