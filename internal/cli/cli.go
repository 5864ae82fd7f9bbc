// Package cli is the kong grammar of the openpocket command: one file per
// command, each Run delegating to the packages that do the work. Commands
// declare what they need — Run(ctx, Streams, Globals, *Phones, home,
// config, *run.Service, *Agents, …) — and MainWith binds each once
// (Phones: the devices; HumanAuth: the relay and brokers; home, config,
// the run service and Agents: singleton providers). Every
// run service comes from one factory (newService) over the adapters the
// composition root assembles (System's Assembly, internal/wire); errors are
// mapped to exit codes in one place (exit.go). What the CLI reaches
// outside itself — the adapters and the other front ends — is the System
// the composition root hands MainWith (system.go), bound as narrow
// interfaces.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/alecthomas/kong"

	"github.com/openpocket/openpocket/internal/executor/execset"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/workspace"
	"github.com/openpocket/openpocket/stdlib/agent"
)

// Version is set at build time with -ldflags "-X …/internal/cli.Version=…".
var Version = "0.1.0-dev"

// Globals are the flags every command accepts.
type Globals struct {
	Home    string `help:"OpenPocket home directory (config, workspace, state)." env:"OPENPOCKET_HOME" placeholder:"DIR"`
	AgentID string `name:"agent" help:"Agent of the install to act as (default: the install's own home); see openpocket agents." env:"OPENPOCKET_AGENT" placeholder:"ID"`
	Config  string `help:"Config file (default: HOME/config.json)." placeholder:"FILE"`
	// Device is the flag only: $ANDROID_SERIAL comes next (envSerial), then
	// the agent's binding and target (see resolve.go for the order).
	Device    string `help:"adb serial of the device to drive ($ANDROID_SERIAL)." short:"s" placeholder:"SERIAL"`
	Target    string `help:"TCP device endpoint to connect first (host:port)." placeholder:"HOST:PORT"`
	UseSim    bool   `name:"sim" help:"Start the embedded virtual phone, attach it to the adb server and drive it."`
	ADBServer string `name:"adb-server" help:"adb server address (default: $ADB_SERVER_SOCKET tcp:HOST:PORT, else 127.0.0.1:$ANDROID_ADB_SERVER_PORT, else 127.0.0.1:5037)." placeholder:"HOST:PORT"`
	// WaitDevice: another process driving the device refuses this one
	// (naming the holder) unless it may wait.
	WaitDevice time.Duration `name:"wait-device" help:"When another process drives the device, wait up to this long for it instead of failing." placeholder:"DURATION"`
	Verbose    bool          `short:"v" help:"Log the runtime's debug output to stderr."`

	ShowVersion kong.VersionFlag `name:"version" help:"Print the version and exit."`

	// envSerial is $ANDROID_SERIAL, read in MainWith: it ranks below
	// --device and above the agent's binding, and differs from the flag
	// in that a binding it overrides is reported.
	envSerial string
}

// deviceOrEnv is --device, else $ANDROID_SERIAL: the serial a command
// names a device by (target set, cron add).
func (g Globals) deviceOrEnv() string {
	if g.Device != "" {
		return g.Device
	}
	return g.envSerial
}

// CLI is the whole grammar.
type CLI struct {
	Globals

	Version    VersionCmd    `cmd:"" help:"Print the version."`
	HelpCmd    HelpCmd       `cmd:"" name:"help" help:"Show the help of a command: openpocket help play."`
	Completion CompletionCmd `cmd:"" help:"Print a shell completion script (bash, zsh or fish)."`
	Complete   CompleteCmd   `cmd:"" name:"__complete" hidden:"" help:"Completion candidates for the words given (used by the completion scripts)."`
	Doctor     DoctorCmd     `cmd:"" help:"Check adb, devices, model profiles, config and sandbox; one line each with the fix."`
	Init       InitCmd       `cmd:"" help:"Write a starting config.json and workspace (asks on a terminal, flags otherwise)."`
	Sim        SimCmd        `cmd:"" help:"Run the virtual phone, attached to the adb server, until Ctrl-C."`
	Devices    DevicesCmd    `cmd:"" help:"List attached devices with state and model."`
	Pair       PairCmd       `cmd:"" help:"Pair with a phone's wireless debugging (Android 11+): HOST:PORT and the code its pairing dialog shows."`
	Connect    ConnectCmd    `cmd:"" help:"Attach a phone over Wi-Fi (adb connect HOST[:PORT], port 5555 by default)."`
	Emulator   EmulatorCmd   `cmd:"" help:"List, start, stop and show Android emulators (AVDs of the Android SDK)."`
	Snapshot   SnapshotCmd   `cmd:"" help:"Capture the screen: current app, size, numbered elements, metrics."`
	Act        ActCmd        `cmd:"" help:"Normalize and execute one action given as JSON."`
	Play       PlayCmd       `cmd:"" help:"Run YAML playbooks: progress per step, a summary, reports."`
	Compile    CompileCmd    `cmd:"" help:"Print the Lua a playbook compiles to."`
	Lint       LintCmd       `cmd:"" help:"Validate playbooks without a device."`
	Convert    ConvertCmd    `cmd:"" help:"Convert flows of other tools (Maestro) into playbooks."`
	Run        RunCmd        `cmd:"" help:"Run a Lua script against the device."`
	Repl       ReplCmd       `cmd:"" help:"Interactive Lua REPL against a live device."`
	Agent      AgentCmd      `cmd:"" help:"Run a task with a model: it looks at the screen and picks one action per step."`
	Model      ModelCmd      `cmd:"" help:"List, show and choose model profiles."`
	Script     ScriptCmd     `cmd:"" help:"Run a bash or Lua script in the workspace like the run_script action."`
	Memory     MemoryCmd     `cmd:"" help:"Search and read the workspace memory (MEMORY.md, memory/*.md)."`
	Cron       CronCmd       `cmd:"" help:"Manage scheduled jobs: list, add, remove, enable, disable, run."`
	Skills     SkillsCmd     `cmd:"" help:"List, show, validate and replay skills (learned procedures) without a model."`
	Sessions   SessionsCmd   `cmd:"" help:"List and show recorded agent sessions."`
	Context    ContextCmd    `cmd:"" help:"Show what the next agent run's model receives: system prompt sections, context files, skills, tools, budget cuts."`
	Fleet      FleetCmd      `cmd:"" help:"Show the fleet of gateways coordinated through Redis (fleet.redisUrl): hosts, phones, last runs."`
	Gateway    GatewayCmd    `cmd:"" help:"Run the scheduler, heartbeat and chat channels (Telegram) in the foreground until Ctrl-C (SIGUSR1 reloads config and jobs)."`
	Auth       AuthCmd       `cmd:"" help:"List, approve and reject pending human-auth requests."`
	Agents     AgentsCmd     `cmd:"" help:"Create, list, show and remove the agents of this install."`
	TargetCmd  TargetCmd     `cmd:"" name:"target" help:"Show, set and clear the selected agent's target (its phone, bound exclusively)."`
	Dashboard  DashboardCmd  `cmd:"" help:"Serve the manager dashboard (every agent, its target, gateway state, agent pages) until Ctrl-C."`
	MCP        MCPCmd        `cmd:"" name:"mcp" help:"Serve the phone to coding agents over MCP (stdio, or streamable HTTP with --http)."`
}

// Help is the top-level help's closing text: the exit codes scripts rely on.
func (c *CLI) Help() string { return exitCodeHelp }

// App is what MainWith builds for one command: the global flags and
// streams, the values it binds (Phones, HumanAuth, the run service
// factory, the composition root's System, the providers of the home and
// config, executors and run service) and the cleanups it runs when the
// command ends. Commands declare what they use; none takes the App.
type App struct {
	Globals
	Stdout io.Writer
	Stderr io.Writer
	Ctx    context.Context
	Logger *slog.Logger

	// sys is the composition root's application: the adapters and the
	// front ends (the relay, chat channels, the MCP server, dashboards,
	// the gateway, its job runner).
	sys System
	// auth, built over sys's relay once, starts the relay when a run
	// first asks.
	auth *HumanAuth

	// cleanups run when the command ends; long-running front ends (MCP
	// calls, dashboard jobs) may register them from several goroutines.
	cleanupMu sync.Mutex
	cleanups  []func()
	// built are the providers of the home and config, executor set and
	// run service (engine.go), each built once.
	builtOnce sync.Once
	built     *built
	// phones is the command's access to devices (built in MainWith).
	phones *Phones
	// command names this process in device leases ("openpocket agent").
	command string
}

// MainWith parses args, runs the command over sys (the composition root's
// application: adapters and the front ends the CLI starts) and returns
// the process exit code.
func MainWith(ctx context.Context, args []string, stdout, stderr io.Writer, sys System) int {
	if sys == nil {
		fmt.Fprintln(stderr, "openpocket: internal error: no application assembled (cmd/openpocket passes one; a bug in openpocket)")
		return ExitInternal
	}
	var cli CLI
	kctx, exit := parse(&cli, args, stdout, stderr)
	if kctx == nil {
		return exit
	}
	// Output piped to a reader that stops early (`| head`) must not kill
	// the process before its cleanups run (the virtual phone detaches from
	// the adb server, sessions are finalized): SIGPIPE is caught, and the
	// first write that fails with EPIPE cancels the run instead.
	sigpipe := make(chan os.Signal, 1)
	signal.Notify(sigpipe, syscall.SIGPIPE)
	defer signal.Stop(sigpipe)
	ctx, cancelPipe := context.WithCancelCause(ctx)
	defer cancelPipe(nil)
	pipe := &pipeWriter{w: stdout, cancel: cancelPipe}
	stdout = pipe
	// The first Ctrl-C or SIGTERM cancels the run's context so it stops at
	// the next cancellation point and finalizes its session; a second one
	// kills the process the default way. The REPL handles Ctrl-C itself
	// (it cancels the running statement, not the REPL).
	if !strings.HasPrefix(kctx.Command(), "repl") {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		go func() {
			<-ctx.Done()
			stop()
		}()
		defer stop()
	}
	cli.Globals.envSerial = os.Getenv("ANDROID_SERIAL")
	app := &App{Globals: cli.Globals, Stdout: stdout, Stderr: stderr, Ctx: ctx, command: "openpocket " + commandName(kctx.Command()),
		sys: sys}
	// Info and above reach the terminal (log.info from Lua included);
	// --verbose adds debug. Runs with a log.txt get every level there.
	level := slog.LevelInfo
	if cli.Verbose {
		level = slog.LevelDebug
	}
	app.Logger = slog.New(newHumanHandler(stderr, level))
	app.phones = newPhones(ctx, cli.Globals, app.command, stderr, app.onExit)
	app.providers()
	defer app.runCleanups()
	if err := bindDeps(kctx, ctx, app); err != nil {
		fmt.Fprintln(stderr, "openpocket:", err)
		return ExitInternal
	}
	if err := runCommand(kctx, app); err != nil || pipe.closed.Load() {
		// A reader that went away (`| head -1`) is not an error to
		// report: the run ends quietly with the documented 130.
		if pipe.closed.Load() {
			return ExitCanceled
		}
		code := ExitCode(err)
		if code != ExitFailed || !isReported(err) {
			fmt.Fprintf(stderr, "openpocket: %s\n", strings.TrimSpace(err.Error()))
		}
		return code
	}
	return ExitOK
}

// parse parses args into cli; a nil context comes with the exit code of
// --help, of a usage error (printed) or of a grammar that does not build.
func parse(cli *CLI, args []string, stdout, stderr io.Writer) (*kong.Context, int) {
	exit := -1
	parser, err := kong.New(cli,
		kong.Name("openpocket"),
		kong.Description("A local-first runtime that drives Android phones: playbooks, agent runs, Lua skills, a REPL and schedules."),
		kong.UsageOnError(),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { exit = code }),
		kong.Vars{"version": versionLine()},
	)
	if err != nil {
		fmt.Fprintln(stderr, "openpocket:", err)
		return nil, ExitInternal
	}
	kctx, err := parser.Parse(args)
	if exit >= 0 { // --help or a parse error that already printed usage
		return nil, exit
	}
	if err != nil {
		fmt.Fprintf(stderr, "openpocket: %v\n", err)
		return nil, ExitUsage
	}
	return kctx, 0
}

// bindDeps binds what commands declare in their Run, each built once:
// the context, the output streams, the global flags, the devices
// (*Phones), the human-auth helper (*HumanAuth), and — on first use, from
// the global flags — the home (*workspace.Home), the effective config
// (workspace.Config), the run service and the agent runner (*Agents);
// OnUse opens the same home, service and executors only when a command
// gets there; the run service factory (services) and the composition
// root's System (each of its narrow interfaces) serve the long-running
// front ends (gateway, dashboard, mcp).
func bindDeps(kctx binder, ctx context.Context, app *App) error {
	kctx.Bind(app, app.devices(), app.humanAuth(), app.Globals, Streams{Stdout: app.Stdout, Stderr: app.Stderr}, app.logger(),
		app.onUse(), app.services())
	bindSystem(func(impl, iface any) { kctx.BindTo(impl, iface) }, app.sys)
	kctx.BindTo(ctx, (*context.Context)(nil))
	agents := func(auth *HumanAuth, h *workspace.Home, cfg workspace.Config) *Agents { return newAgents(auth, h, cfg) }
	for _, provider := range []any{app.home, app.config, app.runService, agents} {
		if err := kctx.BindSingletonProvider(provider); err != nil {
			return err
		}
	}
	return nil
}

// binder is what bindDeps uses of *kong.Context (a test records it to
// check every command's Run against it).
type binder interface {
	Bind(args ...any)
	BindTo(impl, iface any)
	BindSingletonProvider(provider any) error
}

// runCommand runs the parsed command. A panic — a bug of ours — becomes
// an internal error (exit 70) with one line saying so instead of a Go stack
// trace; -v adds the stack for the bug report.
func runCommand(kctx *kong.Context, app *App) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if app.Verbose {
				fmt.Fprintf(app.Stderr, "%s\n", debug.Stack())
			}
			err = internalError{fmt.Errorf("internal error: %v (a bug in openpocket: please report it with the output of the same command run with -v)", r)}
		}
	}()
	return kctx.Run(app)
}

// commandName is kong's command path without its argument placeholders
// ("agent <task>" → "agent"): it names this process to others (device
// leases) without the arguments, which may hold secrets.
func commandName(path string) string {
	var words []string
	for _, w := range strings.Fields(path) {
		if !strings.HasPrefix(w, "<") {
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}

// Streams are the command's output streams, bound once in MainWith.
type Streams struct {
	Stdout io.Writer
	Stderr io.Writer
}

// OnUse opens the command's home and run service on first use, for
// commands that need them on some paths only (play: not for --dry-run,
// and a home it cannot open fails each playbook instead of the command).
// They are the same home and service the providers bind.
type OnUse struct {
	Home    func() (*workspace.Home, error)
	Config  func() (workspace.Config, error)
	Service func() (*run.Service, error)
	// Executors is the workspace's executor set, opened once per command
	// (background exec sessions end with it).
	Executors func() (*execset.Set, error)
	// NewExecutors opens a set of the workspace's executors of its own
	// (script, memory), which the caller closes.
	NewExecutors func() (*execset.Set, error)
}

// onUse is the command's OnUse over its providers.
func (a *App) onUse() OnUse {
	later := OnUse{Home: a.home, Config: a.config, Service: a.runService, Executors: a.executorSet}
	later.NewExecutors = func() (*execset.Set, error) { return openExecutors(a.sys, later) }
	return later
}

// devices is the command's Phones (MainWith builds it; an App built in a
// test gets one over its own fields on first use).
func (a *App) devices() *Phones {
	if a.phones == nil {
		a.phones = newPhones(a.Ctx, a.Globals, a.command, a.Stderr, a.onExit)
	}
	return a.phones
}

// logger is the command's logger (slog.Default for Apps built in tests).
func (a *App) logger() *slog.Logger {
	if a.Logger != nil {
		return a.Logger
	}
	return slog.Default()
}

// defer registers work to run when the command ends (detach the virtual
// phone, close files), in reverse order.
func (a *App) onExit(fn func()) {
	a.cleanupMu.Lock()
	defer a.cleanupMu.Unlock()
	a.cleanups = append(a.cleanups, fn)
}

func (a *App) runCleanups() {
	a.cleanupMu.Lock()
	cleanups := a.cleanups
	a.cleanups = nil // each runs once, however often this is called
	a.cleanupMu.Unlock()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
}

// isTTY reports whether w is an interactive terminal; progress lines are
// only drawn there, so piped output stays clean. The check reads the
// terminal attributes: a character device is not enough, /dev/null is one.
func isTTY(w io.Writer) bool {
	if p, ok := w.(*pipeWriter); ok {
		w = p.w
	}
	return agent.IsTerminal(w)
}

// pipeWriter cancels the command when its reader has gone away and
// remembers it, so Main exits 130 without a "broken pipe" message.
type pipeWriter struct {
	w      io.Writer
	cancel context.CancelCauseFunc
	closed atomic.Bool
}

func (p *pipeWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	if errors.Is(err, syscall.EPIPE) {
		p.closed.Store(true)
		p.cancel(fmt.Errorf("output closed: %w", context.Canceled))
	}
	return n, err
}
