package stdlib

import (
	"fmt"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/lua"
)

func openSession(vm *lua.VM) (lua.LValue, error) {
	e := phoneHostOf(vm)
	return vm.NewModule(map[string]lua.LGFunction{
		"task": func(L *lua.LState) int { return pushStr(L, e.MustSession(L, "session.task").Task()) },
		"id":   func(L *lua.LState) int { return pushStr(L, e.MustSession(L, "session.id").SessionID()) },
		// session.record(step) → step number or nil, err. step: {action =
		// {type=…, …}, device_action, thought, result, app_before,
		// app_after, hash_before, hash_after, changed, screenshot,
		// model_ms, target = {text, resource_id, content_desc, class_name,
		// bounds, index}}.
		"record": func(L *lua.LState) int {
			sess := e.MustSession(L, "session.record")
			st := checkStep(L, 1)
			if err := sess.Record(st); err != nil {
				return fail(L, "session.record", err)
			}
			tr := sess.Trace()
			L.Push(lua.LNumber(len(tr)))
			return 1
		},
		// session.finish(ok, message) → {success, message, steps, session_path}.
		"finish": func(L *lua.LState) int {
			sess := e.MustSession(L, "session.finish")
			ok := L.ToBool(1)
			msg := L.OptString(2, "")
			r := sess.Finish(ok, msg)
			t := L.CreateTable(0, 4)
			t.RawSetString("success", lua.LBool(r.Success))
			t.RawSetString("message", lua.LString(r.Message))
			t.RawSetString("steps", lua.LNumber(r.Steps))
			t.RawSetString("session_path", lua.LString(r.SessionPath))
			L.Push(t)
			return 1
		},
	}), nil
}

func openEvents(vm *lua.VM) (lua.LValue, error) { return openEventsObserved(vm, nil) }

// EventsModule is the events module with an observer that also sees every
// event (a runner that tracks steps); observe may be nil.
func EventsModule(observe func(kind string, fields map[string]any)) lua.Module {
	return lua.ModuleFunc("events", func(vm *lua.VM) (lua.LValue, error) { return openEventsObserved(vm, observe) })
}

func openEventsObserved(vm *lua.VM, observe func(kind string, fields map[string]any)) (lua.LValue, error) {
	e := phoneHostOf(vm)
	return vm.NewModule(map[string]lua.LGFunction{
		// events.emit(kind, fields) forwards a structured event to the host.
		"emit": func(L *lua.LState) int {
			kind := L.CheckString(1)
			var fields map[string]any
			switch v := L.Get(2).(type) {
			case *lua.LTable:
				m, ok := lua.ToGo(v).(map[string]any)
				if !ok {
					L.ArgError(2, "events.emit: fields must be a table with string keys, not an array")
				}
				fields = m
			default:
				if v != lua.LNil {
					L.ArgError(2, "events.emit: fields table expected, got "+v.Type().String())
				}
				fields = map[string]any{}
			}
			e.MustSession(L, "events.emit").Emit(kind, fields)
			if observe != nil {
				observe(kind, fields)
			}
			return 0
		},
	}), nil
}

// checkStep reads a trace step table.
func checkStep(L *lua.LState, idx int) engine.TraceStep {
	t := L.CheckTable(idx)
	var st engine.TraceStep
	var bad string
	t.ForEach(func(k, v lua.LValue) {
		if bad != "" {
			return
		}
		key, _ := k.(lua.LString)
		switch string(key) {
		case "action", "device_action":
			a, err := actionFrom(L, v)
			if err != nil {
				bad = fmt.Sprintf("field %s: %v", key, err)
				return
			}
			if key == "action" {
				st.Action = a
			} else {
				st.DeviceAction = a
			}
		case "thought":
			st.Thought = L.ToStringMeta(v).String()
		case "result":
			st.Result = L.ToStringMeta(v).String()
		case "app_before":
			st.AppBefore = L.ToStringMeta(v).String()
		case "app_after":
			st.AppAfter = L.ToStringMeta(v).String()
		case "hash_before":
			st.HashBefore = L.ToStringMeta(v).String()
		case "hash_after":
			st.HashAfter = L.ToStringMeta(v).String()
		case "screenshot":
			st.Screenshot = L.ToStringMeta(v).String()
		case "changed":
			st.Changed = v == lua.LTrue
		case "model_ms":
			n, _ := v.(lua.LNumber)
			st.ModelMs = int64(n)
		case "step":
			n, _ := v.(lua.LNumber)
			st.Step = int(n)
		case "target":
			tt, ok := v.(*lua.LTable)
			if !ok {
				bad = "field target: table expected, got " + v.Type().String()
				return
			}
			var tg engine.Target
			if err := lua.Decode(renameKeys(L, tt), &tg); err != nil {
				bad = "field target: " + err.Error()
				return
			}
			st.Target = &tg
		default:
			bad = fmt.Sprintf("unknown field %s (valid: action, device_action, thought, result, app_before, app_after, hash_before, hash_after, changed, screenshot, model_ms, step, target)", k.String())
		}
	})
	if bad != "" {
		L.ArgError(idx, "session.record: step "+bad)
	}
	if st.Action.Type == "" {
		L.ArgError(idx, "session.record: step needs an action table ({type = \"tap\", x = …})")
	}
	if st.DeviceAction.Type == "" {
		st.DeviceAction = st.Action
	}
	return st
}

// renameKeys maps snake_case target keys to the JSON names of engine.Target.
func renameKeys(L *lua.LState, t *lua.LTable) *lua.LTable {
	names := map[string]string{"resource_id": "resourceId", "content_desc": "contentDesc", "class_name": "className"}
	out := L.NewTable()
	t.ForEach(func(k, v lua.LValue) {
		if ks, ok := k.(lua.LString); ok {
			if n, ok := names[string(ks)]; ok {
				out.RawSetString(n, v)
				return
			}
		}
		out.RawSet(k, v)
	})
	return out
}

// actionFrom builds an action from {type=…, params…} (snake_case or spec
// names).
func actionFrom(L *lua.LState, v lua.LValue) (action.Action, error) {
	t, ok := v.(*lua.LTable)
	if !ok {
		return action.Action{}, fmt.Errorf("action table expected, got %s", v.Type())
	}
	typ, ok := t.RawGetString("type").(lua.LString)
	if !ok {
		return action.Action{}, fmt.Errorf("action table needs a string field type")
	}
	spec, known := action.Lookup(string(typ))
	params := map[string]any{}
	t.ForEach(func(k, val lua.LValue) {
		ks, ok := k.(lua.LString)
		if !ok || ks == "type" {
			return
		}
		name := string(ks)
		if known {
			name = paramName(spec, name)
		}
		params[name] = lua.ToGo(val)
	})
	return action.New(string(typ), params)
}
