package agent

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/prompt"
	"github.com/openpocket/openpocket/lua"
	"github.com/openpocket/openpocket/stdlib"
)

//go:embed agent.lua
var source string

// LoopModule is the module name of the embedded loop.
const LoopModule = "agent"

// DefaultMaxSteps is agent.maxSteps' default.
const DefaultMaxSteps = 100

// CancelledMessage is the final message of a cancelled run.
const CancelledMessage = "cancelled"

// Source returns the embedded agent.lua, for users who want to start their
// own loop from it.
func Source() string { return source }

// Options configure one agent run.
type Options struct {
	// MaxSteps bounds the loop (DefaultMaxSteps when ≤ 0).
	MaxSteps int
	// SystemPromptMode is full (default), minimal or none.
	SystemPromptMode string
	// ReturnHome sends KEYCODE_HOME when the run ends (returnHomeOnTaskEnd).
	ReturnHome bool
	// LoopDelay is the pause between steps (loopDelayMs); the settle wait
	// after UI actions already waits for the screen, so 0 is fine.
	LoopDelay time.Duration
	// ContextFiles are the workspace context files for the system prompt;
	// nil reads the standard names from the engine workspace's root.
	ContextFiles []prompt.ContextFile
	// ContextBudgetChars caps the context files (150,000 when ≤ 0).
	ContextBudgetChars int
	// Skills is the skills index of the system prompt.
	Skills []prompt.Skill
	// Stdin and Stdout are the terminal request_human_auth asks on when
	// Stdin is a TTY and HumanAuth is nil.
	Stdin  io.Reader
	Stdout io.Writer
	// HumanAuth answers request_human_auth; nil asks on the terminal or,
	// without one, tells the model human auth is unavailable.
	HumanAuth HumanAuthFunc
	// UserInput answers request_user_input (nil: the action is not offered).
	UserInput UserInputFunc
	// Schedule runs cron_add/cron_list/cron_remove (nil: not offered).
	Schedule ScheduleFunc
	// Probe is humanAuth.probe: "off" (or ""), "ask" or "auto" (probe.go).
	Probe string
	// Source replaces the embedded agent.lua (module "agent").
	Source string
	// Registry is the module registry the loop runs with
	// (stdlib.Registry() when nil); agent_host and agent are added.
	Registry *lua.Registry
	// StuckAfter is the loop breaker's N (agent.stuckAfter; 0: off): after
	// N actions that change nothing, or the same action N times without
	// getting anywhere, the loop relaunches the app once, then asks the
	// person (UserInput, else the terminal), else fails "stuck: …".
	StuckAfter int
	// MaxTokens is the run's token budget (0: none): a run whose next model
	// call would exceed it, or whose last call did, ends FAILED.
	MaxTokens int64
	// History are earlier steps the model should know about before its
	// first (a replay that ran first and where it stopped).
	History []prompt.HistoryEntry
}

var (
	baseOnce sync.Once
	baseReg  *lua.Registry
)

// Registry returns stdlib's registry plus the embedded loop (module
// "agent", compiled once per process) and extra modules. agent_host is
// bound per run by Run.
func Registry(extra ...lua.Module) *lua.Registry {
	baseOnce.Do(func() {
		baseReg = stdlib.Registry()
		baseReg.MustRegisterSource(LoopModule, source)
	})
	return baseReg.With(extra...)
}

// Run runs the agent loop for sess's task and always finalizes the session
// (exactly once, through engine.Session.Finish): SUCCESS when the model
// finishes, FAILED on max steps, model errors, device errors, Lua errors
// and cancellation (message "cancelled"). The error is nil when the loop
// reached a verdict by itself (success, the task failed, max steps);
// otherwise it is the cause: the model or device error, the Lua error, or
// the cancellation (errors.Is(err, context.Canceled)).
func Run(ctx context.Context, sess *engine.Session, o Options) (res engine.RunResult, err error) {
	if sess == nil {
		return engine.RunResult{}, errors.New("agent.Run: nil session")
	}
	if ctx == nil {
		ctx = sess.Context()
	}
	o.MaxSteps, o.LoopDelay = cmp.Or(max(o.MaxSteps, 0), DefaultMaxSteps), max(o.LoopDelay, 0)
	// Cancelling ctx cancels the session, so device calls and model calls
	// stop at once; Finish does not use the session context for its writes.
	stop := context.AfterFunc(ctx, sess.Cancel)
	defer stop()
	defer func() {
		if p := recover(); p != nil {
			res = sess.Finish(false, fmt.Sprintf("internal error: %v", p))
			err = fmt.Errorf("agent run: internal error: %v", p)
		}
	}()
	if sess.Engine().Model == nil {
		return sess.Finish(false, engine.ErrNoModel.Error()), engine.ErrNoModel
	}

	h := newHost(sess, o)
	reg, err := loopRegistry(o, h)
	if err != nil {
		return sess.Finish(false, err.Error()), err
	}

	cancelled := func() bool { return ctx.Err() != nil || sess.Context().Err() != nil }
	finishCancelled := func() (engine.RunResult, error) {
		cause := context.Cause(ctx)
		if cause == nil {
			cause = context.Cause(sess.Context())
		}
		if cause == nil {
			cause = context.Canceled
		}
		msg := CancelledMessage
		// A front end that stopped the run on a person's request says so
		// in the session ("stopped by user").
		var stop interface{ StopReason() string }
		if errors.As(cause, &stop) && stop.StopReason() != "" {
			msg = stop.StopReason()
		}
		return sess.Finish(false, msg), fmt.Errorf("agent run %s: %w", msg, cause)
	}

	vm, err := stdlib.NewVMWith(ctx, reg, sess, lua.Options{})
	if err != nil {
		err = fmt.Errorf("agent VM: %w", err)
		return sess.Finish(false, err.Error()), err
	}
	defer vm.Close()
	vals, err := vm.Eval("require('" + LoopModule + "').run()")
	if err != nil {
		if cancelled() {
			return finishCancelled()
		}
		if h.cause != nil && errors.Is(err, h.cause) {
			return sess.Finish(false, err.Error()), h.cause
		}
		return sess.Finish(false, "agent loop error: "+err.Error()), fmt.Errorf("agent loop: %w", err)
	}
	ok, msg, verr := verdict(vals)
	if verr != nil {
		return sess.Finish(false, verr.Error()), verr
	}
	if h.stopped != "" {
		// A replaced loop that went on after a rejection still fails.
		ok, msg = false, h.stopped
	}
	if !ok && cancelled() {
		return finishCancelled()
	}
	res = h.finish(ok, msg)
	if !ok && h.cause != nil {
		return res, h.cause
	}
	return res, nil
}

// loopRegistry is the run's registry: the given one (or stdlib's) with the
// run's host module and the loop (embedded, or o.Source).
func loopRegistry(o Options, h *host) (*lua.Registry, error) {
	var reg *lua.Registry
	if o.Registry != nil {
		reg = o.Registry.With(h.module())
		if !reg.Has(LoopModule) && o.Source == "" {
			reg = reg.WithSource(LoopModule, source)
		}
	} else {
		reg = Registry(h.module())
	}
	if o.Source != "" {
		reg = reg.Without(LoopModule)
		if err := reg.RegisterSource(LoopModule, o.Source); err != nil {
			return nil, fmt.Errorf("agent loop source: %w", err)
		}
	}
	return reg, nil
}

// verdict reads the loop's {ok, message}.
func verdict(vals []any) (bool, string, error) {
	if len(vals) == 0 {
		return false, "", errNoVerdict
	}
	m, isMap := vals[0].(map[string]any)
	if !isMap {
		return false, "", errNoVerdict
	}
	ok, isBool := m["ok"].(bool)
	if !isBool {
		return false, "", errNoVerdict
	}
	msg, _ := m["message"].(string)
	if msg == "" {
		if ok {
			msg = "Task finished."
		} else {
			msg = "Task failed."
		}
	}
	return ok, msg, nil
}
