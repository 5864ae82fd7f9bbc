// Package aistep is the Lua module `ai`: the runtime of the playbook steps
// ai_tap, ai_assert, ai_extract and agent.
//
//	local ai = require("ai")
//	local note = ai.tap("the send button", {timeout_ms = 10000})
//	local ok, err = ai.assert("the message shows as sent")
//	local total = ai.extract("the order total")
//	local summary = ai.agent("turn on dark mode", {max_steps = 8, step = flow.current()})
//
// A step asks the model once (engine/airesolve: the agent's own screen
// view, one tool) and keeps the answer in <playbook>.ai.json beside the
// playbook: a tap as a selector reused on every later run with no model
// call (asked again, once, only when it finds nothing: "re-resolved"), a
// judgement or a value only on the same screen (its fingerprint). With
// Options.NoAI a step that would call the model fails instead; with
// Options.Refresh every step is asked again.
package aistep

import (
	"context"
	"errors"
	"fmt"
	"github.com/openpocket/openpocket/stdlib"
	"path/filepath"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/airesolve"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/lua"
)

// Options configure the module for one playbook run.
type Options struct {
	// Playbook is the playbook's path; its .ai.json lives beside it.
	Playbook string
	// Refresh resolves every step again (--ai-refresh).
	Refresh bool
	// NoAI fails every step that would call a model, without calling
	// (--no-ai).
	NoAI bool
}

// StoreName is the .ai.json file name of a playbook ("login.yaml" →
// "login.ai.json").
func StoreName(playbook string) string {
	base := filepath.Base(playbook)
	return strings.TrimSuffix(base, filepath.Ext(base)) + ".ai.json"
}

// Module is the root of the `ai` module.
type Module struct {
	o     Options
	store *store
}

var _ lua.Module = (*Module)(nil)

// New returns the module of one playbook run.
func New(o Options) *Module {
	m := &Module{o: o, store: &store{dir: filepath.Dir(o.Playbook), name: StoreName(o.Playbook)}}
	if o.Refresh {
		m.store.refresh()
	}
	return m
}

// Name implements lua.Module.
func (m *Module) Name() string { return "ai" }

// Open implements lua.Module.
func (m *Module) Open(vm *lua.VM) (lua.LValue, error) {
	return vm.NewModule(map[string]lua.LGFunction{
		"tap":     m.bind(vm, m.luaTap),
		"assert":  m.bind(vm, m.luaAssert),
		"extract": m.bind(vm, m.luaExtract),
		"agent":   m.bind(vm, m.luaAgent),
	}), nil
}

// call is one ai.* invocation's context.
type call struct {
	L    *lua.LState
	ctx  context.Context
	sess *engine.Session
}

func (m *Module) bind(vm *lua.VM, f func(c call) (lua.LValue, error)) lua.LGFunction {
	return func(L *lua.LState) int {
		sess := stdlib.HostOf(vm).Session()
		if sess == nil {
			return lua.Raisef(L, "ai: no session (the module needs a device run)")
		}
		v, err := f(call{L: L, ctx: lua.Context(L), sess: sess})
		if err != nil {
			if ctx := lua.Context(L); ctx.Err() != nil {
				return lua.Raise(L, context.Cause(ctx))
			}
			return lua.ReturnErr(L, err)
		}
		L.Push(v)
		return 1
	}
}

// description reads argument 1, which must say something.
func description(L *lua.LState, what string) string {
	d := strings.TrimSpace(L.CheckString(1))
	if d == "" {
		L.ArgError(1, what+" must not be empty")
	}
	return d
}

func optMs(L *lua.LState, idx int, key string, def time.Duration) time.Duration {
	if t, ok := L.Get(idx).(*lua.LTable); ok {
		if v, ok := t.RawGetString(key).(lua.LNumber); ok && v >= 0 {
			return time.Duration(v) * time.Millisecond
		}
	}
	return def
}

// needModel is the model a step may call, or why it may not.
func (m *Module) needModel(sess *engine.Session, step, desc, why string) (engine.Model, error) {
	if m.o.NoAI {
		if step == "agent" {
			return nil, fmt.Errorf("agent %q needs the model (%s) and --no-ai forbids it", desc, why)
		}
		return nil, fmt.Errorf("%s %q needs a model call (%s) and --no-ai forbids it; run once with a model and commit %s", step, desc, why, m.store.name)
	}
	if sess.Engine().Model == nil {
		return nil, fmt.Errorf("%s %q needs a model call (%s): %w", step, desc, why, engine.ErrNoModel)
	}
	return sess.Engine().Model, nil
}

// capture is the agent's view of the screen: scaled screenshot with marks
// and the element list.
func capture(sess *engine.Session) (*screen.Snapshot, error) {
	return sess.Capture(device.CaptureOptions{Scaled: true, SOM: true})
}

func (m *Module) emit(sess *engine.Session, fields map[string]any) {
	sess.Emit("ai_step", fields)
}

// ai.tap(description, {timeout_ms}) → note | nil, err. note is "" when the
// stored selector did it, else what the model call was ("resolved",
// "re-resolved: …").
func (m *Module) luaTap(c call) (lua.LValue, error) {
	desc := description(c.L, "ai.tap: the element's description")
	timeout := optMs(c.L, 2, "timeout_ms", 10*time.Second)
	note, err := m.tap(c.ctx, c.sess, desc, timeout)
	return lua.LString(note), err
}

func (m *Module) tap(ctx context.Context, sess *engine.Session, desc string, timeout time.Duration) (string, error) {
	phone, err := sess.Phone()
	if err != nil {
		return "", err
	}
	ui := &device.UI{Phone: phone}
	stored, ok, err := m.store.get("tap", desc, "")
	if err != nil {
		return "", err
	}
	why := "no stored selector in " + m.store.name
	if ok && stored.Selector != nil {
		n, _, werr := ui.Wait(ctx, airesolve.Finder{Locator: *stored.Selector}, timeout)
		if n != nil {
			if err := ui.Tap(ctx, n, 1); err != nil {
				return "", err
			}
			m.emit(sess, map[string]any{"kind": "tap", "description": desc, "how": "stored", "model_calls": 0, "selector": stored.Selector.String()})
			return "", nil
		}
		if ctx.Err() != nil {
			return "", werr
		}
		why = "the stored selector " + stored.Selector.String() + " found nothing"
	} else if m.o.Refresh {
		why = "--ai-refresh"
	}
	model, err := m.needModel(sess, "ai_tap", desc, why)
	if err != nil {
		return "", err
	}
	snap, err := capture(sess)
	if err != nil {
		return "", err
	}
	res, err := airesolve.Element(ctx, model, snap, desc)
	if err != nil {
		return "", fmt.Errorf("ai_tap %q: %w", desc, err)
	}
	a, err := action.New("tap_element", map[string]any{"elementId": res.Element.ID})
	if err != nil {
		return "", err
	}
	if _, err := sess.Act(a, device.ActOptions{Snapshot: snap, Scaled: true}); err != nil {
		return "", err
	}
	loc := res.Locator
	if err := m.store.put(Entry{Kind: "tap", Description: desc, Fingerprint: airesolve.Fingerprint(snap.Tree), Selector: &loc,
		Model: res.Model, ResolvedAt: time.Now().UTC().Truncate(time.Second)}, false); err != nil {
		return "", err
	}
	how, note := "resolved", "resolved by the model: "+loc.String()
	if ok {
		how, note = "re-resolved", "re-resolved ("+why+"): "+loc.String()
	}
	m.emit(sess, map[string]any{"kind": "tap", "description": desc, "how": how, "model_calls": 1, "selector": loc.String(), "model_ms": res.Latency})
	return note, nil
}

// screenFingerprint is the fingerprint of what the phone shows now (one UI
// dump, no screenshot).
func screenFingerprint(ctx context.Context, sess *engine.Session) (string, error) {
	phone, err := sess.Phone()
	if err != nil {
		return "", err
	}
	root, _, err := phone.Hierarchy(ctx)
	if err != nil {
		return "", err
	}
	return airesolve.Fingerprint(root), nil
}

// ai.assert(condition) → note | nil, err (the model's reason).
func (m *Module) luaAssert(c call) (lua.LValue, error) {
	cond := description(c.L, "ai.assert: the condition")
	note, err := m.assert(c.ctx, c.sess, cond)
	return lua.LString(note), err
}

func (m *Module) assert(ctx context.Context, sess *engine.Session, cond string) (string, error) {
	fp, err := screenFingerprint(ctx, sess)
	if err != nil {
		return "", err
	}
	if e, ok, err := m.store.get("assert", cond, fp); err != nil {
		return "", err
	} else if ok && e.Pass != nil {
		m.emit(sess, map[string]any{"kind": "assert", "description": cond, "how": "stored", "model_calls": 0})
		if !*e.Pass {
			return "", fmt.Errorf("the model judged it false on this screen before: %s", e.Reason)
		}
		return "", nil
	}
	model, err := m.needModel(sess, "ai_assert", cond, "no answer stored for this screen")
	if err != nil {
		return "", err
	}
	snap, err := capture(sess)
	if err != nil {
		return "", err
	}
	v, err := airesolve.Judge(ctx, model, snap, cond)
	if err != nil {
		return "", fmt.Errorf("ai_assert %q: %w", cond, err)
	}
	pass := v.Pass
	if err := m.store.put(Entry{Kind: "assert", Description: cond, Fingerprint: airesolve.Fingerprint(snap.Tree), Pass: &pass,
		Reason: v.Reason, Model: v.Model, ResolvedAt: time.Now().UTC().Truncate(time.Second)}, true); err != nil {
		return "", err
	}
	m.emit(sess, map[string]any{"kind": "assert", "description": cond, "how": "resolved", "model_calls": 1, "pass": pass, "reason": v.Reason})
	if !pass {
		return "", errors.New("the model judged it false: " + v.Reason)
	}
	return "judged by the model: " + v.Reason, nil
}

// ai.extract(query) → value | nil, err
func (m *Module) luaExtract(c call) (lua.LValue, error) {
	q := description(c.L, "ai.extract: the query")
	v, err := m.extract(c.ctx, c.sess, q)
	return lua.LString(v), err
}

func (m *Module) extract(ctx context.Context, sess *engine.Session, q string) (string, error) {
	fp, err := screenFingerprint(ctx, sess)
	if err != nil {
		return "", err
	}
	if e, ok, err := m.store.get("extract", q, fp); err != nil {
		return "", err
	} else if ok && e.Value != nil {
		m.emit(sess, map[string]any{"kind": "extract", "description": q, "how": "stored", "model_calls": 0})
		return *e.Value, nil
	}
	model, err := m.needModel(sess, "ai_extract", q, "no answer stored for this screen")
	if err != nil {
		return "", err
	}
	snap, err := capture(sess)
	if err != nil {
		return "", err
	}
	v, call, err := airesolve.Extract(ctx, model, snap, q)
	if err != nil {
		return "", fmt.Errorf("ai_extract %q: %w", q, err)
	}
	if err := m.store.put(Entry{Kind: "extract", Description: q, Fingerprint: airesolve.Fingerprint(snap.Tree), Value: &v,
		Model: call.Model, ResolvedAt: time.Now().UTC().Truncate(time.Second)}, true); err != nil {
		return "", err
	}
	m.emit(sess, map[string]any{"kind": "extract", "description": q, "how": "resolved", "model_calls": 1})
	return v, nil
}
