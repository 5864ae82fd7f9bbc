// Package channel is what every chat channel (Telegram now; Discord or
// Slack later) shares: the Channel a gateway runs next to its scheduler
// and heartbeat, and the Runner a channel starts phone tasks through.
// Channels never build engines or devices themselves: the composition
// root hands them a Runner backed by the one run service.
package channel

import (
	"context"
	"errors"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/prompt"
	"github.com/openpocket/openpocket/stdlib/agent"
)

// ReplayStep is the kind of the event a skill replay emits as each of its
// top-level steps ends: "step" is how many have ended, "action" the
// step's label (as in an agent_step event; a replay has no step budget).
const ReplayStep = "replay_step"

// Channel is one long-running chat front end.
type Channel interface {
	// Name is the config key ("telegram").
	Name() string
	// Run serves the channel until ctx ends, then stops taking messages,
	// cancels the task it runs and returns once that task has finished
	// (its session finalized).
	Run(ctx context.Context) error
	// Deliver posts a scheduled job's result to a chat ("to" is the
	// channel's chat address, e.g. a Telegram chat id).
	Deliver(ctx context.Context, to string, text string) error
}

// Runner runs phone work for a channel. Its methods use only engine and
// stdlib/agent types so the run service's owner can implement it without
// importing any channel.
type Runner interface {
	// RunTask runs an agent task and always finalizes its session.
	// onEvent receives the run's events (agent_step …); auth answers
	// request_human_auth (nil: unavailable).
	// replyTo names the chat ("telegram:4242"): jobs the model schedules
	// deliver there; ask answers request_user_input (nil: not offered).
	RunTask(ctx context.Context, task, replyTo string, onEvent func(engine.Event), auth agent.HumanAuthFunc, ask agent.UserInputFunc) (engine.RunResult, error)
	// Schedule runs cron_add / cron_list / cron_remove for the chat
	// assistant; added jobs deliver to replyTo. It returns the result in words.
	Schedule(ctx context.Context, a action.Action, replyTo string) (string, error)
	// Converse asks the chat assistant's model (endpoint order responses
	// → chat → completions, the working one remembered): it answers in
	// words (text) or calls one of req.Tools (tool, raw JSON arguments).
	Converse(ctx context.Context, req engine.ModelRequest) (text, tool, arguments string, err error)
	// Skills lists the skills that replay without a model.
	Skills(ctx context.Context) ([]prompt.Skill, error)
	// ReplaySkill replays a skill with key=value parameters; onEvent sees
	// a ReplayStep event as each top-level step of the replay ends.
	ReplaySkill(ctx context.Context, name string, params []string, onEvent func(engine.Event)) (engine.RunResult, error)
	// Onboarded reports whether the workspace's onboarding is complete
	// (workspace-state.json onboardingCompletedAt, docs/formats.md#workspace-onboarding-state).
	Onboarded(ctx context.Context) (bool, error)
	// CompleteOnboarding records how the person wants to be called
	// (USER.md) and marks onboarding complete.
	CompleteOnboarding(ctx context.Context, name string) error
	// Target names the phone tasks run on ("" when it is the adb server's
	// only device), for /status.
	Target() string
	// Screenshot returns the phone's screen as PNG.
	Screenshot(ctx context.Context) ([]byte, error)
}

// StopError is the cancellation cause of a task a person stopped: the
// session's final message is its reason ("stopped by user").
type StopError struct{ Reason string }

func (e *StopError) Error() string { return e.Reason }

// StopReason is what the agent loop records as the final message.
func (e *StopError) StopReason() string { return e.Reason }

// ErrStoppedByUser is the cause a channel cancels a task with on /stop.
var ErrStoppedByUser error = &StopError{Reason: "stopped by user"}

// IsStopped reports whether err carries a StopError.
func IsStopped(err error) bool {
	var s *StopError
	return errors.As(err, &s)
}
