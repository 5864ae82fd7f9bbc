package run

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/capability"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/prompt"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/skills"
	"github.com/openpocket/openpocket/lua"
	"github.com/openpocket/openpocket/stdlib"
	"github.com/openpocket/openpocket/stdlib/executors"
	"github.com/openpocket/openpocket/stdlib/skillsmod"
)

// DeviceOpener opens the target device of a run ("" = the default device)
// and takes whatever lease keeps other processes off it. release is called
// once when the run that opened it ends (nil: nothing to release).
type DeviceOpener func(ctx context.Context, target string) (d engine.Device, release func(), err error)

// ModelFactory builds the model client of a profile ("" = the default).
type ModelFactory func(profile string) (engine.Model, error)

// AgentDefaults are config.json's agent settings.
type AgentDefaults struct {
	MaxSteps           int
	SystemPromptMode   string
	ReturnHome         bool
	LoopDelay          time.Duration
	ContextBudgetChars int
	// AutoArtifacts writes a learned skill and replay script after a
	// successful run (agent.autoArtifactsEnabled).
	AutoArtifacts bool
	// Probe is humanAuth.probe: off, ask or auto (stdlib/agent).
	Probe string
	// StuckAfter is the loop breaker's N (agent.stuckAfter; 0: off).
	StuckAfter int
	// MaxTokens is a run's token budget (agent.maxTokens; 0: none).
	MaxTokens int64
	// ReplayFirst is agent.replayFirst: front ends set
	// AgentOptions.ReplayFirst from it (a run only replays when asked).
	ReplayFirst bool
}

// Config are the Service's dependencies, bound once by the composition
// root. Only OpenDevice is required for device runs; a nil Model fails
// agent runs with engine.ErrNoModel.
type Config struct {
	OpenDevice DeviceOpener
	// Lease takes a device's lease when a run first opens it (nil: no
	// lease, e.g. a service that only looks at screens). By default the
	// run releases it when it ends, so a long-running front end (the
	// gateway, a dashboard) drives a phone only while a run of it does.
	Lease LeaseFunc
	// HoldLeases keeps each lease from the first run that takes it until
	// Close instead: a CLI command (play DIR running several files, a
	// REPL) holds its device for the whole command.
	HoldLeases   bool
	PhoneOptions device.Options
	Model        ModelFactory
	// ModelImage is how a model profile wants its screenshots; a run with
	// that model captures in that encoding (nil or false: PhoneOptions').
	ModelImage func(profile string) (screen.ImageEncoding, bool)
	// Executors are the workspace's executors (run_script, memory, coding
	// tools and their Lua modules); nil runs without them.
	Executors executors.Set
	// NewExecutors, when set instead, gives each run executors of its own,
	// closed when the run ends: its background exec sessions end with it
	// and runs on other phones never see them (the gateway's jobs).
	NewExecutors func() (set executors.Set, close func())
	// Store persists agent sessions and memory (the workspace); nil keeps
	// nothing.
	Store engine.Workspace
	// WorkspaceDir receives learned skills; StateDir holds playbook run
	// output (StateDir/runs) unless a run names its own directory.
	WorkspaceDir string
	StateDir     string
	// ContextFiles reads the workspace's context files for the agent's
	// system prompt within a budget of characters.
	ContextFiles func(budget int) []prompt.ContextFile
	// Skills finds skills for the agent's index, the skills module and
	// Replay by name.
	Skills *skills.Loader
	Agent  AgentDefaults
	// Permissions answers permission dialogs by policy in every run
	// (agent, playbook, script, replay); nil leaves them on screen.
	Permissions *capability.Policy
	// PIN unlocks a PIN keyguard before runs (target.pin).
	PIN string
	// Logger is the runtime's log; LogHandler formats a run's own log
	// file (log.txt); both default to slog's.
	Logger     *slog.Logger
	LogHandler func(w io.Writer, level slog.Level) slog.Handler
}

// Service starts runs. It is safe for concurrent use: runs on different
// devices may proceed at once (each run has its own session and VM).
type Service struct {
	cfg   Config
	runs  atomic.Int64
	mu    sync.Mutex
	subs  map[int64]func(Event)
	subID int64
	// held are the leases a HoldLeases service keeps until Close.
	leaseMu sync.Mutex
	held    map[string]func()
	// phones are the phones kept for direct use (Phone), closed by Close.
	phonesMu   sync.Mutex
	phones     map[phoneKey]*device.Phone
	phoneClose []func()
}

// New builds the service from its dependencies.
func New(cfg Config) *Service {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.LogHandler == nil {
		cfg.LogHandler = func(w io.Writer, level slog.Level) slog.Handler {
			return slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})
		}
	}
	if cfg.Skills == nil {
		cfg.Skills = &skills.Loader{}
	}
	return &Service{cfg: cfg, subs: map[int64]func(Event){}, held: map[string]func(){}, phones: map[phoneKey]*device.Phone{}}
}

// Config returns the dependencies the service was built with.
func (s *Service) Config() Config { return s.cfg }

// Subscribe delivers every event of every run to fn (in the goroutine of
// the run that emitted it; fn must not block for long) until the returned
// cancel is called.
func (s *Service) Subscribe(fn func(Event)) (cancel func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subID++
	id := s.subID
	s.subs[id] = fn
	return func() {
		s.mu.Lock()
		delete(s.subs, id)
		s.mu.Unlock()
	}
}

func (s *Service) publish(ev Event) {
	s.mu.Lock()
	subs := make([]func(Event), 0, len(s.subs))
	for _, fn := range s.subs {
		subs = append(subs, fn)
	}
	s.mu.Unlock()
	for _, fn := range subs {
		fn(ev)
	}
}

// Target names the device a run drives: an adb serial, or "" for the
// default device the composition root configured.
type Target struct {
	Device string
	// claim is the device opened and leased ahead of the run
	// (Service.Claim); the run adopts it.
	claim *Claim
}

// lifecycle is one run in progress: its id, events and device releases.
type lifecycle struct {
	svc    *Service
	id     string
	kind   RunKind
	name   string
	target string
	start  time.Time
	events func(Event)
	// observe sees every event first (the playbook's step recorder).
	observe func(Event)
	// exec are the run's executors (Config.Executors, or its own from
	// Config.NewExecutors).
	exec executors.Set
	// claim is the device the run adopted (Target.claim); leased are the
	// serials whose leases the run holds (taken once per run).
	claim    *Claim
	mu       sync.Mutex
	releases []func()
	leased   map[string]bool
}

// begin starts a run and emits run_start.
func (s *Service) begin(kind RunKind, name string, t Target, events func(Event)) *lifecycle {
	lc := &lifecycle{svc: s, id: fmt.Sprintf("%s-%d", kind, s.runs.Add(1)), kind: kind, name: name, target: t.Device,
		start: time.Now(), events: events, leased: map[string]bool{}, exec: s.cfg.Executors}
	if s.cfg.NewExecutors != nil {
		set, closeSet := s.cfg.NewExecutors()
		lc.exec = set
		lc.addRelease(closeSet)
	}
	if c := t.claim; c != nil {
		// The run owns the claimed lease from now on: its end releases it.
		lc.claim = c
		lc.leased[c.serial] = true
		lc.releases = append(lc.releases, c.Release)
	}
	lc.emit(Event{Kind: KindRunStart, Run: &RunInfo{Kind: kind, Name: name}})
	return lc
}

// emit stamps ev with the run and delivers it to the run's own sink and
// the service's subscribers.
func (lc *lifecycle) emit(ev Event) {
	ev.RunID, ev.Device = lc.id, lc.target
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	if lc.observe != nil {
		lc.observe(ev)
	}
	if lc.events != nil {
		lc.events(ev)
	}
	lc.svc.publish(ev)
}

func (lc *lifecycle) artifact(path, role string) {
	lc.emit(Event{Kind: KindArtifact, Artifact: &ArtifactInfo{Path: path, Role: role}})
}

// end releases the devices the run opened and emits run_end.
func (lc *lifecycle) end(success bool, message, sessionPath string) {
	lc.mu.Lock()
	rel := lc.releases
	lc.releases = nil
	lc.mu.Unlock()
	for i := len(rel) - 1; i >= 0; i-- {
		rel[i]()
	}
	lc.emit(Event{Kind: KindRunEnd, Run: &RunInfo{Kind: lc.kind, Name: lc.name},
		End: &RunEnd{Success: success, Message: message, SessionPath: sessionPath, Duration: time.Since(lc.start)}})
}

// engineOptions choose what a run's engine gets.
type engineOptions struct {
	persist bool
	model   bool
	// modelIfAny gives the engine the model when one is configured and
	// none otherwise (a playbook's AI steps then fail saying so).
	modelIfAny bool
	profile    string
	logger     *slog.Logger
}

// engine composes the engine of one run.
func (lc *lifecycle) engine(o engineOptions) (*engine.Engine, error) {
	cfg := lc.svc.cfg
	e := &engine.Engine{OpenDevice: lc.openDevice, PhoneOptions: cfg.PhoneOptions, Logger: cfg.Logger, Permissions: cfg.Permissions}
	if o.logger != nil {
		e.Logger = o.logger
	}
	if lc.exec != nil {
		e.Executors = lc.exec.Actions(executors.VMRunner(lc.registry(), engine.SessionFrom))
	}
	if o.persist {
		e.Workspace = cfg.Store
	}
	if o.model || o.modelIfAny {
		if cfg.Model == nil {
			if !o.model {
				return e, nil
			}
			return nil, engine.ErrNoModel
		}
		m, err := cfg.Model(o.profile)
		if err != nil {
			if !o.model {
				e.Logger.Debug("no model for AI steps or skill repair", "err", err)
				return e, nil
			}
			return nil, err
		}
		e.Model = m
		if cfg.ModelImage != nil {
			if enc, ok := cfg.ModelImage(o.profile); ok {
				e.PhoneOptions.Image = enc
			}
		}
	}
	return e, nil
}

// session starts the run's engine session; its raw events become typed
// events of this run.
func (lc *lifecycle) session(ctx context.Context, e *engine.Engine, opts engine.SessionOptions) (*engine.Session, error) {
	var mu sync.Mutex
	done := 0
	opts.OnEvent = func(ev engine.Event) {
		typed := fromEngine(ev)
		lc.emit(typed)
		// Progress: agent steps of the step budget, top-level playbook and
		// replay steps done (their total is not known in advance).
		switch {
		case typed.AgentStep != nil:
			lc.emit(Event{Kind: KindProgress, Progress: &ProgressInfo{Done: typed.AgentStep.Step, Total: typed.AgentStep.MaxSteps, Label: typed.AgentStep.Action}})
		case typed.Kind == KindStepEnd && typed.Step.Depth == 0:
			mu.Lock()
			done++
			n := done
			mu.Unlock()
			lc.emit(Event{Kind: KindProgress, Progress: &ProgressInfo{Done: n, Label: typed.Step.Label}})
		}
	}
	return e.NewSession(ctx, opts)
}

// Modules are the modules added to the standard library for every run:
// the executor modules (script, fs, exec, process, memory) and skills.
// With Config.NewExecutors each run has its own (lifecycle.modules).
func (s *Service) Modules() []lua.Module { return s.modulesWith(s.cfg.Executors) }

// modules are the run's modules, over its own executors.
func (lc *lifecycle) modules() []lua.Module { return lc.svc.modulesWith(lc.exec) }

// registry is the module set the run's VMs see.
func (lc *lifecycle) registry() *lua.Registry { return stdlib.Registry(lc.modules()...) }

func (s *Service) modulesWith(set executors.Set) []lua.Module {
	var mods []lua.Module
	if set != nil {
		mods = append(mods, executors.Modules(set.Tools())...)
	}
	return append(mods, skillsmod.New(SkillLibrary(s.cfg.Skills)))
}

// Registry is the module set every run sees: the standard library plus
// Modules.
func (s *Service) Registry() *lua.Registry { return stdlib.Registry(s.Modules()...) }

// ready wakes and unlocks the session's device before a run: a phone that
// went to sleep would otherwise start every run on a black or lock screen.
// It emits device_ready and returns the error when the device stays
// locked.
func (lc *lifecycle) ready(sess *engine.Session) error {
	phone, err := sess.Phone()
	if err != nil {
		return &NotReadyError{err}
	}
	return lc.makeReady(sess, phone)
}

// makeReady wakes and unlocks phone for sess's run and emits device_ready
// (also the engine's PhoneReady hook of Lua scripts, which open the
// device on first use).
func (lc *lifecycle) makeReady(sess *engine.Session, phone *device.Phone) error {
	rep, err := phone.EnsureReady(sess.Context(), device.ReadyOptions{PIN: lc.svc.cfg.PIN})
	fields := map[string]any{"steps": rep.Steps, "ready": err == nil}
	if err != nil {
		fields["error"] = err.Error()
	}
	if len(rep.Steps) > 0 && err == nil {
		fields["report"] = rep.String()
	}
	sess.Emit(string(KindDeviceReady), fields)
	if err != nil {
		return &NotReadyError{fmt.Errorf("device %s: %w", phone.Serial(), err)}
	}
	return nil
}

// NotReadyError is a run that never started its work: the device could
// not be opened, woken or unlocked. Its message is the cause's.
type NotReadyError struct{ Err error }

func (e *NotReadyError) Error() string { return e.Err.Error() }
func (e *NotReadyError) Unwrap() error { return e.Err }
