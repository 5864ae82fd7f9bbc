package engine

import (
	"context"
	"errors"
	"time"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
)

// Device is the port to one attached phone; internal/adb implements it.
type Device = device.Transport

// ModelRequest is one step's question to a model: exactly one action back.
type ModelRequest struct {
	// System is the system prompt (tool catalog, policies, context files).
	System string
	// Text is the per-step user message (task, screen metadata, elements,
	// history, stuck signals).
	Text string
	// ImagePNG is the screenshot shown to the model (scaled; the set-of-mark
	// version when elements exist). Nil sends no image.
	ImagePNG []byte
	// Tools are the tools offered; the model must call exactly one.
	Tools []action.Tool
}

// Usage counts tokens of one model call.
type Usage struct {
	InputTokens  int64 `json:"inputTokens"`
	OutputTokens int64 `json:"outputTokens"`
	TotalTokens  int64 `json:"totalTokens"`
}

// ModelReply is a model's decision for one step (docs/formats.md#actions)
// plus what the runtime needs to audit it.
type ModelReply struct {
	Thought string
	Action  action.Action
	// Raw is the reply as received (tool call arguments or text).
	Raw string
	// Problems explains what was wrong with the reply and how it was
	// repaired (no tool call, malformed arguments); told to the model next step.
	Problems []string
	// Mode is the endpoint that answered: "chat" or "responses".
	Mode    string
	Usage   Usage
	Latency time.Duration
}

// ErrNoAction is wrapped by Model.Decide when the model answered but the
// reply held no usable action (no tool call, nothing parseable — also an
// empty reply). Unlike an endpoint failure, the run can tell the model and
// ask again.
var ErrNoAction = errors.New("model returned no tool call and no parseable action")

// Model is the port to a language model; internal/llm implements it with
// openai-go. Implementations retry transient failures themselves.
type Model interface {
	Decide(ctx context.Context, req ModelRequest) (ModelReply, error)
	// Profile names the config profile and model ("default", "gpt-4.1").
	Profile() (profile, model string)
}

// Executor runs non-device actions (run_script, coding tools, memory tools)
// and returns the model-facing result text. An operational failure (script
// rejected, file missing) is a result, not an error; errors are reserved for
// cancellation and broken invariants.
type Executor interface {
	Execute(ctx context.Context, a action.Action) (string, error)
}

// SessionMeta is the header of a persisted session (docs/formats.md).
type SessionMeta struct {
	Task         string
	ModelProfile string
	ModelName    string
	StartedAt    time.Time
}

// StepRecord is one persisted step (docs/formats.md#session).
type StepRecord struct {
	Step    int
	At      time.Time
	Thought string
	// ActionJSON is the action as JSON (action.Action.MarshalJSON).
	ActionJSON []byte
	Result     string
}

// SessionLog is one session file being written. AppendStep writes each step
// as it happens; Finalize writes the final block exactly once (later calls
// are no-ops) so it can be deferred on every exit path.
type SessionLog interface {
	ID() string
	Path() string
	AppendStep(StepRecord) error
	Finalize(success bool, message string) error
}

// Workspace is the port to persisted state under OPENPOCKET_HOME;
// internal/workspace implements it with atomic writes.
type Workspace interface {
	BeginSession(SessionMeta) (SessionLog, error)
	// AppendDailyMemory appends the daily memory line (docs/formats.md#daily-memory).
	AppendDailyMemory(at time.Time, ok bool, profile, task, result string) error
	// SaveStepScreenshot stores a step screenshot named as docs/formats.md#screenshots-of-a-run says and
	// retention and returns its path.
	SaveStepScreenshot(at time.Time, sessionID string, step int, currentApp string, png []byte) (string, error)
	// Root is the workspace directory (OPENPOCKET_HOME/workspace).
	Root() string
}
