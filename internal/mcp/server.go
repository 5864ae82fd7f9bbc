// Package mcp is OpenPocket's Model Context Protocol server: it exposes
// the phone to coding agents (Claude Code, Codex, Cursor, VS Code…) as MCP
// tools — devices, snapshot, act and the ui module's selector tools, Lua,
// playbooks, skills, the agent and recorded sessions — and the docs and
// recent sessions as resources. It is a front end: every call goes through
// a Runner (bound by the composition root on top of the run lifecycle),
// which selects the device, takes its lease and finalizes the run. A bad
// call is a tool error with the CLI's message, never a crashed server, and
// a client's cancellation cancels the device call.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
)

// Runner is what the server needs from the run lifecycle. Results typed
// any are JSON values (reports, lists) passed to the client as they are.
// device "" means the configured target.
type Runner interface {
	// Devices lists attached devices.
	Devices(ctx context.Context) (any, error)
	// Phone opens device for direct use (snapshot, act) with its lease
	// held until release; it is the run service's Phone.
	Phone(ctx context.Context, device string) (phone *device.Phone, release func(), err error)
	// RunLua runs src as chunk in a sandboxed VM bound to a fresh session,
	// args as arg[1..n]; output is what it printed.
	RunLua(ctx context.Context, device, chunk string, src []byte, args []string, timeout time.Duration) (output string, err error)
	// Play runs a playbook file, or inline YAML when file is "";
	// onStep (nil: nobody listens) sees each top-level step as it ends:
	// how many have ended, and its label.
	Play(ctx context.Context, device, file string, yaml []byte, params map[string]string, timeout time.Duration, onStep func(done int, label string)) (report any, err error)
	// Skills lists skills; RunSkill replays one without a model.
	Skills(ctx context.Context) (any, error)
	RunSkill(ctx context.Context, device, name string, params map[string]string) (engine.RunResult, error)
	// Agent runs a task with OpenPocket's agent.
	Agent(ctx context.Context, a AgentCall) (engine.RunResult, error)
	// SessionsList lists recorded sessions newest first; SessionGet reads one.
	SessionsList(ctx context.Context, limit int) (any, error)
	SessionGet(ctx context.Context, id string) (string, error)
}

// AgentCall is one agent_run call.
type AgentCall struct {
	// Device runs the task ("" = the configured target).
	Device, Task string
	// Model is the profile ("" = defaultModel); MaxSteps overrides
	// agent.maxSteps when > 0.
	Model    string
	MaxSteps int
	// NoReplay asks the model from the first step even when a learned
	// skill matches the task.
	NoReplay bool
	// OnEvent sees the run's events (nil: nobody listens).
	OnEvent func(engine.Event)
}

// Options configure the server.
type Options struct {
	Version string
	Logger  *slog.Logger
	// HTTP is the streamable-HTTP listen address; "" serves stdio.
	HTTP string
	// Token is the bearer token HTTP clients must send. Required when HTTP
	// is not a loopback address.
	Token string
	// OnListen, when set, receives the HTTP server's address once it listens.
	OnListen func(addr string)
}

// Server is the MCP server over one Runner.
type Server struct {
	runner Runner
	sdk    *sdk.Server
	log    *slog.Logger
	tools  map[string]bool

	// marks keeps the last snapshot per device so act's tap_element ids
	// and scaled coordinates refer to what the client last saw.
	mu    sync.Mutex
	marks map[string]*screen.Snapshot
}

// New builds the server with every tool and resource registered.
func New(r Runner, o Options) *Server {
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	version := o.Version
	if version == "" {
		version = "dev"
	}
	s := &Server{runner: r, log: logger, tools: map[string]bool{}, marks: map[string]*screen.Snapshot{}}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: "openpocket", Title: "OpenPocket", Version: version}, &sdk.ServerOptions{
		Logger:       logger,
		Instructions: instructions,
	})
	s.addTools()
	s.addResources()
	s.sdk.AddReceivingMiddleware(s.unknownToolAsToolError)
	return s
}

// instructions tell the client's model how the tools fit together.
const instructions = `OpenPocket drives an Android phone. Call snapshot to see the screen (current app, numbered elements, screenshot), then act (tap_element with a mark id, tap/swipe in the snapshot's coordinates, keyevent, shell…), or use find / wait_for / tap with a selector ({"text": "Wi-Fi"}, {"id": "wifi_switch"}). run_lua runs Lua against the phone (the Lua API resource documents it); play runs YAML playbooks; skill_run replays a learned skill; agent_run hands a whole task to OpenPocket's own agent. Every tool takes an optional device (adb serial); the default is the configured target.`

// SDK returns the underlying SDK server (for in-process transports).
func (s *Server) SDK() *sdk.Server { return s.sdk }

// Serve runs the server on stdio (in/out) or, with o.HTTP, on streamable
// HTTP until ctx ends or the stdio client disconnects.
func Serve(ctx context.Context, r Runner, in io.Reader, out io.Writer, o Options) error {
	s := New(r, o)
	if o.HTTP == "" {
		err := s.sdk.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
		if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
	return s.serveHTTP(ctx, o)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// serveHTTP serves streamable HTTP on o.HTTP, refusing to listen beyond
// loopback without a token.
func (s *Server) serveHTTP(ctx context.Context, o Options) error {
	if err := checkBind(o.HTTP, o.Token); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.HTTP)
	if err != nil {
		return fmt.Errorf("mcp: --http %s: %w", o.HTTP, err)
	}
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk }, nil)
	srv := &http.Server{Handler: requireToken(o.Token, handler), ReadHeaderTimeout: 10 * time.Second}
	if o.OnListen != nil {
		o.OnListen(ln.Addr().String())
	}
	s.log.Info("mcp: serving streamable HTTP", "addr", "http://"+ln.Addr().String()+"/")
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
		return nil
	}
}

// AddressError is a --http address the server refuses before listening:
// bad input, not a failure of the server.
type AddressError struct{ msg string }

func (e *AddressError) Error() string { return e.msg }

// checkBind refuses a non-loopback address without a token: the tools
// drive a phone and run code, so anyone who can reach the port could.
func checkBind(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return &AddressError{fmt.Sprintf("mcp: --http %q: expected HOST:PORT (e.g. 127.0.0.1:8765): %v", addr, err)}
	}
	if token != "" || isLoopback(host) {
		return nil
	}
	return &AddressError{fmt.Sprintf("mcp: --http %s listens beyond loopback: set a bearer token with --token or $OPENPOCKET_MCP_TOKEN (clients send Authorization: Bearer TOKEN)", addr)}
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// requireToken checks the bearer token (constant time) when one is set.
func requireToken(token string, next http.Handler) http.Handler {
	if token == "" {
		return next
	}
	want := "Bearer " + token
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !constantTimeEqual(r.Header.Get("Authorization"), want) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="openpocket"`)
			http.Error(w, "openpocket mcp: missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
