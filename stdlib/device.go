package stdlib

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/lua"
)

// DeviceSpecs are the action specs the device module binds one function
// each: every CategoryDevice spec plus wait.
func DeviceSpecs() []action.Spec {
	var out []action.Spec
	for _, s := range action.Specs() {
		if s.Category == action.CategoryDevice || s.Name == "wait" {
			out = append(out, s)
		}
	}
	return out
}

// OptionName is the Lua options-table key of an optional action parameter:
// camelCase becomes snake_case ("durationMs" → "duration_ms",
// "holdMs" → "hold_ms").
func OptionName(param string) string { return snake(param) }

func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// deviceBinding builds the generated binding of one spec: required
// parameters positional in spec order, optional ones in a trailing options
// table under snake_case names.
func deviceBinding(e *phoneHost, spec action.Spec) lua.LGFunction {
	var req, opt []action.Param
	for _, p := range spec.Params {
		if p.Required {
			req = append(req, p)
		} else {
			opt = append(opt, p)
		}
	}
	fn := "device." + spec.Name
	return func(L *lua.LState) int {
		params := make(map[string]any, len(spec.Params))
		for i, p := range req {
			v := L.Get(i + 1)
			if v == lua.LNil {
				if p.Default == nil || reflect.ValueOf(p.Default).IsZero() {
					L.ArgError(i+1, fmt.Sprintf("%s: missing %s (%s)", fn, p.Name, kindName(p)))
				}
				continue // NewWithDefaults cannot fill a required param; set below
			}
			params[p.Name] = lua.ToGo(v)
		}
		o := lua.CheckOptions(L, len(req)+1)
		optT, _ := L.Get(len(req) + 1).(*lua.LTable)
		for _, p := range opt {
			if name := OptionName(p.Name); o.Has(name) {
				params[p.Name] = lua.ToGo(optT.RawGetString(name))
			}
		}
		o.Check()
		for _, p := range req {
			if _, ok := params[p.Name]; !ok {
				params[p.Name] = p.Default
			}
		}
		a, err := action.NewWithDefaults(spec.Name, params, e.defaults())
		if err != nil {
			return lua.Raisef(L, "%s: %v", fn, err)
		}
		out, err := e.act(L, a, device.ActOptions{})
		if err != nil {
			return fail(L, fn, err)
		}
		return pushStr(L, out.Result)
	}
}

func kindName(p action.Param) string {
	if p.Kind == action.KindEnum {
		return "one of " + strings.Join(p.Enum, "|")
	}
	return p.Kind.String()
}

func (e *phoneHost) defaults() action.Defaults {
	if s := e.Session(); s != nil && s.Engine() != nil {
		return s.Engine().Defaults
	}
	return nil
}

// act executes one action with the call's context (so a REPL line's Ctrl-C
// interrupts it): device actions on the phone, others through the
// session's executors. tap_element resolves ids against the VM's last
// screen.capture (capturing one if there is none).
func (e *phoneHost) act(L *lua.LState, a action.Action, o device.ActOptions) (device.Outcome, error) {
	sess := e.MustSession(L, "device."+a.Type)
	if !device.IsDeviceAction(a) {
		return sess.ActContext(lua.Context(L), a, o)
	}
	p, err := sess.Phone()
	if err != nil {
		return device.Outcome{}, err
	}
	ctx := lua.Context(L)
	if a.Type == "tap_element" && o.Snapshot == nil {
		if e.lastSnap == nil {
			snap, err := p.Capture(ctx, device.CaptureOptions{})
			if err != nil {
				return device.Outcome{}, err
			}
			e.lastSnap = snap
		}
		o.Snapshot = e.lastSnap
	}
	return sess.HoldToPolicy(ctx, a, func() (device.Outcome, error) { return p.Execute(ctx, a, o) })
}

func openDevice(vm *lua.VM) (lua.LValue, error) {
	e := phoneHostOf(vm)
	api := map[string]lua.LGFunction{}
	for _, s := range DeviceSpecs() {
		api[s.Name] = deviceBinding(e, s)
	}
	// Aliases and helpers of docs/lua-api.md.
	api["key"] = api["keyevent"]
	api["launch"] = api["launch_app"]
	api["back"] = func(L *lua.LState) int { return e.keyAlias(L, "device.back", "KEYCODE_BACK") }
	api["home"] = func(L *lua.LState) int { return e.keyAlias(L, "device.home", "KEYCODE_HOME") }
	api["long_press"] = e.longPress
	api["shell"] = e.shell
	api["act"] = e.actTable
	api["size"] = e.size
	api["info"] = e.info
	return vm.NewModule(api), nil
}

func (e *phoneHost) keyAlias(L *lua.LState, fn, code string) int {
	out, err := e.act(L, action.Action{Type: "keyevent", Params: map[string]any{"keycode": code}}, device.ActOptions{})
	if err != nil {
		return fail(L, fn, err)
	}
	return pushStr(L, out.Result)
}

// device.long_press(x, y, {duration_ms=600}): a swipe in place.
func (e *phoneHost) longPress(L *lua.LState) int {
	x, y := L.CheckNumber(1), L.CheckNumber(2)
	o := lua.CheckOptions(L, 3)
	d := o.Duration("duration", 600*time.Millisecond)
	o.Check()
	return e.pressAt(L, "device.long_press", int(x), int(y), d)
}

func (e *phoneHost) pressAt(L *lua.LState, fn string, x, y int, d time.Duration) int {
	a, err := action.New("swipe", map[string]any{"x1": x, "y1": y, "x2": x, "y2": y, "durationMs": int(d.Milliseconds())})
	if err != nil {
		return lua.Raisef(L, "%s: %v", fn, err)
	}
	out, err := e.act(L, a, device.ActOptions{})
	if err != nil {
		return fail(L, fn, err)
	}
	return pushStr(L, strings.Replace(out.Result, "Swiped", "Long-pressed", 1))
}

// device.shell(command) → output (stdout then stderr), exit_code. The
// command runs exactly as given, output is not truncated.
func (e *phoneHost) shell(L *lua.LState) int {
	cmd := L.CheckString(1)
	p, err := e.Phone(L, "device.shell")
	if err != nil {
		return lua.ReturnErr(L, err)
	}
	// Held to the run's permission policy like the agent's shell action: a
	// replay repeats what a model's run did.
	var res device.ShellResult
	run := func() (device.Outcome, error) {
		var err error
		res, err = p.Shell(lua.Context(L), cmd)
		return device.Outcome{}, err
	}
	if sess := e.Session(); sess != nil {
		a := action.Action{Type: "shell", Params: map[string]any{"command": cmd}}
		_, err = sess.HoldToPolicy(lua.Context(L), a, run)
	} else {
		_, err = run()
	}
	if err != nil {
		return fail(L, "device.shell", err)
	}
	L.Push(lua.LString(string(res.Stdout) + string(res.Stderr)))
	L.Push(lua.LNumber(res.ExitCode))
	return 2
}

// device.act(action_table, {observe}) → result, outcome.
func (e *phoneHost) actTable(L *lua.LState) int {
	tbl := L.CheckTable(1)
	o := lua.CheckOptions(L, 2)
	observe := o.Bool("observe", false)
	o.Check()
	typ, ok := tbl.RawGetString("type").(lua.LString)
	if !ok {
		return lua.Raisef(L, "device.act: the action table needs a string field type (an action name such as \"tap\"), got %s", tbl.RawGetString("type").Type())
	}
	spec, known := action.Lookup(string(typ))
	params := map[string]any{}
	var badKey string
	tbl.ForEach(func(k, v lua.LValue) {
		ks, isStr := k.(lua.LString)
		if !isStr {
			badKey = k.String()
			return
		}
		if ks == "type" {
			return
		}
		name := string(ks)
		if known {
			name = paramName(spec, name)
		}
		params[name] = lua.ToGo(v)
	})
	if badKey != "" {
		return lua.Raisef(L, "device.act: action table keys must be parameter names, got %s", badKey)
	}
	a, err := action.NewWithDefaults(string(typ), params, e.defaults())
	if err != nil {
		return lua.Raisef(L, "device.act: %v", err)
	}
	out, err := e.act(L, a, device.ActOptions{Observe: observe})
	if err != nil {
		return fail(L, "device.act", err)
	}
	L.Push(lua.LString(out.Result))
	L.Push(outcomeTable(L, out))
	return 2
}

// paramName maps a snake_case key to the spec's camelCase parameter.
func paramName(spec action.Spec, key string) string {
	if _, ok := spec.Param(key); ok {
		return key
	}
	for _, p := range spec.Params {
		if OptionName(p.Name) == key {
			return p.Name
		}
	}
	return key
}

func outcomeTable(L *lua.LState, out device.Outcome) *lua.LTable {
	t := L.CreateTable(0, 9)
	t.RawSetString("result", lua.LString(out.Result))
	t.RawSetString("action", actionTable(L, out.Device))
	if out.Element != nil {
		t.RawSetString("element", uiElementTable(L, out.Element))
	}
	t.RawSetString("app_before", lua.LString(out.AppBefore))
	t.RawSetString("app_after", lua.LString(out.AppAfter))
	t.RawSetString("hash_before", lua.LString(out.HashBefore))
	t.RawSetString("hash_after", lua.LString(out.HashAfter))
	t.RawSetString("changed", lua.LBool(out.Changed))
	t.RawSetString("finished", lua.LBool(out.Finished))
	return t
}

// actionTable renders an action as {type=…, param=…} with spec names.
func actionTable(L *lua.LState, a action.Action) *lua.LTable {
	t := L.CreateTable(0, len(a.Params)+1)
	t.RawSetString("type", lua.LString(a.Type))
	for k, v := range a.Params {
		t.RawSetString(k, lua.ToLua(L, v))
	}
	return t
}

// device.size() → w, h.
func (e *phoneHost) size(L *lua.LState) int {
	p, err := e.Phone(L, "device.size")
	if err != nil {
		return lua.ReturnErr(L, err)
	}
	w, h, err := p.Size(lua.Context(L))
	if err != nil {
		return fail(L, "device.size", err)
	}
	L.Push(lua.LNumber(w))
	L.Push(lua.LNumber(h))
	return 2
}

// device.info() → {serial, model, sdk, release, width, height}.
func (e *phoneHost) info(L *lua.LState) int {
	p, err := e.Phone(L, "device.info")
	if err != nil {
		return lua.ReturnErr(L, err)
	}
	ctx := lua.Context(L)
	t := L.CreateTable(0, 6)
	t.RawSetString("serial", lua.LString(p.Serial()))
	props, err := p.Props(ctx)
	if err != nil {
		return fail(L, "device.info", err)
	}
	for _, prop := range []struct{ key, name string }{
		{"model", "ro.product.model"}, {"sdk", "ro.build.version.sdk"}, {"release", "ro.build.version.release"},
	} {
		v := props[prop.name]
		if prop.key == "sdk" {
			if n, err := strconv.Atoi(v); err == nil {
				t.RawSetString(prop.key, lua.LNumber(n))
				continue
			}
		}
		t.RawSetString(prop.key, lua.LString(v))
	}
	w, h, err := p.Size(ctx)
	if err != nil {
		return fail(L, "device.info", err)
	}
	t.RawSetString("width", lua.LNumber(w))
	t.RawSetString("height", lua.LNumber(h))
	L.Push(t)
	return 1
}

// uiElementTable renders a numbered snapshot element.
func uiElementTable(L *lua.LState, el *screen.UIElement) *lua.LTable {
	t := L.CreateTable(0, 10)
	t.RawSetString("id", lua.LString(el.ID))
	t.RawSetString("text", lua.LString(el.Text))
	t.RawSetString("desc", lua.LString(el.ContentDesc))
	t.RawSetString("resource_id", lua.LString(el.ResourceID))
	t.RawSetString("class", lua.LString(el.ClassName))
	t.RawSetString("clickable", lua.LBool(el.Clickable))
	t.RawSetString("enabled", lua.LBool(el.Enabled))
	t.RawSetString("bounds", rectTable(L, el.Bounds))
	t.RawSetString("center", pointTable(L, el.Center))
	t.RawSetString("scaled_center", pointTable(L, el.ScaledCenter))
	return t
}

func rectTable(L *lua.LState, r screen.Rect) *lua.LTable {
	t := L.CreateTable(0, 4)
	t.RawSetString("left", lua.LNumber(r.Left))
	t.RawSetString("top", lua.LNumber(r.Top))
	t.RawSetString("right", lua.LNumber(r.Right))
	t.RawSetString("bottom", lua.LNumber(r.Bottom))
	return t
}

func pointTable(L *lua.LState, p screen.Point) *lua.LTable {
	t := L.CreateTable(0, 2)
	t.RawSetString("x", lua.LNumber(p.X))
	t.RawSetString("y", lua.LNumber(p.Y))
	return t
}
