package playbooks

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/action"
)

func compileSteps(t *testing.T, steps string) (string, error) {
	t.Helper()
	lua, _, err := Compile([]byte("name: t\napp: com.x\nsteps:\n"+steps), Options{File: "t.yaml"})
	return string(lua), err
}

func TestDeviceStepsCompile(t *testing.T) {
	ok := map[string]string{
		"  - open_link: notes://x\n": `flow.sh("am start -W -a android.intent.action.VIEW -d " .. flow.shq("notes://x"))`,
		"  - open_link: {url: \"https://a/${n}\", app: com.y, browser: true}\n": `.. " -c android.intent.category.BROWSABLE" .. " -p " .. flow.shq("com.y")`,
		"  - set_permissions: {permissions: {camera: allow, location: deny}}\n": `flow.permissions("com.x", {"android.permission.CAMERA", true, "android.permission.ACCESS_FINE_LOCATION", false, "android.permission.ACCESS_COARSE_LOCATION", false})`,
		"  - launch: {clear_state: true, permissions: {all: allow}}\n":          "flow.must(app.clear(\"com.x\"))\n        flow.permissions(\"com.x\", {\"all\", true})\n        flow.must(app.launch(\"com.x\"))",
		"  - launch: {arguments: {user: bob, n: 3, on: true}}\n":                `flow.launch_with_extras("com.x", {{"user", "bob"}, {"n", 3}, {"on", true}})`,
		"  - install_apk: apks/b.apk\n":                                         `flow.must(assets.push("apks/b.apk", "/data/local/tmp/b.apk"))`,
		"  - install_apk: /data/local/tmp/a.apk\n":                              `flow.sh("pm install -r " .. flow.shq("/data/local/tmp/a.apk"))`,
		"  - set_location: {latitude: 52.5, longitude: -13}\n":                  "flow.set_location(52.5, -13)",
		"  - airplane_mode: true\n  - airplane_mode: toggle\n":                  "flow.airplane(\"enable\")\n      end)\n      -- t.yaml:5 airplane mode toggle\n      flow.step(__steps[2], function()\n        flow.airplane(\"toggle\")",
		"  - hide_keyboard\n": "flow.hide_keyboard()",
		"  - paste_text\n":    `if copied_text == nil then flow.fail(`,
		"  - input_random: {kind: person_name, as: who}\n":                 `local __text = flow.random_text("person_name", nil)`,
		"  - tap: {text: Go, repeat: 3, delay: 50ms}\n":                    "for __i = 1, 3 do\n          if __i > 1 then wait.ms(50) end\n          flow.must(ui.tap({text = \"Go\"}",
		"  - scroll_until_visible: {text: Z, speed: 80, centered: true}\n": `flow.scroll_until_visible({text = "Z"}, {direction = "down", timeout_ms = 5000, speed = 80, centered = true})`,
		"  - assert_visible: {id: a, width: 100, tolerance: 5}\n":          `flow.assert_size({id = "a"}, {width = 100, tolerance = 5}, {timeout_ms = 5000})`,
		"  - key: Remote Dpad Left\n":                                      `device.key("KEYCODE_DPAD_LEFT")`,
		"  - tap: {id_regex: \".*_save\", contains_child: {text: OK}}\n":   `ui.tap({id_regex = ".*_save", contains_child = {text = "OK"}}`,
		"  - assert_screenshot: refs/home\n":                               `visual.compare("refs/home.png", {tolerance = 1})`,
		"  - set_orientation: landscape_right\n":                           `settings put system user_rotation 3`,
		"  - set_clipboard: hi\n":                                          `flow.sh("cmd clipboard set text " .. flow.shq("hi"))`,
	}
	for steps, want := range ok {
		lua, err := compileSteps(t, steps)
		require.NoError(t, err, steps)
		assert.Contains(t, lua, want, steps)
	}
	bad := map[string]string{
		"  - set_permissions: {permissions: {camra: allow}}\n":        `unknown permission "camra"; did you mean "camera"?`,
		"  - set_permissions: {permissions: {camera: maybe}}\n":       "permission camera must be allow, deny or unset",
		"  - install_apk: ../app.apk\n":                               "must be inside the playbook's directory",
		"  - install_apk: app.zip\n":                                  "must name an .apk file",
		"  - set_location: {latitude: 91, longitude: 0}\n":            "latitude must be between -90 and 90",
		"  - set_location: {latitude: 1}\n":                           "set_location needs latitude and longitude",
		"  - airplane_mode: sometimes\n":                              "airplane_mode must be true, false or toggle",
		"  - input_random: {kind: mail}\n":                            `did you mean "email"?`,
		"  - tap: {text: Go, delay: 1s}\n":                            "delay only goes with repeat",
		"  - scroll_until_visible: {text: Z, speed: 150}\n":           "speed must be between 0 and 100",
		"  - assert_visible: {text: Z, tolerance: 3}\n":               "tolerance needs width or height",
		"  - assert_screenshot: {reference: ../x.png}\n":              "must be a path inside the playbook's directory",
		"  - assert_screenshot: {reference: a.png, tolerance: 120}\n": "tolerance must be between 0 and 100",
		"  - tap: {id_regex: \"(\"}\n":                                "invalid id_regex",
		"  - key: Remote Dpad Sideways\n":                             `unknown key name "Remote Dpad Sideways"`,
		"  - set_orientation: diagonal\n":                             "orientation must be portrait",
	}
	for steps, want := range bad {
		_, err := compileSteps(t, steps)
		require.Error(t, err, steps)
		assert.Contains(t, err.Error(), want, steps)
	}
}

// TestNewStepsAreNotActions keeps the step catalogue and the action table
// apart: a new step must not shadow an action of the same name.
func TestNewStepsAreNotActions(t *testing.T) {
	for _, d := range deviceStepDefs() {
		_, isAction := action.Lookup(d.Name)
		assert.False(t, isAction, "step %s shadows the action of the same name", d.Name)
		assert.NotEmpty(t, d.Doc, d.Name)
		assert.NotNil(t, d.gen, "%s has its generator next to its parser", d.Name)
	}
	for name, kc := range maestroKeys {
		a, err := action.New("keyevent", map[string]any{"keycode": kc})
		require.NoError(t, err, name)
		assert.Equal(t, kc, a.Str("keycode"), name)
		assert.True(t, strings.HasPrefix(kc, "KEYCODE_"), name)
	}
}

func TestContainsList(t *testing.T) {
	lua, err := compileSteps(t, "  - assert_visible: {clickable: true, contains: [Bluetooth, {class: Switch}]}\n  - tap: {contains: [{text: A}]}\n")
	require.NoError(t, err)
	assert.Contains(t, lua, `assert.visible({clickable = true, contains = {"Bluetooth", {class = "Switch"}}}`)
	assert.Contains(t, lua, `ui.tap({contains = {text = "A"}}`)
	_, err = compileSteps(t, "  - tap: {contains: []}\n")
	assert.ErrorContains(t, err, "contains needs at least one selector")
}

// TestInputRandomAsIsAKnownVariable: lint does not warn "unknown variable
// pin" after input_random: {…, as: pin}; the variable is a local.
func TestInputRandomAsIsAKnownVariable(t *testing.T) {
	res, err := CompileWithMap([]byte("name: t\napp: com.x\nsteps:\n  - input_random: {kind: number, length: 4, as: pin}\n  - assert_visible: \"${pin}\"\n"), Options{File: "t.yaml"})
	require.NoError(t, err)
	assert.Empty(t, res.Warnings)
	assert.Contains(t, string(res.Lua), "local pin")
}
