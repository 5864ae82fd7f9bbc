package run

import (
	"fmt"
	"time"

	"github.com/openpocket/openpocket/engine"
)

// Kind names what an Event reports.
type Kind string

// The event kinds. Kinds a run emits that are not listed here (a script's
// events.emit("my_kind", …)) arrive with that kind and only Fields set.
const (
	KindRunStart  Kind = "run_start"  // Run is set
	KindRunEnd    Kind = "run_end"    // Run and End are set
	KindStepStart Kind = "step_start" // Step is set (playbooks, replays)
	KindStepEnd   Kind = "step_end"   // Step is set, with Status
	KindAgentStep Kind = "agent_step" // AgentStep is set
	KindProgress  Kind = "progress"   // Progress is set
	KindHumanAuth Kind = "human_auth" // HumanAuth is set
	// KindHumanAuthLink: a relay serves a human-auth request at
	// HumanAuth.URL (until HumanAuth.ExpiresAt).
	KindHumanAuthLink Kind = "human_auth_request"
	KindArtifact      Kind = "artifact"     // Artifact is set
	KindDeviceReady   Kind = "device_ready" // Ready is set
)

// RunKind is what a run executes.
type RunKind string

// The kinds of run.
const (
	RunPlaybook RunKind = "playbook"
	RunAgent    RunKind = "agent"
	RunScript   RunKind = "script"
	RunReplay   RunKind = "replay"
	RunREPL     RunKind = "repl"
)

// Event is one thing a run did. Exactly the pointer fields its Kind names
// are set; Fields holds the raw fields the Lua side emitted (nil for events
// the service makes itself). Events never carry secrets: secret playbook
// parameters and human-auth answers are not part of them.
type Event struct {
	Kind Kind
	// RunID identifies the run (unique per Service); Device is the target
	// as the options named it ("" = the default device).
	RunID  string
	Device string
	Time   time.Time

	Run       *RunInfo
	End       *RunEnd
	Step      *StepInfo
	AgentStep *AgentStepInfo
	Progress  *ProgressInfo
	HumanAuth *HumanAuthInfo
	Artifact  *ArtifactInfo
	Ready     *ReadyInfo

	Fields map[string]any
}

// RunInfo describes a run at its start and end.
type RunInfo struct {
	Kind RunKind
	// Name is the playbook's name, the agent's task, the script's or
	// skill's file name.
	Name string
}

// RunEnd is a run's verdict.
type RunEnd struct {
	Success bool
	Message string
	// SessionPath is the persisted session (agent runs), if any.
	SessionPath string
	Duration    time.Duration
}

// StepInfo is one playbook or replay step.
type StepInfo struct {
	ID    string // "3", "4.1", "on_start.1"…
	Label string
	File  string
	Line  int
	Depth int
	// Status is set on step end: passed, failed, warned or skipped.
	Status     string
	DurationMs int64
	Error      string
}

// AgentStepInfo is one step of an agent run.
type AgentStepInfo struct {
	Step     int
	MaxSteps int
	Action   string // the action's one-line summary
	Result   string
	ModelMs  int64
}

// ProgressInfo says how far a run is: Done of Total (Total 0 = unknown).
type ProgressInfo struct {
	Done, Total int
	Label       string
}

// HumanAuthInfo is a request_human_auth put to a person. It is emitted
// once when asked (Answered false) and once with the decision's status.
type HumanAuthInfo struct {
	ID          string
	Capability  string
	Instruction string
	Timeout     time.Duration
	// URL and ExpiresAt are set on human_auth_request (a relay's page).
	URL       string
	ExpiresAt string
	Answered  bool
	// Status is approved, rejected or timeout once Answered (the text a
	// person typed is never part of the event).
	Status string
}

// ArtifactInfo is a file a run wrote (log, steps.json, failure screenshot,
// learned skill…).
type ArtifactInfo struct {
	Path string
	// Role says what it is: log, steps, lua, failure_png, failure_xml,
	// session, skill, script.
	Role string
}

// ReadyInfo is the device wake/unlock before a run.
type ReadyInfo struct {
	Ready bool
	Steps []string
	Error string
	// Report is the human line of what was done ("" when nothing was).
	Report string
}

// fromEngine turns a session's raw event into a typed Event.
func fromEngine(ev engine.Event) Event {
	f := ev.Fields
	out := Event{Kind: Kind(ev.Kind), Fields: f, Time: time.Now()}
	switch out.Kind {
	case KindStepStart, KindStepEnd:
		out.Step = &StepInfo{ID: idField(f, "id"), Label: strField(f, "label"), File: strField(f, "file"), Line: intField(f, "line"),
			Depth: intField(f, "depth"), Status: strField(f, "status"), DurationMs: int64(intField(f, "duration_ms")), Error: strField(f, "error")}
	case KindAgentStep:
		out.AgentStep = &AgentStepInfo{Step: intField(f, "step"), MaxSteps: intField(f, "max_steps"), Action: strField(f, "action"),
			Result: strField(f, "result"), ModelMs: int64(intField(f, "model_ms"))}
	case KindHumanAuthLink:
		out.HumanAuth = &HumanAuthInfo{ID: strField(f, "request_id"), Capability: strField(f, "capability"),
			Instruction: strField(f, "instruction"), URL: strField(f, "url"), ExpiresAt: strField(f, "expires_at")}
	case KindDeviceReady:
		r := &ReadyInfo{Error: strField(f, "error")}
		r.Ready, _ = f["ready"].(bool)
		r.Steps, _ = f["steps"].([]string)
		r.Report, _ = f["report"].(string)
		out.Ready = r
	}
	return out
}

func intField(f map[string]any, k string) int {
	switch v := f[k].(type) {
	case float64:
		return int(v)
	case int:
		return v
	case int64:
		return int(v)
	}
	return 0
}

func strField(f map[string]any, k string) string {
	s, _ := f[k].(string)
	return s
}

func idField(f map[string]any, k string) string {
	switch v := f[k].(type) {
	case string:
		return v
	case float64, int, int64:
		return fmt.Sprint(v)
	}
	return ""
}
