package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/openpocket/openpocket/engine"
	enginedevice "github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/atomicfile"
	"github.com/openpocket/openpocket/internal/executor/execset"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/skills"
	"github.com/openpocket/openpocket/internal/workspace"
	"github.com/openpocket/openpocket/playbooks"
)

// MCPCmd serves the phone to coding agents over the Model Context
// Protocol. The server itself lives in internal/mcp; the composition root
// serves it (MCPServer) because front ends never import each other.
type MCPCmd struct {
	HTTP  string `name:"http" help:"Serve streamable HTTP on ADDR (e.g. 127.0.0.1:8765) instead of stdio; beyond loopback --token is required." placeholder:"ADDR"`
	Token string `help:"Bearer token HTTP clients must send (Authorization: Bearer TOKEN)." env:"OPENPOCKET_MCP_TOKEN" placeholder:"TOKEN"`
}

// MCPServeOptions say how the MCP server is reached.
type MCPServeOptions struct {
	// HTTP is the streamable-HTTP address; "" serves stdio.
	HTTP  string
	Token string
	// Stdin/Stdout carry the stdio transport; Logger writes to stderr.
	Stdin   io.Reader
	Stdout  io.Writer
	Logger  *slog.Logger
	Version string
}

// Run prepares what every call shares (home, executors, the virtual phone
// with --sim) and serves until the client goes away or Ctrl-C.
func (c *MCPCmd) Run(ctx context.Context, st Streams, use OnUse, f services, auth *HumanAuth, srv MCPServer) error {
	if _, err := use.Home(); err != nil {
		return err
	}
	if _, err := use.Executors(); err != nil {
		return err
	}
	if f.g.UseSim {
		if _, err := f.phones.startSim(); err != nil {
			return err
		}
	}
	b := NewMCPBackend(use, f, auth)
	defer b.Close()
	return srv.ServeMCP(ctx, b, MCPServeOptions{HTTP: c.HTTP, Token: c.Token,
		Stdin: os.Stdin, Stdout: st.Stdout, Logger: f.logger, Version: Version})
}

// MCPBackend runs the MCP server's tool calls with the CLI's machinery:
// each call is like one command of its own (device selection, device
// lease, engine, session), so a call holds the device only while it runs
// and other openpocket processes can drive it in between. Calls on the
// same device from this server queue instead of refusing each other.
// Direct calls (snapshot, act, the selector tools) share one phone per
// device for the server's lifetime (its frame and element caches, its
// capture path), from one run service per device kept until Close.
type MCPBackend struct {
	// use opens the command's home, config and executors (once); f is its
	// run service factory; auth answers the agent's human-auth requests.
	use  OnUse
	f    services
	auth *HumanAuth

	mu      sync.Mutex
	devices map[string]chan struct{}
	// direct are the run services of direct calls, one per device key;
	// each keeps its phone (run.Service.Phone) and leases per call.
	direct map[string]*run.Service
}

// NewMCPBackend is the backend over the command's home, config and
// executors (use), run service factory and human-auth helper.
func NewMCPBackend(use OnUse, f services, auth *HumanAuth) *MCPBackend {
	return &MCPBackend{use: use, f: f, auth: auth, devices: map[string]chan struct{}{}, direct: map[string]*run.Service{}}
}

// Close closes the direct calls' run services and their phones' devices.
func (b *MCPBackend) Close() {
	b.mu.Lock()
	direct := b.direct
	b.direct = map[string]*run.Service{}
	b.mu.Unlock()
	for _, svc := range direct {
		svc.Close()
	}
}

// call builds the run service of one call on device ("" = the configured
// target), after the previous call on that device ended: the command's
// factory (newService) with its leases held for the call. errs keeps the
// call's first device failure. release ends the call: its lease and
// service.
func (b *MCPBackend) call(ctx context.Context, device string) (svc *run.Service, errs *deviceErrs, release func(), err error) {
	leave, err := b.enter(ctx, device)
	if err != nil {
		return nil, nil, nil, err
	}
	h, cfg, set, err := b.open()
	if err != nil {
		leave()
		return nil, nil, nil, err
	}
	sp := b.f.commandSpec(h, cfg, leasesHeld)
	sp.executors, sp.errs = set, &deviceErrs{}
	if device != "" {
		sp.device, sp.endpoint = device, ""
	}
	svc = b.f.newService(sp)
	return svc, sp.errs, func() {
		svc.Close()
		leave()
	}, nil
}

// enter waits for the previous call on device to end; leave lets the
// next one in.
func (b *MCPBackend) enter(ctx context.Context, device string) (leave func(), err error) {
	key := b.deviceKey(device)
	b.mu.Lock()
	slot := b.devices[key]
	if slot == nil {
		slot = make(chan struct{}, 1)
		b.devices[key] = slot
	}
	b.mu.Unlock()
	select {
	case slot <- struct{}{}:
		return func() { <-slot }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (b *MCPBackend) deviceKey(device string) string {
	if device == "" {
		return b.defaultDevice()
	}
	return device
}

// directService is device's run service for direct calls, built on first
// use and kept: the command's factory with a lease per call.
func (b *MCPBackend) directService(device string) (*run.Service, error) {
	h, cfg, set, err := b.open()
	if err != nil {
		return nil, err
	}
	key := b.deviceKey(device)
	b.mu.Lock()
	defer b.mu.Unlock()
	if svc := b.direct[key]; svc != nil {
		return svc, nil
	}
	sp := b.f.commandSpec(h, cfg, leasesPerRun)
	sp.executors, sp.errs = set, &deviceErrs{}
	if device != "" {
		sp.device, sp.endpoint = device, ""
	}
	svc := b.f.newService(sp)
	b.direct[key] = svc
	return svc, nil
}

// open is the command's home, config and executor set, each opened once.
func (b *MCPBackend) open() (*workspace.Home, workspace.Config, *execset.Set, error) {
	h, err := b.use.Home()
	if err != nil {
		return nil, workspace.Config{}, nil, err
	}
	cfg, err := b.use.Config()
	if err != nil {
		return nil, workspace.Config{}, nil, err
	}
	set, err := b.use.Executors()
	return h, cfg, set, err
}

func (b *MCPBackend) defaultDevice() string {
	cfg, _ := b.use.Config() // a home that cannot be opened fails the call itself
	return b.f.phones.chosenName(b.f.g.agentID(), cfg.Target)
}

// Devices lists the attached devices (serial, state, model, product).
func (b *MCPBackend) Devices(ctx context.Context) (any, error) {
	client := b.f.phones.adbClient()
	if err := client.EnsureServer(ctx); err != nil {
		return nil, err
	}
	devs, err := client.Devices(ctx)
	if err != nil {
		return nil, err
	}
	out := []map[string]string{}
	for _, d := range devs {
		out = append(out, map[string]string{"serial": d.Serial, "state": d.State, "model": d.Model, "product": d.Product})
	}
	return out, nil
}

// Phone opens device ("" = the configured target) for direct use through
// the run service, its lease held until release. The phone is the same
// from call to call (see MCPBackend); the lease is not kept in between.
func (b *MCPBackend) Phone(ctx context.Context, device string) (*enginedevice.Phone, func(), error) {
	leave, err := b.enter(ctx, device)
	if err != nil {
		return nil, nil, err
	}
	svc, err := b.directService(device)
	if err != nil {
		leave()
		return nil, nil, err
	}
	// The service targets device, so the service's default target.
	phone, releasePhone, err := svc.Phone(ctx, run.Target{}, 0)
	if err != nil {
		leave()
		return nil, nil, err
	}
	return phone, sync.OnceFunc(func() {
		releasePhone()
		leave()
	}), nil
}

// RunLua runs src (named chunk) through the run service: a sandboxed VM
// bound to a fresh session on device, args as arg[1..n], stopped after
// timeout (0 = only ctx). output holds what the script printed.
func (b *MCPBackend) RunLua(ctx context.Context, device, chunk string, src []byte, args []string, timeout time.Duration) (string, error) {
	svc, _, release, err := b.call(ctx, device)
	if err != nil {
		return "", err
	}
	defer release()
	var mu sync.Mutex
	var out strings.Builder
	_, runErr := svc.Script(ctx, run.ScriptOptions{Name: chunk, Source: src, Args: args, Timeout: timeout,
		Print: func(line string) {
			mu.Lock()
			defer mu.Unlock()
			out.WriteString(line)
			out.WriteByte('\n')
		}})
	mu.Lock()
	defer mu.Unlock()
	return out.String(), runErr
}

// Play runs one playbook — file, or inline YAML written to
// HOME/state/mcp first — with params, and returns its report (status,
// steps, output directory with log.txt and steps.json, artifacts).
func (b *MCPBackend) Play(ctx context.Context, device, file string, yaml []byte, params map[string]string, timeout time.Duration, onStep func(done int, label string)) (any, error) {
	svc, _, release, err := b.call(ctx, device)
	if err != nil {
		return nil, err
	}
	defer release()
	h, err := b.use.Home()
	if err != nil {
		return nil, err
	}
	if file != "" && !filepath.IsAbs(file) {
		file = filepath.Join(h.Workspace(), file) // relative to the workspace
	}
	if file == "" {
		dir := filepath.Join(h.State(), "mcp")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		file = filepath.Join(dir, "inline-"+time.Now().UTC().Format("20060102-150405.000000000")+".yaml")
		if err := atomicfile.WriteFile(file, yaml, 0o644); err != nil {
			return nil, err
		}
	}
	// The client names the file: it and its includes are read inside the
	// workspace only (an inline playbook's includes too).
	pp := playbookParams{values: params, root: h.Workspace()}
	var res *playbooks.Result
	if len(yaml) > 0 {
		res, err = compilePlaybookSource(b.f.stderr, file, yaml, pp)
	} else {
		res, err = compilePlaybook(b.f.stderr, file, pp)
	}
	if err != nil {
		return nil, err
	}
	opts := playOptions{}
	if onStep != nil {
		opts.events = func(ev run.Event) {
			if ev.Progress != nil {
				onStep(ev.Progress.Done, ev.Progress.Label)
			}
		}
	}
	fr := playCompiled(ctx, svc, file, res, filepath.Join(h.State(), "runs"), timeout, opts, nil)
	return fr, nil
}

// Skills lists the skills (bundled, home, workspace) with whether each
// has a replay script.
func (b *MCPBackend) Skills(ctx context.Context) (any, error) {
	h, err := b.use.Home()
	if err != nil {
		return nil, err
	}
	l := skillsLoaderOf(h)
	all, _ := l.Load()
	out := []skillListEntry{}
	for _, s := range all {
		_, _, serr := l.Script(s)
		out = append(out, skillListEntry{Name: s.Name, Description: s.Description, Source: s.Source.String(), Location: s.Location,
			Auto: s.Auto, Runnable: serr == nil, Shadows: s.Shadows, Missing: skills.Missing(s, l.Env), Triggers: skills.Triggers(s)})
	}
	return out, nil
}

// RunSkill replays a skill (name or path) on device without a model.
func (b *MCPBackend) RunSkill(ctx context.Context, device, name string, params map[string]string) (engine.RunResult, error) {
	svc, errs, release, err := b.call(ctx, device)
	if err != nil {
		return engine.RunResult{}, err
	}
	defer release()
	args := make([]string, 0, len(params))
	for k, v := range params {
		args = append(args, k+"="+v)
	}
	sort.Strings(args)
	res, err := skillOn(ctx, svc, run.Target{}, name, args, nil)
	if first := errs.first(); err == nil && !res.Success && first != nil {
		err = first
	}
	return res, err
}

// Agent runs a task with OpenPocket's agent on device; onEvent sees its
// events (agent steps) as they happen. The session is persisted.
func (b *MCPBackend) Agent(ctx context.Context, device, task, model string, maxSteps int, onEvent func(engine.Event)) (engine.RunResult, error) {
	svc, _, release, err := b.call(ctx, device)
	if err != nil {
		return engine.RunResult{}, err
	}
	defer release()
	h, cfg, _, err := b.open()
	if err != nil {
		return engine.RunResult{}, err
	}
	ag := newAgents(b.auth, h, cfg)
	return ag.run(ctx, svc, task, agentRunOptions{Model: model, MaxSteps: maxSteps, OnEvent: onEvent})
}

// SessionsList lists recorded sessions, newest first (limit 0 = all).
func (b *MCPBackend) SessionsList(ctx context.Context, limit int) (any, error) {
	h, err := b.use.Home()
	if err != nil {
		return nil, err
	}
	files, err := workspace.SessionFiles(h.SessionsDir())
	if err != nil {
		return nil, err
	}
	if limit > 0 && len(files) > limit {
		files = files[:limit]
	}
	out := []sessionSummary{}
	for _, f := range files {
		if s, err := readSessionSummary(h, f); err == nil {
			out = append(out, s)
		}
	}
	return out, nil
}

// sessionIDPattern is what a session id looks like; anything else (a
// path) is refused, so a client cannot read files through session_get.
var sessionIDPattern = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z_-]*$`)

// SessionGet returns one session's markdown by id (as listed) or unique
// prefix.
func (b *MCPBackend) SessionGet(ctx context.Context, id string) (string, error) {
	if id != "latest" && !sessionIDPattern.MatchString(id) {
		return "", fmt.Errorf("session id %q: expected an id as sessions_list shows (YYYYMMDD-HHMMSS) or \"latest\"", id)
	}
	h, err := b.use.Home()
	if err != nil {
		return "", err
	}
	path, err := (&SessionsShowCmd{ID: id}).resolve(h.SessionsDir())
	if err != nil {
		return "", err
	}
	data, err := h.ReadSessionFile(path)
	if err != nil {
		return "", fmt.Errorf("session %s: %w", id, err)
	}
	return string(data), nil
}

// Help shows how clients start the server (docs/mcp.md has each client's
// config).
func (c *MCPCmd) Help() string {
	return "Examples:\n  openpocket mcp\n  openpocket --sim mcp\n  claude mcp add openpocket -- openpocket mcp\n  OPENPOCKET_MCP_TOKEN=secret openpocket mcp --http 0.0.0.0:8765" +
		"\n\nTools: devices, snapshot, act, find, wait_for, tap, type_text, launch_app, run_lua, play,\nskills_list, skill_run, agent_run, sessions_list, session_get. See docs/mcp.md."
}
