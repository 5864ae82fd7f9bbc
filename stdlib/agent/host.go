package agent

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/hostfs"
	"github.com/openpocket/openpocket/engine/prompt"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/lua"
)

// HostModule is the name of the per-run primitives module.
const HostModule = "agent_host"

// maxBadReplies is documented in agent.lua; kept here for the docs.
const maxBadReplies = 3

// host is the per-run state behind agent_host.
type host struct {
	sess  *engine.Session
	o     Options
	auth  HumanAuthFunc
	tools []action.Tool

	system      string
	systemBuilt bool
	installed   bool
	step        int
	// cause is the Go error that ended the run (model down, device lost),
	// returned by Run next to the FAILED result.
	cause error
	// probed are the surfaces the capability probe escalated (probe.go).
	probed map[string]bool
	// stopped is why a person stopped the run (a rejected or unanswered
	// human-auth request) or the token budget did: no action runs after it
	// and the run is FAILED, whatever a replaced loop does.
	stopped string
	// offset is how many steps the session held before the loop's first
	// (a replay that ran first): the loop's step n is the session's n+offset.
	offset  int
	breaker loopBreaker
	budget  budget
	// delegated are the values people sent in delegation mode, by
	// placeholder key ("<requestId>" or "<requestId>.<field>"): typed
	// where the model's type action names them, never shown to it.
	delegated map[string]string
}

func newHost(sess *engine.Session, o Options) *host {
	h := &host{sess: sess, o: o, auth: o.HumanAuth, tools: offeredTools(action.Tools(nil), o, sess.Engine().Executors),
		offset: len(sess.Trace()), breaker: loopBreaker{after: o.StuckAfter}, budget: budget{max: o.MaxTokens}}
	if h.auth == nil && IsTerminal(o.Stdin) && o.Stdout != nil {
		h.auth = TerminalAuth(o.Stdin, o.Stdout)
	}
	return h
}

// module is agent_host bound to this run.
func (h *host) module() lua.Module {
	return lua.ModuleFunc(HostModule, func(vm *lua.VM) (lua.LValue, error) {
		return vm.NewModule(map[string]lua.LGFunction{
			"options": h.luaOptions,
			"capture": h.capture,
			"decide":  h.decide,
			"act":     h.act,
			"record":  h.record,
			"emit":    h.emit,
			"sleep":   h.sleep,
			"go_home": h.goHome,
			// the loop breaker (stuck.go)
			"stuck":      h.luaStuck,
			"relaunch":   h.relaunch,
			"ask_person": h.askPerson,
		}), nil
	})
}

// host.options() → {task, max_steps, loop_delay_ms, return_home,
// max_bad_replies, stuck_after, history}
func (h *host) luaOptions(L *lua.LState) int {
	t := L.CreateTable(0, 7)
	t.RawSetString("task", lua.LString(h.sess.Task()))
	t.RawSetString("max_steps", lua.LNumber(h.o.MaxSteps))
	t.RawSetString("loop_delay_ms", lua.LNumber(h.o.LoopDelay.Milliseconds()))
	t.RawSetString("return_home", lua.LBool(h.o.ReturnHome))
	t.RawSetString("max_bad_replies", lua.LNumber(maxBadReplies))
	t.RawSetString("stuck_after", lua.LNumber(h.o.StuckAfter))
	hist := L.CreateTable(len(h.o.History), 0)
	for _, e := range h.o.History {
		he := L.CreateTable(0, 4)
		he.RawSetString("step", lua.LNumber(e.Step))
		he.RawSetString("app", lua.LString(e.App))
		he.RawSetString("action", lua.LString(e.Action))
		he.RawSetString("result", lua.LString(e.Result))
		hist.Append(he)
	}
	t.RawSetString("history", hist)
	L.Push(t)
	return 1
}

// fail records the Go cause of an operational failure and returns nil, err
// (or raises when the run was cancelled).
func (h *host) fail(L *lua.LState, err error) int {
	if h.cause == nil && lua.Context(L).Err() == nil {
		h.cause = err
	}
	return lua.ReturnErr(L, err)
}

// host.capture() → snapshot | nil, err
func (h *host) capture(L *lua.LState) int {
	_, saves := h.stepScreenshotTarget()
	o := device.CaptureOptions{Scaled: true, SOM: true, Installed: !h.installed, FullPNG: saves}
	snap, err := h.sess.Capture(o)
	if err != nil {
		return h.fail(L, fmt.Errorf("capture: %w", err))
	}
	h.installed = true
	return snapType.Push(L, snap)
}

// systemPrompt is built once per run.
func (h *host) systemPrompt() string {
	if !h.systemBuilt {
		ctxFiles := h.o.ContextFiles
		if ctxFiles == nil {
			if ws := h.sess.Engine().Workspace; ws != nil {
				ctxFiles = readContextFiles(ws.Root())
			}
		}
		h.system = prompt.System(prompt.SystemOptions{Mode: h.o.SystemPromptMode, Tools: h.tools, Skills: h.o.Skills,
			Context: ctxFiles, Budget: h.o.ContextBudgetChars, PermissionPolicy: h.sess.Engine().Permissions != nil})
		h.systemBuilt = true
	}
	return h.system
}

// contextFileNames are the workspace files the prompt includes, in order
// (internal/workspace.ContextFileNames; the CLI passes them explicitly).
var contextFileNames = []string{"AGENTS.md", "BOOTSTRAP.md", "SOUL.md", "USER.md", "IDENTITY.md", "TOOLS.md", "HEARTBEAT.md", "MEMORY.md"}

func readContextFiles(root string) []prompt.ContextFile {
	var out []prompt.ContextFile
	for _, n := range contextFileNames {
		// hostfs: a context file the model made a link out or a FIFO is
		// skipped at once, like a missing one.
		b, err := hostfs.ReadFile(root, n, 0)
		if err != nil {
			continue
		}
		out = append(out, prompt.ContextFile{Name: n, Content: string(b)})
	}
	return out
}

// host.decide(snapshot, history, problems, step) → decision | nil, err, kind
func (h *host) decide(L *lua.LState) int {
	snap := snapType.Check(L, 1)
	history := checkHistory(L, 2)
	problems := checkStrings(L, 3)
	step := L.OptInt(4, h.step+1)
	m := h.sess.Engine().Model
	if m == nil {
		return lua.Raise(L, engine.ErrNoModel)
	}
	h.step = step
	if why := h.budget.before(); why != "" {
		return h.overBudget(L, why)
	}
	if d := h.probeDecision(snap); d != nil {
		return decisionType.Push(L, d) // the probe takes this step, not the model
	}
	req := engine.ModelRequest{
		System: h.systemPrompt(),
		Text: prompt.Step(prompt.StepOptions{Task: h.sess.Task(), Step: step, MaxSteps: h.o.MaxSteps, Snapshot: snap,
			History: history, Problems: problems}),
		ImagePNG: modelImage(snap),
		Tools:    h.tools,
	}
	rep, err := m.Decide(lua.Context(L), req)
	if why := h.budget.spent(rep.Usage); why != "" && lua.Context(L).Err() == nil {
		return h.overBudget(L, why)
	}
	if err != nil {
		kind := "model"
		if rep.Raw != "" || errors.Is(err, engine.ErrNoAction) {
			// The model answered, but nothing usable (an empty reply
			// included): the loop tells it and goes on (a while).
			kind = "reply"
		}
		h.fail(L, err)
		L.Push(lua.LString(kind))
		return 3
	}
	h.cause = nil // an earlier rejected reply no longer explains the run
	return decisionType.Push(L, &decision{rep: rep})
}

// stepScreenshotTarget reports whether step screenshots go to a workspace,
// and the session they belong to.
func (h *host) stepScreenshotTarget() (sessionID string, ok bool) {
	id := h.sess.SessionID()
	return id, h.sess.Engine().Workspace != nil && id != ""
}

// saveStepScreenshot writes the snapshot's full-size PNG (encoded in the
// background since the capture when the device sent raw pixels).
func saveStepScreenshot(ws engine.Workspace, snap *screen.Snapshot, st engine.TraceStep, id string) (string, error) {
	png, err := snap.FullPNG()
	if err != nil {
		return "", err
	}
	return ws.SaveStepScreenshot(st.At, id, st.Step, snap.CurrentApp, png)
}

// modelImage is the set-of-mark screenshot when there are marks, else the
// scaled one (else the raw one).
func modelImage(s *screen.Snapshot) []byte {
	if len(s.UIElements) > 0 && len(s.SOMScreenshot) > 0 {
		return s.SOMScreenshot
	}
	if len(s.ScaledScreenshot) > 0 {
		return s.ScaledScreenshot
	}
	return s.Screenshot
}

// host.act(decision | action_table, snapshot) → outcome | nil, err
func (h *host) act(L *lua.LState) int {
	a := h.checkAction(L, 1)
	if h.stopped != "" {
		return lua.ReturnErr(L, fmt.Errorf("%s refused: %s", a, h.stopped))
	}
	var snap *screen.Snapshot
	if L.Get(2) != lua.LNil {
		snap = snapType.Check(L, 2)
	}
	var (
		out device.Outcome
		err error
	)
	failed, reply := "", ""
	switch s, _ := action.Lookup(a.Type); {
	case a.Type == "request_human_auth":
		out, failed, err = h.humanAuth(lua.Context(L), a)
		if failed != "" && declinedOffer(L, 1) {
			out.Result += "\nhuman auth probe: the person did not take over; the agent goes on"
			failed = ""
		}
		h.stopped = failed
	case s.Category == action.CategoryChat:
		out, reply, err = h.userInput(lua.Context(L), a)
	case s.Category == action.CategorySchedule:
		out, err = h.schedule(lua.Context(L), a)
	case a.Type == "type" && placeholderRE.MatchString(a.Str("text")):
		out, err = h.typeDelegated(lua.Context(L), a, device.ActOptions{Snapshot: snap, Scaled: true, Observe: true})
	default:
		out, err = h.sess.Act(a, device.ActOptions{Snapshot: snap, Scaled: true, Observe: true})
	}
	if err != nil {
		return h.fail(L, fmt.Errorf("%s: %w", a, err))
	}
	h.breaker.observe(a, out)
	return outcomeType.Push(L, &outcome{out: out, act: a, failed: failed, reply: reply})
}

// checkAction reads a decision or an action table {type = …, …}.
func (h *host) checkAction(L *lua.LState, idx int) action.Action {
	switch v := L.Get(idx).(type) {
	case *lua.LUserData:
		if d, ok := v.Value.(*decision); ok {
			return d.rep.Action
		}
	case *lua.LTable:
		m, ok := lua.ToGo(v).(map[string]any)
		if !ok {
			L.ArgError(idx, "action table {type = …} expected")
		}
		if _, ok := m["type"].(string); !ok {
			L.ArgError(idx, "action table needs a string field type")
		}
		a, _ := action.Normalize(m, h.sess.Engine().Defaults)
		return a
	}
	L.ArgError(idx, "decision or action table expected, got "+L.Get(idx).Type().String())
	return action.Action{}
}

// humanAuth answers request_human_auth (the human-auth lines of
// docs/formats.md#session). failed is set when the person rejected the request or did not
// answer in time: the run ends there, FAILED, before any other action.
func (h *host) humanAuth(ctx context.Context, a action.Action) (out device.Outcome, failed string, err error) {
	out = device.Outcome{Device: a}
	id := fmt.Sprintf("%s-step-%d", orRun(h.sess.SessionID()), h.step)
	req := HumanAuthRequest{ID: id, Task: h.sess.Task(), Capability: a.Str("capability"), Instruction: a.Str("instruction"),
		Reason: a.Str("reason"), TemplatePath: a.Str("templatePath"),
		Timeout: time.Duration(a.Int("timeoutSec")) * time.Second}
	if t, ok := a.Params["uiTemplate"].(map[string]any); ok {
		req.UITemplate = t
	}
	unavailable := func(err error) device.Outcome {
		out.Result = fmt.Sprintf("Human auth unavailable request_id=%s message=%v. Continue without it if the task allows, otherwise finish and tell the user what they must do (%s).",
			id, err, req.Instruction)
		return out
	}
	if h.auth == nil {
		return unavailable(ErrHumanAuthUnavailable), "", nil
	}
	dec, err := h.auth(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return out, "", ctx.Err()
		}
		return unavailable(err), "", nil
	}
	if dec.Delegate && dec.Status == "approved" {
		out.Result = delegatedResult(id, dec)
		if h.delegated == nil {
			h.delegated = map[string]string{}
		}
		maps.Copy(h.delegated, delegatedValues(id, dec))
	} else {
		out.Result, err = humanAuthResult(ctx, h.sess, id, dec)
	}
	if dec.Status != "approved" {
		failed = fmt.Sprintf("human auth %s (request %s): %s", dec.Status, id, oneLine(dec.Message))
	}
	return out, failed, err
}

func orRun(id string) string {
	if id == "" {
		return "run"
	}
	return id
}

// host.record{step = n, snapshot = s, decision = d, outcome = o} → result | nil, err
func (h *host) record(L *lua.LState) int {
	t := L.CheckTable(1)
	step, _ := t.RawGetString("step").(lua.LNumber)
	snap, ok := snapType.Is(L, t.RawGetString("snapshot"))
	if !ok {
		L.ArgError(1, "record: field snapshot must be a snapshot from host.capture")
	}
	d, ok := decisionType.Is(L, t.RawGetString("decision"))
	if !ok {
		L.ArgError(1, "record: field decision must be a decision from host.decide")
	}
	o, ok := outcomeType.Is(L, t.RawGetString("outcome"))
	if !ok {
		L.ArgError(1, "record: field outcome must be an outcome from host.act")
	}
	st := engine.TraceStep{
		Step:         int(step) + h.offset,
		At:           time.Now(),
		Thought:      d.rep.Thought,
		Action:       d.rep.Action,
		DeviceAction: o.out.Device,
		Result:       o.out.Result,
		// One description of the element for recording and for the replay
		// tests that simulate it.
		Target:       engine.TargetOfElement(snap, o.out.Element),
		AppBefore:    o.out.AppBefore,
		AppAfter:     o.out.AppAfter,
		HashBefore:   o.out.HashBefore,
		HashAfter:    o.out.HashAfter,
		Changed:      o.out.Changed,
		ScreenWidth:  snap.Width,
		ScreenHeight: snap.Height,
		Usage:        d.rep.Usage,
		ModelMs:      d.rep.Latency.Milliseconds(),
	}
	if st.AppBefore == "" {
		st.AppBefore = snap.CurrentApp
		if snap.CaptureMetrics != nil {
			st.HashBefore = snap.CaptureMetrics.VisualHash
		}
	}
	if id, saves := h.stepScreenshotTarget(); saves {
		p, err := saveStepScreenshot(h.sess.Engine().Workspace, snap, st, id)
		if err != nil {
			h.sess.Logger().Warn("step screenshot not saved", "step", st.Step, "err", err)
		} else if p != "" {
			st.Screenshot = p
			st.Result += "\nlocal_screenshot=" + p
		}
	}
	if err := h.sess.Record(st); err != nil {
		return h.fail(L, fmt.Errorf("record step %d: %w", st.Step, err))
	}
	if path := h.sess.SessionPath(); path != "" {
		if err := AppendTraceIn(h.traceRoot(path), TracePath(path), st); err != nil {
			return h.fail(L, fmt.Errorf("trace step %d: %w", st.Step, err))
		}
	}
	L.Push(lua.LString(st.Result))
	return 1
}

// traceRoot is the root the trace file of session path is written under.
func (h *host) traceRoot(path string) string {
	if ws := h.sess.Engine().Workspace; ws != nil && ws.Root() != "" {
		return ws.Root() // sessions/ itself may be a link the model planted
	}
	return filepath.Dir(path)
}

// host.emit(kind, fields)
func (h *host) emit(L *lua.LState) int {
	kind := L.CheckString(1)
	fields := map[string]any{}
	if v := L.Get(2); v != lua.LNil {
		t, ok := v.(*lua.LTable)
		if !ok {
			L.ArgError(2, "fields table expected, got "+v.Type().String())
		}
		if m, ok := lua.ToGo(t).(map[string]any); ok {
			fields = m
		} else if t.Len() > 0 {
			L.ArgError(2, "fields must have string keys, not be an array")
		}
	}
	h.sess.Emit(kind, fields)
	return 0
}

// host.sleep(ms) raises on cancellation.
func (h *host) sleep(L *lua.LState) int {
	ms := L.CheckInt(1)
	if ms <= 0 {
		return 0
	}
	if err := lua.Sleep(L, time.Duration(ms)*time.Millisecond); err != nil {
		return lua.Raise(L, err)
	}
	return 0
}

// host.go_home() → result | nil, err: KEYCODE_HOME, not recorded.
func (h *host) goHome(L *lua.LState) int {
	a, err := action.New("keyevent", map[string]any{"keycode": "KEYCODE_HOME"})
	if err != nil {
		return lua.Raise(L, err)
	}
	out, err := h.sess.Act(a, device.ActOptions{})
	if err != nil {
		return lua.ReturnErr(L, err)
	}
	L.Push(lua.LString(out.Result))
	return 1
}

// checkHistory reads {{step=, app=, action=, result=}, …}.
func checkHistory(L *lua.LState, idx int) []prompt.HistoryEntry {
	v := L.Get(idx)
	if v == lua.LNil {
		return nil
	}
	t, ok := v.(*lua.LTable)
	if !ok {
		L.ArgError(idx, "history table expected, got "+v.Type().String())
	}
	n := t.Len()
	out := make([]prompt.HistoryEntry, 0, n)
	for i := 1; i <= n; i++ {
		e, ok := t.RawGetInt(i).(*lua.LTable)
		if !ok {
			L.ArgError(idx, fmt.Sprintf("history[%d] must be a table {step, app, action, result}", i))
		}
		st, _ := e.RawGetString("step").(lua.LNumber)
		out = append(out, prompt.HistoryEntry{Step: int(st), App: lstr(e.RawGetString("app")),
			Action: lstr(e.RawGetString("action")), Result: lstr(e.RawGetString("result"))})
	}
	return out
}

func checkStrings(L *lua.LState, idx int) []string {
	v := L.Get(idx)
	if v == lua.LNil {
		return nil
	}
	t, ok := v.(*lua.LTable)
	if !ok {
		L.ArgError(idx, "table of strings expected, got "+v.Type().String())
	}
	var out []string
	for i := 1; i <= t.Len(); i++ {
		out = append(out, lstr(t.RawGetInt(i)))
	}
	return out
}

func lstr(v lua.LValue) string {
	if v == lua.LNil {
		return ""
	}
	return v.String()
}

var errNoVerdict = errors.New("the agent loop returned no verdict (expected {ok = boolean, message = string})")
