package stdlib_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/lua"
	"github.com/openpocket/openpocket/stdlib"
)

func newBareVM(t *testing.T) *lua.VM {
	t.Helper()
	vm, err := lua.New(t.Context(), stdlib.Registry(), lua.Options{AutoRequire: true})
	require.NoError(t, err)
	t.Cleanup(vm.Close)
	return vm
}

// Adding a device action to the spec table must add a binding.
func TestEveryDeviceSpecHasABinding(t *testing.T) {
	vm := newBareVM(t)
	specs := stdlib.DeviceSpecs()
	require.NotEmpty(t, specs)
	names := map[string]bool{}
	for _, s := range action.Specs() {
		if s.Category == action.CategoryDevice {
			names[s.Name] = true
		}
	}
	names["wait"] = true
	for _, s := range specs {
		delete(names, s.Name)
		out, err := vm.Eval(`type(device.` + s.Name + `)`)
		require.NoError(t, err)
		assert.Equal(t, "function", out[0], "device.%s is not bound", s.Name)
	}
	assert.Empty(t, names, "device specs without a binding")
	for _, alias := range []string{"key", "back", "home", "launch", "long_press", "act", "shell", "size", "info"} {
		out, err := vm.Eval(`type(device.` + alias + `)`)
		require.NoError(t, err)
		assert.Equal(t, "function", out[0], "device.%s", alias)
	}
}

func TestOptionName(t *testing.T) {
	assert.Equal(t, "duration_ms", stdlib.OptionName("durationMs"))
	assert.Equal(t, "hold_ms", stdlib.OptionName("holdMs"))
	assert.Equal(t, "reason", stdlib.OptionName("reason"))
}

func TestDeviceArgumentErrorsRaise(t *testing.T) {
	r := newSessionRig(t, t.Context(), nil)
	for src, want := range map[string]string{
		`device.swipe(1, 2, 3, 4, {bogus = 1})`:               `unknown option "bogus" (valid: duration_ms, reason)`,
		`device.tap()`:                                        `device.tap: missing x (integer)`,
		`device.tap("a", 1)`:                                  `parameter "x" must be an integer`,
		`device.tap(1.5, 1)`:                                  `parameter "x" must be an integer`,
		`device.long_press_drag(1, 2, 3, 4, {hold_ms = "x"})`: `parameter "holdMs" must be an integer`,
		`device.act({x = 1})`:                                 `needs a string field type`,
		`device.act({type = "warp"})`:                         `unknown action type "warp"`,
		`device.wait({duration = 5})`:                         `unknown option "duration" (valid: duration_ms, reason)`,
	} {
		err := r.evalErr(src)
		require.Error(t, err, src)
		assert.Contains(t, err.Error(), want, src)
	}
	// No device: an operational failure, not a raise.
	out := r.eval(`device.tap(1, 2)`)
	assert.Nil(t, out[0])
	assert.Contains(t, out[1], "device.tap: no device in this test")
}

func TestDeviceActionsChangeThePhone(t *testing.T) {
	r := newRig(t)
	ph := r.sim.Phone()

	out := r.eval(`device.launch_app("com.android.settings")`)
	assert.Contains(t, out[0], "Launched com.android.settings")
	assert.Equal(t, "com.android.settings", ph.CurrentPackage())

	r.eval(`device.home()`)
	assert.Equal(t, "com.android.launcher3", ph.CurrentPackage())
	r.eval(`device.launch("com.android.settings")`)
	out = r.eval(`device.back()`)
	assert.Equal(t, "Sent keyevent KEYCODE_BACK", out[0])
	assert.Equal(t, "com.android.launcher3", ph.CurrentPackage())
	r.eval(`device.launch("com.android.settings")`)
	out = r.eval(`device.key("home")`)
	assert.Equal(t, "Sent keyevent KEYCODE_HOME", out[0])
	assert.Equal(t, "com.android.launcher3", ph.CurrentPackage())
	r.eval(`device.keyevent()`) // keycode defaults to KEYCODE_ENTER

	// tap on the Wi-Fi row's centre toggles Wi-Fi.
	r.eval(`device.launch("com.android.settings")`)
	require.True(t, ph.WifiOn())
	out = r.eval(`(function() local e = ui.find("Wi-Fi"); return device.tap(e.center.x, e.center.y) end)()`)
	assert.Contains(t, out[0], "Tapped at")
	assert.False(t, ph.WifiOn())

	// act: any action as a table, snake_case or spec names.
	out = r.eval(`(function() local e = ui.find("Wi-Fi"); return device.act({type = "tap", x = e.center.x, y = e.center.y}, {observe = true}) end)()`)
	assert.Contains(t, out[0], "state_delta changed=true")
	oc := out[1].(map[string]any)
	assert.Equal(t, true, oc["changed"])
	assert.Equal(t, "tap", oc["action"].(map[string]any)["type"])
	assert.True(t, ph.WifiOn())

	// shell: exact output and exit code.
	out = r.eval(`device.shell("echo hi; echo oops >&2; false")`)
	assert.Equal(t, "hi\noops\n", out[0])
	assert.Equal(t, float64(1), out[1])
	out = r.eval(`device.shell("settings get global wifi_on")`)
	assert.Equal(t, "1\n", out[0])

	out = r.eval(`device.size()`)
	assert.Equal(t, []any{float64(1080), float64(2400)}, out)
	info := r.eval(`device.info()`)[0].(map[string]any)
	assert.Equal(t, r.sim.Serial(), info["serial"])
	assert.NotEmpty(t, info["model"])
	assert.Equal(t, float64(34), info["sdk"])
	assert.Equal(t, "14", info["release"])
	assert.Equal(t, float64(1080), info["width"])

	out = r.eval(`device.wait({duration_ms = 100})`)
	assert.Equal(t, "Waited 100 ms", out[0])

	// swipe in place, long_press and drag run as input swipe.
	out = r.eval(`device.swipe(500, 1500, 500, 1000, {duration_ms = 200})`)
	assert.Equal(t, "Swiped from (500, 1500) to (500, 1000) in 200 ms", out[0])
	out = r.eval(`device.long_press(10, 10)`)
	assert.Contains(t, out[0], "in 600 ms")
	out = r.eval(`device.long_press_drag(1, 2, 3, 4, {hold_ms = 500, duration_ms = 300})`)
	assert.Contains(t, out[0], "in 800 ms")

	// tap_element resolves ids against the last screen.capture.
	r.eval(`device.home()`)
	out = r.eval(`(function()
		local snap = screen.capture()
		for _, el in ipairs(snap.elements) do
			if el.desc == "Notes" or el.text == "Notes" then return device.tap_element(el.id) end
		end
	end)()`)
	require.NotNil(t, out[0])
	assert.Contains(t, out[0], "Tapped element")
	eventually(t, func() bool {
		p := ph.CurrentPackage()
		return p == "com.openpocket.notes" || strings.Contains(p, "permissioncontroller")
	}, "tap_element on Notes did not open it: "+ph.CurrentPackage())

	// type: ASCII via input text into the focused field.
	r.eval(`ui.tap("Allow")`)
	r.eval(`ui.tap({id = "note_input"})`)
	out = r.eval(`device.type("hello")`)
	assert.Contains(t, out[0], "Typed 5 chars")
	assert.Equal(t, "hello", ph.FocusedText())
}

func TestDeviceCallsAreCancellable(t *testing.T) {
	r := newRig(t)
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-timeAfter(200); cancel() }()
	start := nowMs()
	_, err := r.vm.EvalContext(ctx, `device.wait({duration_ms = 60000})`)
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.Canceled), "%v", err)
	assert.Less(t, nowMs()-start, int64(5000))
}
