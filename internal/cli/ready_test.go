package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/sim/android"
	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/internal/workspace"
)

// setPIN writes target.pin into the test home's config.
func setPIN(t *testing.T, app *App, pin string) {
	t.Helper()
	h, err := workspace.Open(app.Home)
	require.NoError(t, err)
	cfg := h.Config()
	cfg.Target.Pin = pin
	require.NoError(t, h.SaveConfig(cfg))
}

// A run on a sleeping, PIN-locked phone wakes and unlocks it before the
// model sees the first screen; the PIN is typed on the keyguard and written
// nowhere.
func TestAgentWakesAndUnlocksASleepingPINPhone(t *testing.T) {
	app, srv, out, s := agentAppWithSim(t)
	const pin = "2468"
	setPIN(t, app, pin)
	ph := s.Phone()
	ph.SetLockScreen(true, pin)
	ph.Sleep()
	require.True(t, ph.Locked())

	srv.ReplyTool("launch_app", map[string]any{"packageName": "com.android.settings"})
	srv.ReplyTool("finish", map[string]any{"message": "Settings is open"})
	require.NoError(t, (&AgentCmd{Task: "open settings", JSON: true}).Run(deps(t, app)))

	assert.True(t, ph.Awake())
	assert.False(t, ph.Locked())
	assert.Zero(t, ph.UnlockAttempts(), "the right PIN on the first try")
	assert.Equal(t, "com.android.settings", ph.CurrentPackage())
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	first, err := json.Marshal(reqs[0].Body)
	require.NoError(t, err)
	assert.Contains(t, string(first), "Folder: Tools", "the model's first screen is the home screen")
	assert.NotContains(t, string(first), "Enter PIN")
	assert.NotContains(t, string(first), "Swipe up to unlock")

	stderr := app.Stderr.(interface{ String() string }).String()
	assert.Contains(t, stderr, "device ready after: wake, dismiss keyguard, enter PIN")
	var res agentResult
	require.NoError(t, json.Unmarshal(out.Bytes(), &res), out.String())
	session, err := os.ReadFile(res.SessionPath)
	require.NoError(t, err)
	for _, where := range []string{stderr, out.String(), string(session), string(first)} {
		assert.NotContains(t, where, pin, "the PIN never reaches output, sessions or the model")
	}
}

// Without target.pin a PIN keyguard cannot be passed: the run stops before
// any model call and says what to do.
func TestAgentSaysWhenTheDeviceStaysLocked(t *testing.T) {
	app, srv, _, s := agentAppWithSim(t)
	s.Phone().SetLockScreen(true, "2468")
	s.Phone().Sleep()
	srv.ReplyTool("finish", map[string]any{"message": "never asked"})
	err := (&AgentCmd{Task: "open settings"}).Run(deps(t, app))
	require.Error(t, err)
	assert.ErrorContains(t, err, device.ErrDeviceLocked.Error()+": the lock screen is still showing")
	assert.ErrorContains(t, err, "set target.pin in config.json")
	assert.Empty(t, srv.Requests(), "no model call on a locked phone")
	assert.True(t, s.Phone().Awake(), "the screen was woken")
}

// A playbook on a phone that fell asleep behind a swipe lock screen runs on
// the unlocked phone: play makes the device ready before its first step.
func TestPlayWakesASleepingPhoneFirst(t *testing.T) {
	s := simtest.Start(t)
	s.Phone().SetLockScreen(true, "")
	s.Phone().Sleep()
	code, stdout, stderr := playMain(t, s.Serial(), "play", "../../examples/wifi_toggle.yaml", "--output", t.TempDir())
	require.Equal(t, ExitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Contains(t, stderr, "device ready after: wake, dismiss keyguard")
	assert.True(t, s.Phone().Awake())
	assert.False(t, s.Phone().Locked())
}

// With the soft keyboard up, the model still reads the app's controls: the
// keyboard's thirty-odd keys are folded into one line instead of filling the
// element list, and the app's Send button and message field stay listed.
func TestAgentSeesTheAppsButtonsWithTheKeyboardUp(t *testing.T) {
	app, srv, _, s := agentAppWithSim(t)
	ph := s.Phone()
	ph.SetSoftKeyboard(true)
	simShell(t, ph, "monkey -p com.openpocket.chat -c android.intent.category.LAUNCHER 1")
	tapDumpNode(t, ph, `text="Bob Smith"`)
	tapDumpNode(t, ph, `resource-id="com.openpocket.chat:id/entry"`)
	require.Contains(t, string(ph.UIDumpXML()), "key_pos_ime_action", "the keyboard is up")

	srv.ReplyTool("type_text", map[string]any{"text": "on my way"})
	srv.ReplyTool("finish", map[string]any{"message": "typed"})
	require.NoError(t, (&AgentCmd{Task: "write 'on my way' to Bob", JSON: true}).Run(deps(t, app)))

	reqs := srv.Requests()
	require.NotEmpty(t, reqs)
	first, err := json.Marshal(reqs[0].Body)
	require.NoError(t, err)
	body := strings.ReplaceAll(string(first), `\"`, `"`)
	assert.Contains(t, body, "keyboard shown: type with type_text", "the keyboard is one line")
	assert.Contains(t, body, `label="Send" clickable=true class=ImageButton`, "the app's Send button is listed")
	assert.Contains(t, body, `label="Message" clickable=true class=EditText`, "the message field is listed")
	assert.NotContains(t, body, `label="q"`, "no single keys flood the list")
	assert.NotContains(t, body, `label="Delete"`)
	assert.Equal(t, "on my way", ph.FocusedText())
}

func simShell(t *testing.T, ph *android.Phone, cmd string) {
	t.Helper()
	var out, errOut bytes.Buffer
	require.Zero(t, ph.Shell(context.Background(), cmd, nil, &out, &errOut), "%s: %s", cmd, errOut.String())
}

// tapDumpNode taps the centre of the first dump node carrying attr.
func tapDumpNode(t *testing.T, ph *android.Phone, attr string) {
	t.Helper()
	re := regexp.MustCompile(regexp.QuoteMeta(attr) + `[^>]*?bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"`)
	m := re.FindStringSubmatch(string(ph.UIDumpXML()))
	require.NotNil(t, m, "no node with %s", attr)
	var b [4]int
	for i := range b {
		b[i], _ = strconv.Atoi(m[i+1])
	}
	simShell(t, ph, fmt.Sprintf("input tap %d %d", (b[0]+b[2])/2, (b[1]+b[3])/2))
}

// `openpocket run script.lua` wakes and unlocks the phone when the script
// first touches it, like play and agent runs; a script that never touches
// the device leaves a sleeping phone alone.
func TestRunScriptWakesAndUnlocksOnFirstDeviceUse(t *testing.T) {
	s := simtest.Start(t)
	app, stdout, stderr := luaApp(t, t.Context(), s.Serial())
	const pin = "1357"
	setPIN(t, app, pin)
	ph := s.Phone()
	ph.SetLockScreen(true, pin)
	ph.Sleep()

	quiet := writeScript(t, "print(1 + 1)\n")
	require.NoError(t, (&RunCmd{Script: quiet}).Run(runDeps(t, app)), stderr.String())
	assert.False(t, ph.Awake(), "a script without device calls does not wake the phone")
	assert.True(t, ph.Locked())

	script := writeScript(t, "app.launch('com.android.settings')\nprint(app.current())\n")
	require.NoError(t, (&RunCmd{Script: script}).Run(runDeps(t, app)), stderr.String())
	assert.True(t, ph.Awake())
	assert.False(t, ph.Locked())
	assert.Equal(t, "com.android.settings", ph.CurrentPackage())
	assert.Contains(t, stdout.String(), "com.android.settings")
	assert.Contains(t, stderr.String(), "device ready after: wake", "the wake-up is reported on the terminal")
	assert.NotContains(t, stderr.String()+stdout.String(), pin, "the PIN is written nowhere")
}
