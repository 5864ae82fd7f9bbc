package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/capability"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
)

// Engine holds what every run shares: how to reach the device, the model,
// the executors and the workspace. The CLI builds one per process.
type Engine struct {
	// OpenDevice connects to the target device; called lazily, once per
	// session, the first time a run touches the device.
	OpenDevice func(ctx context.Context) (Device, error)
	// PhoneOptions tune the device layer (settle, cache, model style).
	PhoneOptions device.Options
	// PhoneReady, when set, runs when a session has opened its phone and
	// before anything uses it (a Lua script's first device call wakes and
	// unlocks the phone). Its error is the caller's, and the phone is
	// opened again on the next use, so a phone unlocked by hand works.
	PhoneReady func(s *Session, p *device.Phone) error
	// Model decides agent steps; nil when no model is configured.
	Model Model
	// Executors run non-device actions, keyed by action type.
	Executors map[string]Executor
	// Workspace persists sessions, memory and screenshots; nil for
	// throwaway runs (tests, REPL without a home).
	Workspace Workspace
	// Logger receives the runtime's structured log.
	Logger *slog.Logger
	// Defaults are config overrides of the action defaults.
	Defaults action.Defaults
	// Permissions answers the permission controller's dialogs by policy
	// (humanAuth.permissions) before any caller sees them; nil leaves them
	// on screen.
	Permissions *capability.Policy
}

// SessionOptions describe one run.
type SessionOptions struct {
	// Task is the human description (the agent task, the playbook name).
	Task string
	// Persist writes a session file through the workspace.
	Persist bool
	// Phone reuses an already opened phone (REPL, tests) instead of
	// calling OpenDevice.
	Phone *device.Phone
	// ArtifactsDir is where a run's relative artifact paths go
	// (screenshots a playbook saves); "" means the workspace.
	ArtifactsDir string
	// OnEvent receives structured events a run emits (playbook steps,
	// agent steps) for progress lines and reports; nil drops them.
	OnEvent func(Event)
}

// Event is one structured event of a run: Kind names it ("step_start",
// "step_end", "agent_step", …), Fields carry its data.
type Event struct {
	Kind   string
	Fields map[string]any
}

// Int reads a number field; Lua numbers arrive as float64. 0 when absent.
func (e Event) Int(name string) int {
	switch v := e.Fields[name].(type) {
	case float64:
		return int(v)
	case int:
		return v
	case int64:
		return int(v)
	}
	return 0
}

// Str reads a string field; "" when absent or not a string.
func (e Event) Str(name string) string {
	s, _ := e.Fields[name].(string)
	return s
}

// ErrNoModel reports an agent run without a configured model.
var ErrNoModel = errors.New("no model configured: add a profile to config.json `models` or pass --model")

// Session is one run bound to one device. Its context ends when the run is
// cancelled (Ctrl-C, timeout, gateway stop).
type Session struct {
	engine *Engine
	opts   SessionOptions
	ctx    context.Context
	cancel context.CancelFunc
	log    SessionLog

	// phoneMu serializes connecting, apart from mu: opening a device may
	// take seconds and must not hold up Record, Trace or Finish.
	phoneMu sync.Mutex
	phone   *device.Phone

	mu       sync.Mutex
	notes    []string // local_vm_permission= lines for the next recorded step
	trace    []TraceStep
	usage    Usage
	finished bool
	result   RunResult
}

// NewSession starts a run. With Persist set, the session file is created
// now, so even a run that fails at once leaves a finalized record.
func (e *Engine) NewSession(ctx context.Context, opts SessionOptions) (*Session, error) {
	ctx, cancel := context.WithCancel(ctx)
	s := &Session{engine: e, opts: opts, cancel: cancel, phone: opts.Phone}
	if opts.Phone != nil {
		s.guard(opts.Phone)
	}
	// The run's context carries its session, so executors reached through
	// Act (a run_script in Lua) can bind the same device and trace.
	s.ctx = context.WithValue(ctx, sessionKey{}, s)
	if opts.Persist && e.Workspace != nil {
		profile, model := "", ""
		if e.Model != nil {
			profile, model = e.Model.Profile()
		}
		log, err := e.Workspace.BeginSession(SessionMeta{Task: opts.Task, ModelProfile: profile, ModelName: model, StartedAt: time.Now()})
		if err != nil {
			cancel()
			return nil, err
		}
		s.log = log
	}
	return s, nil
}

type sessionKey struct{}

// SessionFrom returns the session whose run context ctx derives from, nil
// when there is none.
func SessionFrom(ctx context.Context) *Session {
	s, _ := ctx.Value(sessionKey{}).(*Session)
	return s
}

// Emit forwards an event to SessionOptions.OnEvent.
func (s *Session) Emit(kind string, fields map[string]any) {
	if s.opts.OnEvent != nil {
		s.opts.OnEvent(Event{Kind: kind, Fields: fields})
	}
}

// ArtifactsDir is where relative artifact paths of this run resolve: the
// run's own directory when set, else the workspace, else "".
func (s *Session) ArtifactsDir() string {
	if s.opts.ArtifactsDir != "" {
		return s.opts.ArtifactsDir
	}
	if s.engine.Workspace != nil {
		return s.engine.Workspace.Root()
	}
	return ""
}

// Context is the run's context.
func (s *Session) Context() context.Context { return s.ctx }

// Cancel stops the run.
func (s *Session) Cancel() { s.cancel() }

// Engine returns the engine the session belongs to.
func (s *Session) Engine() *Engine { return s.engine }

// Task is the run's task text.
func (s *Session) Task() string { return s.opts.Task }

// Logger is the run's logger.
func (s *Session) Logger() *slog.Logger {
	if s.engine.Logger != nil {
		return s.engine.Logger
	}
	return slog.Default()
}

// SessionPath is the persisted session file, "" when not persisted.
func (s *Session) SessionPath() string {
	if s.log == nil {
		return ""
	}
	return s.log.Path()
}

// SessionID is the persisted session id, "" when not persisted.
func (s *Session) SessionID() string {
	if s.log == nil {
		return ""
	}
	return s.log.ID()
}

// Phone returns the session's phone, connecting on first use.
func (s *Session) Phone() (*device.Phone, error) {
	s.phoneMu.Lock()
	defer s.phoneMu.Unlock()
	if s.phone != nil {
		return s.phone, nil
	}
	if s.engine.OpenDevice == nil {
		return nil, errors.New("no device configured")
	}
	t, err := s.engine.OpenDevice(s.ctx)
	if err != nil {
		return nil, err
	}
	p := device.NewPhone(t, s.engine.PhoneOptions)
	s.guard(p)
	if ready := s.engine.PhoneReady; ready != nil {
		if err := ready(s, p); err != nil {
			return nil, err
		}
	}
	s.phone = p
	return s.phone, nil
}

// Capture takes a snapshot of the session's device. A task that talks
// about the soft keyboard's keys gets them listed instead of folded
// (screen.TaskNeedsKeys).
func (s *Session) Capture(o device.CaptureOptions) (*screen.Snapshot, error) {
	p, err := s.Phone()
	if err != nil {
		return nil, err
	}
	o.KeyboardKeys = o.KeyboardKeys || screen.TaskNeedsKeys(s.Task())
	return guardedCapture(s.ctx, p, o)
}

// Act executes one action: device and control actions on the phone, the
// rest through the executor registered for its type. A missing executor is
// a result the model can read, not a crash.
func (s *Session) Act(a action.Action, o device.ActOptions) (device.Outcome, error) {
	return s.ActContext(s.ctx, a, o)
}

// ActContext is Act bounded by ctx instead of the run's context, so one
// call (a REPL line) can be interrupted without ending the session. ctx
// should derive from the run's context; it is made to carry the session.
func (s *Session) ActContext(ctx context.Context, a action.Action, o device.ActOptions) (device.Outcome, error) {
	if SessionFrom(ctx) != s {
		ctx = context.WithValue(ctx, sessionKey{}, s)
	}
	return s.HoldToPolicy(ctx, a, func() (device.Outcome, error) { return s.act(ctx, a, o) })
}

// act is ActContext once ctx carries the session.
func (s *Session) act(ctx context.Context, a action.Action, o device.ActOptions) (device.Outcome, error) {
	if device.IsDeviceAction(a) {
		p, err := s.Phone()
		if err != nil {
			return device.Outcome{}, err
		}
		return p.Execute(ctx, a, o)
	}
	out := device.Outcome{Device: a}
	ex := s.engine.Executors[a.Type]
	if ex == nil {
		out.Result = fmt.Sprintf("%s is not available in this runtime (no executor configured); choose another action.", a.Type)
		return out, nil
	}
	res, err := ex.Execute(ctx, a)
	out.Result = res
	return out, err
}

// Record appends one step to the trace and, when persisted, to the session
// file as it happens, so a crash keeps every completed step.
func (s *Session) Record(st TraceStep) error {
	s.mu.Lock()
	if st.Step == 0 {
		st.Step = len(s.trace) + 1
	}
	if st.At.IsZero() {
		st.At = time.Now()
	}
	if len(s.notes) > 0 {
		st.Result = strings.TrimLeft(st.Result+"\n"+strings.Join(s.notes, "\n"), "\n")
		s.notes = nil
	}
	s.trace = append(s.trace, st)
	s.usage.InputTokens += st.Usage.InputTokens
	s.usage.OutputTokens += st.Usage.OutputTokens
	s.usage.TotalTokens += st.Usage.TotalTokens
	s.mu.Unlock()
	if s.log == nil {
		return nil
	}
	js, err := st.Action.MarshalJSON()
	if err != nil {
		return err
	}
	return s.log.AppendStep(StepRecord{Step: st.Step, At: st.At, Thought: st.Thought, ActionJSON: js, Result: st.Result})
}

// Trace returns a copy of the recorded steps.
func (s *Session) Trace() []TraceStep {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]TraceStep(nil), s.trace...)
}

// Finish finalizes the run exactly once: the session file's final block,
// the daily memory line. Later calls return the first result. It is safe to
// defer on every exit path; it does not use the (possibly cancelled) run
// context for its writes.
func (s *Session) Finish(success bool, message string) RunResult {
	s.mu.Lock()
	if s.finished {
		r := s.result
		s.mu.Unlock()
		return r
	}
	s.finished = true
	notes := s.notes
	s.notes = nil
	s.result = RunResult{Success: success, Message: message, SessionPath: s.SessionPath(), Steps: len(s.trace), Usage: s.usage}
	r := s.result
	s.mu.Unlock()
	defer s.cancel()
	if s.log != nil && len(notes) > 0 {
		s.recordNotes(notes, r.Steps+1)
	}
	if s.log != nil {
		if err := s.log.Finalize(success, message); err != nil {
			s.Logger().Error("finalize session", "path", s.log.Path(), "err", err)
		}
		if ws := s.engine.Workspace; ws != nil {
			profile := ""
			if s.engine.Model != nil {
				profile, _ = s.engine.Model.Profile()
			}
			if err := ws.AppendDailyMemory(time.Now(), success, profile, s.opts.Task, message); err != nil {
				s.Logger().Error("daily memory", "err", err)
			}
		}
	}
	return r
}

// RunResult is the outcome of a run (upstream's AgentRunResult plus counts).
type RunResult struct {
	Success     bool   `json:"success"`
	Message     string `json:"message"`
	SessionPath string `json:"sessionPath,omitempty"`
	Steps       int    `json:"steps"`
	Usage       Usage  `json:"tokens"`
	SkillPath   string `json:"skillPath,omitempty"`
	ScriptPath  string `json:"scriptPath,omitempty"`
	// Replaced are earlier learned skills and scripts (same task or same
	// behaviour) the new skill replaced: said, never silent.
	Replaced []string `json:"replaced,omitempty"`
}

// TraceStep is one step of a run with everything replay needs later.
type TraceStep struct {
	Step    int           `json:"step"`
	At      time.Time     `json:"at"`
	Thought string        `json:"thought,omitempty"`
	Action  action.Action `json:"action"`
	// DeviceAction is the action in device pixels.
	DeviceAction action.Action `json:"deviceAction"`
	Result       string        `json:"result"`
	// Target describes the element acted on, nil for actions without one.
	Target     *Target `json:"target,omitempty"`
	AppBefore  string  `json:"appBefore,omitempty"`
	AppAfter   string  `json:"appAfter,omitempty"`
	HashBefore string  `json:"hashBefore,omitempty"`
	HashAfter  string  `json:"hashAfter,omitempty"`
	Changed    bool    `json:"changed"`
	Screenshot string  `json:"screenshot,omitempty"`
	// ScreenWidth and ScreenHeight are the device screen the step was
	// decided on, so a replay can scale a recorded point to another size.
	ScreenWidth  int   `json:"screenWidth,omitempty"`
	ScreenHeight int   `json:"screenHeight,omitempty"`
	Usage        Usage `json:"usage"`
	ModelMs      int64 `json:"modelMs,omitempty"`
}

// Target identifies an element so a replay can find it again.
type Target struct {
	Text        string      `json:"text,omitempty"`
	ResourceID  string      `json:"resourceId,omitempty"`
	ContentDesc string      `json:"contentDesc,omitempty"`
	ClassName   string      `json:"className,omitempty"`
	Bounds      screen.Rect `json:"bounds"`
	// Index is the element's position among the nodes matching the same
	// selector, so "the second Save button" stays the second.
	Index int `json:"index"`
	// Near is the label beside the element (its row's title, the caption
	// under an icon, a dialog's message), recorded so a replay can tell
	// same-looking elements apart and recognise the dialog it answers.
	Near string `json:"near,omitempty"`
	// Password marks a password field: what is typed into it is a secret
	// a skill must not keep.
	Password bool `json:"password,omitempty"`
}
