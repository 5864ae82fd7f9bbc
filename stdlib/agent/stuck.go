package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/lua"
)

// The loop breaker (agent.stuckAfter): a model that taps a dead control
// would otherwise spend every step up to max-steps on it. The detector
// lives here, fed by host.act; what to do about it (relaunch once, then ask
// the person, else fail "stuck") is agent.lua's, through host.stuck,
// host.relaunch and host.ask_person.

// loopBreaker watches the observed UI actions of a run.
type loopBreaker struct {
	// after is N (0: off).
	after int
	// recent are the observed UI actions since the last reset, at most
	// after of them.
	recent []observed
	// probation is set by a relaunch: until an action changes something,
	// one that changes nothing means the relaunch did not help.
	probation bool
}

// observed is one UI action and what it did to the screen.
type observed struct {
	action  string
	changed bool
	screen  string // app and visual hash after it
}

// observe records one executed action. Only actions with a state delta
// count (UI actions); a person's answer starts afresh.
func (b *loopBreaker) observe(a action.Action, out device.Outcome) {
	if b.after <= 0 {
		return
	}
	if s, _ := action.Lookup(a.Type); s.Category == action.CategoryChat || s.Category == action.CategoryHumanAuth {
		b.reset()
		return
	}
	if out.HashAfter == "" && out.AppAfter == "" {
		return // not observed: wait, memory, scripts neither help nor hurt
	}
	if out.Changed {
		b.probation = false
	}
	b.recent = append(b.recent, observed{action: a.String(), changed: out.Changed, screen: out.AppAfter + "/" + out.HashAfter})
	if len(b.recent) > b.after {
		b.recent = b.recent[len(b.recent)-b.after:]
	}
}

// stuck says why the run is stuck ("" when it is not): the last N actions
// changed nothing, or were the same action N times with the screen going
// back to where it was (a toggle flipped back and forth; a scroll that
// shows new rows each time is progress); after a relaunch, the first
// action changed nothing.
func (b *loopBreaker) stuck() string {
	n := len(b.recent)
	if b.after <= 0 || n == 0 {
		return ""
	}
	last := b.recent[n-1]
	if b.probation && !last.changed {
		return fmt.Sprintf("after relaunching the app, %s still changed nothing on screen", last.action)
	}
	if n < b.after {
		return ""
	}
	unchanged, same := 0, 0
	screens := map[string]bool{}
	for _, o := range b.recent {
		if !o.changed {
			unchanged++
		}
		if o.action == last.action {
			same++
		}
		screens[o.screen] = true
	}
	switch {
	case unchanged == n:
		return fmt.Sprintf("the last %d actions changed nothing on screen (last: %s)", n, last.action)
	case same == n && len(screens) < n:
		return fmt.Sprintf("the same action %s was repeated %d times without getting anywhere", last.action, n)
	}
	return ""
}

func (b *loopBreaker) reset() { b.recent, b.probation = b.recent[:0], false }

// host.stuck() → reason | nil
func (h *host) luaStuck(L *lua.LState) int {
	if why := h.breaker.stuck(); why != "" {
		L.Push(lua.LString(why))
		return 1
	}
	L.Push(lua.LNil)
	return 1
}

// host.relaunch(step, app, why) → result | nil, err: force-stops the app
// and launches it again, recorded as the run's step (a launch_app the
// runtime chose, its thought says why).
func (h *host) relaunch(L *lua.LState) int {
	step, pkg, why := L.CheckInt(1), L.CheckString(2), L.OptString(3, "")
	if h.stopped != "" {
		return lua.ReturnErr(L, fmt.Errorf("relaunch refused: %s", h.stopped))
	}
	ctx := lua.Context(L)
	phone, err := h.sess.Phone()
	if err != nil {
		return h.fail(L, fmt.Errorf("relaunch %s: %w", pkg, err))
	}
	if err := phone.StopApp(ctx, pkg); err != nil {
		return h.fail(L, fmt.Errorf("relaunch %s: force-stop: %w", pkg, err))
	}
	a, err := action.New("launch_app", map[string]any{"packageName": pkg})
	if err != nil {
		return lua.Raise(L, err)
	}
	out, err := h.sess.Act(a, device.ActOptions{Observe: true})
	if err != nil {
		return h.fail(L, fmt.Errorf("relaunch %s: %w", pkg, err))
	}
	out.Result = fmt.Sprintf("Loop breaker: relaunched %s (force-stopped, launched again). %s", pkg, out.Result)
	st := engine.TraceStep{Step: step + h.offset, At: time.Now(), Action: a, DeviceAction: out.Device, Result: out.Result,
		Thought:   "Loop breaker (agent.stuckAfter): " + why + ". Relaunching the app once.",
		AppBefore: out.AppBefore, AppAfter: out.AppAfter, HashBefore: out.HashBefore, HashAfter: out.HashAfter, Changed: out.Changed}
	if err := h.recordStep(st); err != nil {
		return h.fail(L, err)
	}
	h.breaker.reset()
	h.breaker.probation = true
	L.Push(lua.LString(out.Result))
	return 1
}

// askTimeout bounds how long the loop breaker waits for the person.
const askTimeout = 5 * time.Minute

// errNobodyToAsk: the run has no chat and stdin is not a terminal.
var errNobodyToAsk = errors.New("nobody to ask: stdin is not a terminal and the task did not come from a chat")

// host.ask_person(step, question) → answer | nil, err: asks through the
// chat the task came from (Options.UserInput), else on the terminal
// (stdin a TTY), else through the human-auth answerer (the relay page). Recorded as a request_user_input step; as for the
// model's own questions, the session keeps only the answer's length.
func (h *host) askPerson(L *lua.LState) int {
	step, q := L.CheckInt(1), L.CheckString(2)
	if h.stopped != "" {
		return lua.ReturnErr(L, fmt.Errorf("question refused: %s", h.stopped))
	}
	ask := h.o.UserInput
	if ask == nil && IsTerminal(h.o.Stdin) && h.o.Stdout != nil {
		ask = TerminalInput(h.o.Stdin, h.o.Stdout)
	}
	if ask == nil && h.auth != nil {
		ask = h.authInput // the human-auth relay page, when one is configured
	}
	ctx := lua.Context(L)
	ans, err := "", errNobodyToAsk
	if ask != nil {
		ans, err = ask(ctx, q, askTimeout)
	}
	if ctx.Err() != nil {
		return lua.Raise(L, ctx.Err())
	}
	ans = strings.TrimSpace(ans)
	if err == nil && ans == "" {
		err = errors.New("the person gave no instruction")
	}
	result := fmt.Sprintf("Loop breaker asked the person: no answer (%v)", err)
	if err == nil {
		result = fmt.Sprintf("Loop breaker asked the person: they replied (%d characters; the answer is not recorded)", len([]rune(ans)))
	}
	a, aerr := action.New("request_user_input", map[string]any{"question": q})
	if aerr != nil {
		return lua.Raise(L, aerr)
	}
	if rerr := h.recordStep(engine.TraceStep{Step: step + h.offset, At: time.Now(), Action: a, DeviceAction: a, Result: result,
		Thought: "Loop breaker (agent.stuckAfter): the relaunch did not help; asking the person."}); rerr != nil {
		return h.fail(L, rerr)
	}
	if err != nil {
		return lua.ReturnErr(L, err)
	}
	h.breaker.reset()
	L.Push(lua.LString(ans))
	return 1
}

// authInput asks the loop breaker's question through the run's human-auth
// answerer (the relay's approval page: one text field for the person's
// instruction). A rejection or a timeout is no answer.
func (h *host) authInput(ctx context.Context, q string, timeout time.Duration) (string, error) {
	req := HumanAuthRequest{ID: fmt.Sprintf("%s-step-%d-stuck", orRun(h.sess.SessionID()), h.step), Task: h.sess.Task(),
		Capability: "unknown", Instruction: q, Reason: "the agent is stuck and needs an instruction", Timeout: timeout,
		UITemplate: map[string]any{"title": "The agent is stuck", "fields": []any{
			map[string]any{"id": "instruction", "label": "What should it do?", "type": "textarea", "required": true},
		}}}
	dec, err := h.auth(ctx, req)
	if err != nil {
		return "", err
	}
	if dec.Status != "approved" {
		return "", fmt.Errorf("the person did not answer (%s)", dec.Status)
	}
	for _, f := range dec.Fields {
		if strings.TrimSpace(f.Value) != "" {
			return f.Value, nil
		}
	}
	return dec.Text, nil
}

// recordStep appends a step the runtime took (not the model) to the
// session and its trace.
func (h *host) recordStep(st engine.TraceStep) error {
	if err := h.sess.Record(st); err != nil {
		return fmt.Errorf("record step %d: %w", st.Step, err)
	}
	if path := h.sess.SessionPath(); path != "" {
		if err := AppendTraceIn(h.traceRoot(path), TracePath(path), st); err != nil {
			return fmt.Errorf("trace step %d: %w", st.Step, err)
		}
	}
	return nil
}

// TerminalInput asks a question on a terminal and returns the line typed
// (the loop breaker's question when stdin is a TTY). End of input is no
// answer; in is read through the same shared line reader as TerminalAuth.
func TerminalInput(in io.Reader, out io.Writer) UserInputFunc {
	lr := sharedLineReader(in)
	return func(ctx context.Context, question string, timeout time.Duration) (string, error) {
		if timeout <= 0 {
			timeout = askTimeout
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		asked := time.Now()
		fmt.Fprintf(out, "\n%s\nYour instruction (Enter alone stops the run): ", question)
		ans, err := lr.line(ctx, asked)
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				return "", fmt.Errorf("no answer within %s", timeout)
			}
			return "", err
		}
		return strings.TrimRight(ans, "\r\n"), nil
	}
}
