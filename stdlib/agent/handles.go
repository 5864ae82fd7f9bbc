package agent

import (
	"fmt"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/lua"
)

// Handles keep the Go values on the Go side; Lua reads a few fields by name.

// decision is one model reply, or the capability probe's step (probe.go;
// offer: the person may decline and the run goes on).
type decision struct {
	rep   engine.ModelReply
	offer bool
}

// outcome is one executed action.
type outcome struct {
	out device.Outcome
	act action.Action
	// failed ends the run FAILED with this message (a person rejected a
	// human-auth request or did not answer in time).
	failed string
	// reply is what the model is told instead of out.Result when the
	// record must not hold it (a user's answer): it stays in the loop's
	// memory, never in the session, trace or events.
	reply string
}

// udValue reads the Go value of a userdata argument (metamethods cannot use
// the type's Check: its initializer would refer to itself).
func udValue[T any](L *lua.LState, idx int, name string) T {
	if ud, ok := L.Get(idx).(*lua.LUserData); ok {
		if v, ok := ud.Value.(T); ok {
			return v
		}
	}
	L.ArgError(idx, name+" expected, got "+L.Get(idx).Type().String())
	var zero T
	return zero
}

func indexer[T any](name string, field func(L *lua.LState, v T, key string) lua.LValue) lua.LGFunction {
	return func(L *lua.LState) int {
		v := udValue[T](L, 1, name)
		L.Push(field(L, v, L.CheckString(2)))
		return 1
	}
}

// snapshot fields: app, width, height, scaled_width, scaled_height,
// elements (count), hash, secure.
var snapType = &lua.UserDataType[*screen.Snapshot]{
	Name: "openpocket.agent.snapshot",
	Meta: map[string]lua.LGFunction{
		"__index": indexer("openpocket.agent.snapshot", func(L *lua.LState, s *screen.Snapshot, key string) lua.LValue {
			switch key {
			case "app":
				return lua.LString(s.CurrentApp)
			case "width":
				return lua.LNumber(s.Width)
			case "height":
				return lua.LNumber(s.Height)
			case "scaled_width":
				return lua.LNumber(s.ScaledWidth)
			case "scaled_height":
				return lua.LNumber(s.ScaledHeight)
			case "elements":
				return lua.LNumber(len(s.UIElements))
			case "hash":
				if s.CaptureMetrics != nil {
					return lua.LString(s.CaptureMetrics.VisualHash)
				}
				return lua.LString("")
			case "secure":
				return lua.LBool(s.SecureSurface)
			}
			return lua.LNil
		}),
		"__tostring": func(L *lua.LState) int {
			s := udValue[*screen.Snapshot](L, 1, "openpocket.agent.snapshot")
			L.Push(lua.LString(fmt.Sprintf("snapshot %s %dx%d, %d elements", s.CurrentApp, s.Width, s.Height, len(s.UIElements))))
			return 1
		},
	},
}

// decision fields: thought, type, summary, message (finish), action
// (table), problems (array), raw, mode, model_ms, usage {input, output,
// total}.
var decisionType = &lua.UserDataType[*decision]{
	Name: "openpocket.agent.decision",
	Meta: map[string]lua.LGFunction{
		"__index": indexer("openpocket.agent.decision", func(L *lua.LState, d *decision, key string) lua.LValue {
			r := d.rep
			switch key {
			case "thought":
				return lua.LString(r.Thought)
			case "type":
				return lua.LString(r.Action.Type)
			case "summary":
				return lua.LString(r.Action.String())
			case "message":
				m := r.Action.Str("message")
				if m == "" {
					m = "Task finished."
				}
				return lua.LString(m)
			case "action":
				m := make(map[string]any, len(r.Action.Params)+1)
				for k, v := range r.Action.Params {
					m[k] = v
				}
				m["type"] = r.Action.Type
				return lua.ToLua(L, m)
			case "problems":
				t := L.CreateTable(len(r.Problems), 0)
				for _, p := range r.Problems {
					t.Append(lua.LString(p))
				}
				return t
			case "raw":
				return lua.LString(r.Raw)
			case "mode":
				return lua.LString(r.Mode)
			case "model_ms":
				return lua.LNumber(r.Latency.Milliseconds())
			case "usage":
				t := L.CreateTable(0, 3)
				t.RawSetString("input", lua.LNumber(r.Usage.InputTokens))
				t.RawSetString("output", lua.LNumber(r.Usage.OutputTokens))
				t.RawSetString("total", lua.LNumber(r.Usage.TotalTokens))
				return t
			}
			return lua.LNil
		}),
		"__tostring": func(L *lua.LState) int {
			d := udValue[*decision](L, 1, "openpocket.agent.decision")
			L.Push(lua.LString("decision " + d.rep.Action.String()))
			return 1
		},
	},
}

// outcome fields: result (as recorded), reply (what the model is told
// when it differs from result, else nil), finished, failed (the message a run ends FAILED
// with, nil when it goes on), changed, app_before, app_after,
// device_action (summary).
var outcomeType = &lua.UserDataType[*outcome]{
	Name: "openpocket.agent.outcome",
	Meta: map[string]lua.LGFunction{
		"__index": indexer("openpocket.agent.outcome", func(L *lua.LState, o *outcome, key string) lua.LValue {
			switch key {
			case "result":
				return lua.LString(o.out.Result)
			case "finished":
				return lua.LBool(o.out.Finished)
			case "reply":
				if o.reply == "" {
					return lua.LNil
				}
				return lua.LString(o.reply)
			case "failed":
				if o.failed == "" {
					return lua.LNil
				}
				return lua.LString(o.failed)
			case "changed":
				return lua.LBool(o.out.Changed)
			case "app_before":
				return lua.LString(o.out.AppBefore)
			case "app_after":
				return lua.LString(o.out.AppAfter)
			case "device_action":
				return lua.LString(o.out.Device.String())
			}
			return lua.LNil
		}),
		"__tostring": func(L *lua.LState) int {
			o := udValue[*outcome](L, 1, "openpocket.agent.outcome")
			L.Push(lua.LString("outcome " + o.act.String()))
			return 1
		},
	},
}
