package stdlib_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/lua"
)

func TestScreenCapture(t *testing.T) {
	r := newRig(t)
	r.eval(`app.launch("com.android.settings")`)
	snap := r.eval(`(function()
		local s = screen.capture({scaled = true})
		return {app = s.app, width = s.width, height = s.height, scaled_width = s.scaled_width,
			scaled_height = s.scaled_height, hash = s.hash, secure = s.secure, n = #s.elements,
			first = s.elements[1], metrics = s.metrics, str = tostring(s), nope = s.nope}
	end)()`)[0].(map[string]any)
	assert.Equal(t, "com.android.settings", snap["app"])
	assert.Equal(t, float64(1080), snap["width"])
	assert.Equal(t, float64(2400), snap["height"])
	assert.Positive(t, snap["scaled_width"])
	assert.Less(t, snap["scaled_width"], float64(1080))
	assert.Len(t, snap["hash"], 16)
	assert.Equal(t, false, snap["secure"])
	assert.Positive(t, snap["n"])
	assert.Nil(t, snap["nope"])
	assert.Contains(t, snap["str"], "snapshot com.android.settings 1080x2400")
	first := snap["first"].(map[string]any)
	assert.Equal(t, "1", first["id"])
	for _, k := range []string{"text", "desc", "resource_id", "class", "clickable", "enabled", "bounds", "center", "scaled_center"} {
		assert.Contains(t, first, k)
	}
	m := snap["metrics"].(map[string]any)
	assert.Equal(t, "fresh", m["ui_elements_source"])
	assert.Equal(t, snap["n"], m["ui_elements_count"])
	assert.Contains(t, m, "total_ms")

	// find/find_all on the snapshot's own tree.
	out := r.eval(`(function() local s = screen.capture(); return s:find("Wi-Fi"), #s:find_all({class = "Switch"}), s:find("Nope") end)()`)
	assert.Equal(t, "Wi-Fi", out[0].(map[string]any)["text"])
	assert.Equal(t, float64(2), out[1])
	assert.Nil(t, out[2])

	// save writes the PNG (relative paths under the current directory
	// without a session), never outside it.
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	t.Chdir(dir)
	path := filepath.Join(dir, "shots", "shot.png")
	out = r.eval(`screen.capture():save("shots/shot.png")`)
	assert.Equal(t, path, out[0])
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "\x89PNG", string(b[:4]))
	outside := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "link")))
	for _, p := range []string{"/etc/x.png", "../x.png", "shots/../../x.png", "link/x.png"} {
		err := r.evalErr(fmt.Sprintf(`screen.capture():save(%q)`, p))
		require.Error(t, err, p)
		assert.Contains(t, err.Error(), "snap:save: path \""+p+"\" leaves the artifacts directory", p)
	}
	entries, _ := os.ReadDir(outside)
	assert.Empty(t, entries, "nothing written through the symlink")
}

func TestUIFindWaitTap(t *testing.T) {
	r := newRig(t)
	ph := r.sim.Phone()

	// Launcher icons: the label lives in a child of a clickable icon.
	el := r.eval(`ui.find("Settings")`)[0].(map[string]any)
	assert.Equal(t, "Settings", el["label"])
	assert.Equal(t, true, r.eval(`ui.exists("Settings")`)[0])
	assert.Equal(t, false, r.eval(`ui.exists("Bluetooth")`)[0])

	r.eval(`ui.tap("Settings")`)
	el = r.eval(`ui.wait({text = "Wi-Fi"}, {timeout_ms = 3000})`)[0].(map[string]any)
	assert.Equal(t, "com.android.settings", el["package"])
	assert.Equal(t, "com.android.settings", ph.CurrentPackage())

	// tap "Wi-Fi" (a label in a clickable row) toggles the switch.
	require.True(t, ph.WifiOn())
	r.eval(`ui.tap("Wi-Fi")`)
	eventually(t, func() bool { return !ph.WifiOn() }, "ui.tap(\"Wi-Fi\") did not turn Wi-Fi off")
	r.eval(`ui.tap(ui.sel{id = "wifi_switch"})`)
	eventually(t, ph.WifiOn, "tapping the switch did not turn Wi-Fi on")
	assert.Equal(t, true, r.eval(`ui.find({id = "wifi_switch"}).checked`)[0])

	// relations and selector objects.
	out := r.eval(`tostring(ui.sel("Bluetooth"):below("Wi-Fi"):index(0))`)
	assert.Equal(t, `text="Bluetooth" index=0 below(text="Wi-Fi")`, out[0])
	sw := r.eval(`ui.find(ui.sel{class = "Switch"}:right_of("Bluetooth"))`)[0].(map[string]any)
	assert.Equal(t, "com.android.settings:id/bluetooth_switch", sw["id"])
	all := r.eval(`ui.find_all({class = "Switch"})`)[0].([]any)
	assert.Len(t, all, 2)
	assert.Equal(t, "Wi-Fi", r.eval(`ui.text({text_contains = "wi-f"})`)[0])

	// not found: nil plus the selector and what the screen showed.
	out = r.eval(`ui.find({text = "Nope"}, {timeout_ms = 300})`)
	assert.Nil(t, out[0])
	assert.Contains(t, out[1], `not found: text="Nope" within 300 ms; screen shows: `)
	assert.Contains(t, out[1], `"Bluetooth"`)
	assert.Equal(t, false, r.eval(`ui.tap_if_exists("Nope")`)[0])

	// wait_gone: "About phone" opens another screen.
	assert.Equal(t, true, r.eval(`ui.tap_if_exists("About phone")`)[0])
	assert.Equal(t, true, r.eval(`ui.wait_gone("Wi-Fi", {timeout_ms = 2000})`)[0])
	out = r.eval(`ui.wait_gone("Model", {timeout_ms = 200})`)
	assert.Nil(t, out[0])
	assert.Contains(t, out[1], `still visible after 200 ms: text="Model"`)

	// bad selectors raise.
	for src, want := range map[string]string{
		`ui.find({txt = "x"})`:           `unknown selector field "txt"`,
		`ui.find(42)`:                    `selector expected (a string, a table of fields or ui.sel), got number`,
		`ui.find({text_regex = "("})`:    `text_regex: invalid regular expression "("`,
		`ui.find("x", {timeout = 1})`:    `unknown option "timeout" (valid: timeout_ms)`,
		`ui.sel{text = "a"}:below(true)`: `selector expected`,
	} {
		err := r.evalErr(src)
		require.Error(t, err, src)
		assert.Contains(t, err.Error(), want, src)
	}
}

func TestUIDefaultTimeoutAndOnPoll(t *testing.T) {
	r := newRig(t)
	r.run(`
		polls, fails = 0, 0
		ui.on_poll(function() polls = polls + 1 end)
		assert(ui.set_default_timeout(400) == 5000)
	`)
	start := time.Now()
	out := r.eval(`ui.find("Nope")`)
	assert.Nil(t, out[0])
	assert.Contains(t, out[1], "within 400 ms")
	assert.Less(t, time.Since(start), 3*time.Second)
	polls := r.eval(`polls`)[0].(float64)
	assert.GreaterOrEqual(t, polls, float64(1))

	// an error in the hook is logged, not raised; ui calls inside the hook work.
	r.run(`ui.on_poll(function() ui.tap_if_exists("Allow"); error("hook boom") end)`)
	out = r.eval(`ui.find("Nope", {timeout_ms = 300})`)
	assert.Nil(t, out[0])
	assert.Contains(t, r.logs.String(), "hook boom")

	// The hook dismisses a permission dialog while a wait polls (what
	// playbook watchers do).
	r.run(`ui.on_poll(function() ui.tap_if_exists("Allow") end)`)
	r.eval(`app.launch("com.openpocket.notes")`)
	el := r.eval(`ui.wait({id = "note_input"}, {timeout_ms = 3000})`)[0]
	require.NotNil(t, el)
	r.run(`ui.on_poll(nil)`)
}

func TestUIScrollIntoView(t *testing.T) {
	r := newRig(t)
	r.eval(`app.launch("com.openpocket.contacts")`)
	require.NotNil(t, r.eval(`ui.wait("Aaron Abbott")`)[0])
	el := r.eval(`ui.scroll_into_view("Zoe Zimmerman")`) // within the default 10 swipes
	require.NotNil(t, el[0], "%v", el)
	assert.Equal(t, "Zoe Zimmerman", el[0].(map[string]any)["text"])
	r.eval(`ui.tap("Zoe Zimmerman")`)
	assert.NotNil(t, r.eval(`ui.wait({id = "contact_phone"})`)[0])

	// the end of the list stops early with a clear error.
	r.eval(`device.back()`)
	start := time.Now()
	out := r.eval(`ui.scroll_into_view("Nobody Here", {max_swipes = 50})`)
	assert.Nil(t, out[0])
	assert.Contains(t, out[1], "reached the end of the list")
	assert.Less(t, time.Since(start), 10*time.Second)

	// up goes back to the top.
	el = r.eval(`ui.scroll_into_view("Aaron Abbott", {direction = "up", max_swipes = 30})`)
	require.NotNil(t, el[0], "%v", el)
	assert.Contains(t, r.evalErr(`ui.scroll_into_view("x", {direction = "sideways"})`).Error(), `one of down, up, left, right expected, got "sideways"`)
}

func TestUISetTextRoundTripsUnicode(t *testing.T) {
	r := newRig(t)
	ph := r.sim.Phone()
	r.eval(`app.launch("com.openpocket.notes")`)
	r.eval(`ui.tap("Allow")`)
	out := r.eval(`ui.set_text({id = "note_input"}, "first draft")`)
	require.Equal(t, true, out[0], "%v", out)
	assert.Equal(t, "first draft", ph.FocusedText())
	// replaces the previous text; non-ASCII goes through the clipboard.
	out = r.eval(`ui.set_text({id = "note_input"}, "日本語 ✓ café")`)
	require.Equal(t, true, out[0], "%v", out)
	assert.Equal(t, "日本語 ✓ café", ph.FocusedText())
	assert.Equal(t, "日本語 ✓ café", r.eval(`ui.text({id = "note_input"})`)[0])
	r.eval(`ui.tap("Save")`)
	eventually(t, func() bool { n := ph.Notes(); return len(n) == 1 && n[0] == "日本語 ✓ café" }, "note not saved")
	assert.NotNil(t, r.eval(`ui.find({id = "note_item", text = "日本語 ✓ café"})`)[0])
	// long_press on the note deletes it.
	r.eval(`ui.long_press({id = "note_item"})`)
	eventually(t, func() bool { return len(ph.Notes()) == 0 }, "long press did not delete the note")

	// password fields: typed, not compared.
	r.eval(`app.launch("com.openpocket.login")`)
	assert.Equal(t, true, r.eval(`ui.set_text({id = "username"}, "ada")`)[0])
	assert.Equal(t, true, r.eval(`ui.set_text({id = "password"}, "hunter2")`)[0])
	r.eval(`ui.tap("Log in")`)
	assert.Equal(t, true, r.eval(`ui.set_text({id = "otp"}, "123456")`)[0])
	r.eval(`ui.tap("Verify")`)
	assert.NotNil(t, r.eval(`ui.wait({text_contains = "Welcome, ada"})`)[0])
	assert.True(t, ph.LoggedIn())
}

func TestApp(t *testing.T) {
	r := newRig(t)
	ph := r.sim.Phone()
	assert.Equal(t, "com.android.launcher3", r.eval(`app.current()`)[0])
	out := r.eval(`app.launch("com.android.settings")`)
	assert.Contains(t, out[0], "Launched com.android.settings")
	assert.Equal(t, "com.android.settings", r.eval(`app.current()`)[0])
	assert.Equal(t, true, r.eval(`app.installed("com.openpocket.notes")`)[0])
	assert.Equal(t, false, r.eval(`app.installed("com.example.missing")`)[0])
	assert.Equal(t, true, r.eval(`app.stop("com.android.settings")`)[0])
	assert.NotEqual(t, "com.android.settings", ph.CurrentPackage())

	// clear brings the Notes permission dialog back.
	r.eval(`app.launch("com.openpocket.notes")`)
	r.eval(`ui.tap("Allow")`)
	r.eval(`ui.set_text({id = "note_input"}, "x")`)
	r.eval(`ui.tap("Save")`)
	require.Len(t, ph.Notes(), 1)
	r.eval(`app.launch("com.openpocket.notes", {stop = true, clear = true})`)
	assert.Empty(t, ph.Notes())
	assert.NotNil(t, r.eval(`ui.wait("Allow")`)[0])

	out = r.eval(`app.launch("com.example.missing")`)
	assert.Nil(t, out[0])
	assert.Contains(t, out[1], "app.launch: launch_app com.example.missing failed")
	assert.Contains(t, r.evalErr(`app.launch("not a package")`).Error(), "package name expected")
	assert.Contains(t, r.evalErr(`app.launch("x", {restart = true})`).Error(), `unknown option "restart" (valid: clear, stop)`)
}

func TestWait(t *testing.T) {
	r := newRig(t)
	start := time.Now()
	r.eval(`wait.ms(120)`)
	assert.GreaterOrEqual(t, time.Since(start), 120*time.Millisecond)
	assert.Len(t, r.eval(`wait.idle({timeout_ms = 1000})`)[0], 16)
	out := r.eval(`(function() local n = 0; return wait["until"](function() n = n + 1; return n >= 3 and n end, {interval_ms = 10}) end)()`)
	assert.Equal(t, float64(3), out[0])
	out = r.eval(`wait.poll(function() return false end, {timeout_ms = 100, interval_ms = 20})`)
	assert.Nil(t, out[0])
	assert.Contains(t, out[1], "timeout")
	assert.Contains(t, r.evalErr(`wait["until"](function() error("inner") end)`).Error(), "inner")
}

func TestAssertMessagesNameTheSelector(t *testing.T) {
	r := newRig(t)
	r.eval(`app.launch("com.android.settings")`)
	r.run(`local a = require("assert")
		a.visible("Wi-Fi")
		a.not_visible("Nope", {timeout_ms = 100})
		a.text({id = "wifi_switch"}, "")
		a(true, "callable")
		a.eq({1, 2, {x = "y"}}, {1, 2, {x = "y"}})
		a.truthy(1)`)
	for src, want := range map[string][]string{
		`require("assert").visible({text = "Nope"}, {timeout_ms = 200})`:                {`test.lua:1: assert.visible: text="Nope" is not visible`, `screen shows: `, `"Wi-Fi"`},
		`require("assert").visible("Nope", {timeout_ms = 100, message = "login page"})`: {`login page: assert.visible: text="Nope"`},
		`require("assert").not_visible("Wi-Fi", {timeout_ms = 100})`:                    {`assert.not_visible: text="Wi-Fi" is still visible after 100 ms`},
		`require("assert").text("Bluetooth", "Blue", {timeout_ms = 100})`:               {`assert.text: text="Bluetooth": expected "Blue", got "Bluetooth"`},
		`require("assert").text("Nope", "x", {timeout_ms = 100})`:                       {`assert.text: text="Nope": expected "x" but not found`},
		`require("assert").eq({1, 2}, {1, 3}, "lists")`:                                 {`lists: assert.eq: expected {1, 3}, got {1, 2}`},
		`require("assert").truthy(nil)`:                                                 {`assert.truthy: got nil`},
		`require("assert")(false, "plain")`:                                             {`plain`},
		`require("assert").visible("x", {timeout = 1})`:                                 {`assert.visible: unknown option "timeout" (valid: message, timeout_ms)`},
	} {
		err := r.vm.Run("test.lua", []byte(src))
		require.Error(t, err, src)
		for _, w := range want {
			assert.Contains(t, err.Error(), w, src)
		}
	}
}

func TestUIWaitIsCancellable(t *testing.T) {
	r := newRig(t)
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err := r.vm.EvalContext(ctx, `ui.wait("Never", {timeout_ms = 60000})`)
	require.Error(t, err)
	var se *lua.ScriptError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, lua.KindCanceled, se.Kind)
	assert.True(t, errors.Is(err, context.Canceled))
	assert.Less(t, time.Since(start), 3*time.Second)
	// the VM is still usable afterwards (a REPL line's Ctrl-C).
	assert.Equal(t, true, r.eval(`ui.exists("Settings")`)[0])

	// the session's end ends the VM too.
	time.AfterFunc(200*time.Millisecond, r.sess.Cancel)
	start = time.Now()
	_, err = r.vm.Eval(`ui.wait("Never", {timeout_ms = 60000})`)
	require.Error(t, err)
	assert.Less(t, time.Since(start), 3*time.Second)
}
