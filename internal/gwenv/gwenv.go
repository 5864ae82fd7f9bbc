// Package gwenv is what the gateway and its job runner are built from:
// the one definition the CLI fills in and internal/gateway reads, so no
// layer keeps a look-alike struct to copy field by field. It holds types
// only. The CLI may import it (it is no front end), while it may not import
// internal/gateway itself: front ends never import each other, and the
// composition root hands the CLI's value to the gateway unchanged.
package gwenv

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/fleet"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/workspace"
)

// Gateway is what a gateway is built from: the agent's home and config,
// its streams, and the ports the CLI implements over its devices.
type Gateway struct {
	Home *workspace.Home
	// ConfigPath is reread on reload (SIGUSR1); Config is the effective
	// config now.
	ConfigPath string
	Config     workspace.Config
	// Stderr receives one line per event; TTY draws them compact.
	Stderr  io.Writer
	TTY     bool
	Verbose bool
	Logger  *slog.Logger
	// StopTimeout bounds the wait for cancelled jobs after Ctrl-C
	// (--stop-timeout).
	StopTimeout time.Duration
	// DefaultDevice names the device of jobs without one (per-device
	// exclusion and messages).
	DefaultDevice string

	// NewService builds a run service from a config: the global flags'
	// device selection, each run holding its device's lease for exactly
	// the run, the workspace's executors of that config. close ends it
	// (executors) once no run uses it any more.
	NewService func(cfg workspace.Config) (svc *run.Service, close func())
	// HumanAuth is the request_human_auth answerer of agent jobs on a
	// service of cfg (the relay when humanAuth.enabled; links on stderr;
	// nil: none).
	HumanAuth func(cfg workspace.Config) HumanAuthFor
	// KeepAwake wakes a device running a long task (heartbeat).
	KeepAwake func(ctx context.Context, serial string) error
	// CountDevices counts the adb server's devices and those online for
	// the heartbeat line (nil: 0 and 0).
	CountDevices func(ctx context.Context) (all, online int, err error)
	// Phones lists this host's phones for a fleet's placement (nil: none
	// known).
	Phones func(ctx context.Context) ([]fleet.Phone, error)
	// Agent is the agent this gateway serves; Agents lists its install's
	// agents with their bound phones, for fleet jobs that name an agent
	// (nil: none known).
	Agent  string
	Agents func(ctx context.Context) ([]fleet.AgentPhone, error)
	// StartChannels builds the chat channels cfg enables; current gives
	// their work the gateway's current run service (nil: no channels).
	StartChannels func(cfg workspace.Config, stateDir string, current Current, logger *slog.Logger) ([]Channel, error)
}

// HumanAuthFor builds an agent run's human-auth answerer once its session
// exists (run.AgentOptions.HumanAuthFor).
type HumanAuthFor = func(ctx context.Context, sess *engine.Session) (run.HumanAuthFunc, error)

// Current holds the gateway's current run service and the config it was
// built from for one piece of work; done ends the hold.
type Current = func() (svc *run.Service, cfg workspace.Config, done func())

// Channel is a chat front end the gateway runs (internal/channel's).
type Channel interface {
	Name() string
	Run(ctx context.Context) error
	Deliver(ctx context.Context, to string, text string) error
}

// JobRunner is what a job runner for one job run outside the gateway's
// scheduler is built from (`openpocket cron run`, a dashboard's "Run
// now"): the gateway's own payload → run mapping, on the service given.
type JobRunner struct {
	// Service is the command's run service.
	Service *run.Service
	// Base resolves relative payload paths of hand-written jobs (the
	// workspace); "" leaves them to the process's working directory.
	// Payload files under Base (and the playbooks they include) are read
	// through an os.Root there; a path outside it runs only when signed.
	Base string
	// StateDir holds the key that signs payload paths `cron add` wrote
	// (cron.DeliveryKey); "" trusts no signature.
	StateDir string
	// Warn receives playbook compile warnings.
	Warn io.Writer
	// HumanAuth builds an agent run's human-auth answerer (nil: the run's
	// defaults).
	HumanAuth HumanAuthFor
	// Agent is the template of agent runs' options: a foreground run's
	// terminal (Stdin, Stdout) and progress (Events). Target, Task and
	// Model come from the job.
	Agent run.AgentOptions
	// BadInput wraps the errors of bad input (a playbook that does not
	// compile, a script that cannot be read, an unknown skill or a
	// malformed skill parameter), so a command can map them to its exit
	// code; nil leaves them as they are.
	BadInput func(error) error
}
