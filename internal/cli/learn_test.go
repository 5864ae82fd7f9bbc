package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/gateway"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// TestAgentRunBecomesAReplayableSkill is the learn-and-replay promise end
// to end: a successful agent run writes a skill and a Lua replay; the replay
// then repeats the task with zero model calls, also on a shifted layout.
func TestAgentRunBecomesAReplayableSkill(t *testing.T) {
	app, srv, out, s := agentAppWithSim(t)
	ctx := context.Background()

	// The model's view of Settings: find the Wi-Fi switch's mark number.
	d, err := adb.NewClient("").Open(ctx, adb.Target{Serial: s.Serial()})
	require.NoError(t, err)
	phone := device.NewPhone(d, device.Options{})
	_, err = phone.LaunchApp(ctx, "com.android.settings")
	require.NoError(t, err)
	snap, err := phone.Capture(ctx, device.CaptureOptions{Scaled: true})
	require.NoError(t, err)
	mark := ""
	for _, e := range snap.UIElements {
		if e.ResourceID == "com.android.settings:id/wifi_switch" {
			mark = e.ID
		}
	}
	require.NotEmpty(t, mark)
	_, err = phone.Shell(ctx, "input keyevent KEYCODE_HOME")
	require.NoError(t, err)
	require.True(t, s.Phone().WifiOn())

	srv.ReplyTool("launch_app", map[string]any{"packageName": "com.android.settings"})
	srv.ReplyTool("tap_element", map[string]any{"elementId": mark})
	srv.ReplyTool("finish", map[string]any{"message": "Wi-Fi is off"})
	res, err := app.runAgent(ctx, "turn off Wi-Fi", agentRunOptions{})
	require.NoError(t, err)
	require.True(t, res.Success, res.Message)
	require.False(t, s.Phone().WifiOn(), "the agent turned Wi-Fi off")
	require.NotEmpty(t, res.SkillPath, "a successful run is learned")
	require.FileExists(t, res.ScriptPath)
	modelCalls := len(srv.Requests())

	for _, shift := range []int{0, 150} {
		s.Phone().SetLayoutOffset(0, shift)
		_, err = phone.Shell(ctx, "settings put global wifi_on 1")
		require.NoError(t, err)
		_, err = phone.Shell(ctx, "input keyevent KEYCODE_HOME")
		require.NoError(t, err)
		require.True(t, s.Phone().WifiOn())

		out.Reset()
		require.NoError(t, (&SkillsRunCmd{Name: res.SkillPath}).Run(skillsRunDeps(t, app)), out.String())
		assert.False(t, s.Phone().WifiOn(), "the replay turned Wi-Fi off again (layout shifted by %d)", shift)
	}
	// A cron job's lua payload may name the skill file.
	_, err = phone.Shell(ctx, "settings put global wifi_on 1")
	require.NoError(t, err)
	// The job runner cmd/openpocket binds for the gateway and cron run.
	svc, err := app.runService()
	require.NoError(t, err)
	ok, msg, err := gateway.NewJobRunner(gateway.JobRunnerOptions{Service: svc}).Run(ctx,
		cron.Job{ID: "replay", Payload: cron.Payload{Kind: cron.PayloadLua, Path: res.SkillPath}})
	require.NoError(t, err)
	assert.True(t, ok, msg)
	assert.False(t, s.Phone().WifiOn(), "the scheduled replay turned Wi-Fi off")
	assert.Equal(t, modelCalls, len(srv.Requests()), "replays make no model calls")
}

// TestReplayStopsOnUnknownDialog: a dialog the recorded run never saw
// stops the replay with a message naming it, exit code 1 and a session
// whose final block says why; with --fallback-agent the model takes over.
func TestReplayStopsOnUnknownDialog(t *testing.T) {
	app, srv, out, s := agentAppWithSim(t)
	h, err := app.home()
	require.NoError(t, err)
	art := writeWifiOffSkill(t, h)

	dialogOverSettings := func() {
		s.Phone().Reset()
		d, err := adb.NewClient("").Open(context.Background(), adb.Target{Serial: s.Serial()})
		require.NoError(t, err)
		_, err = device.NewPhone(d, device.Options{}).LaunchApp(context.Background(), "com.android.settings")
		require.NoError(t, err)
		s.Phone().ShowPermissionDialog("Camera")
	}
	dialogOverSettings()
	stderr := app.Stderr.(*bytes.Buffer)
	err = (&SkillsRunCmd{Name: art.Name}).Run(skillsRunDeps(t, app))
	require.Error(t, err)
	assert.Equal(t, ExitFailed, ExitCode(err))
	msg := stderr.String()
	assert.Contains(t, msg, `a com.android.permissioncontroller dialog ("Allow Camera to send you notifications?"`, msg)
	assert.True(t, s.Phone().WifiOn(), "the replay acted under an unknown dialog")
	assert.Equal(t, "com.android.permissioncontroller", s.Phone().CurrentPackage(), "the replay answered a dialog it did not know")

	m := regexp.MustCompile(`session: (\S+)`).FindStringSubmatch(msg)
	require.NotNil(t, m, msg)
	body, err := os.ReadFile(m[1])
	require.NoError(t, err)
	final := string(body)[strings.Index(string(body), "## Final"):]
	assert.Contains(t, final, "- status: FAILED")
	assert.Contains(t, final, "Allow Camera to send you notifications?", final)
	assert.Empty(t, srv.Requests(), "the replay called the model")

	dialogOverSettings()
	srv.ReplyTool("keyevent", map[string]any{"keycode": "KEYCODE_BACK"})
	srv.ReplyTool("finish", map[string]any{"message": "dismissed the dialog"})
	out.Reset()
	err = (&SkillsRunCmd{Name: art.Name, FallbackAgent: true, Params: map[string]string{"timeout_ms": "1000"}}).Run(skillsRunDeps(t, app))
	require.NoError(t, err, out.String())
	assert.Contains(t, out.String(), "handing the rest of the task to the model")
	assert.NotEmpty(t, srv.Requests(), "--fallback-agent handed over to the model")
	// What the model did is learned under the user's task, not the
	// hand-over prompt, and the skill it replaces is named.
	learned := regexp.MustCompile(`learned skill: (\S+)`).FindStringSubmatch(out.String())
	require.NotNil(t, learned, out.String())
	assert.True(t, strings.HasSuffix(learned[1], "-turn-off-wi-fi.md"), learned[1])
	assert.Contains(t, out.String(), "replaces the earlier skill "+art.SkillPath)
	md, err := os.ReadFile(learned[1])
	require.NoError(t, err)
	assert.NotContains(t, string(md), "Progress so far", "described after the user's task")
}

// TestSkillsListSaysWhyHidden: a skill whose metadata requires a missing
// environment variable or binary is listed with the reason it is hidden
// from the model; once the variable is set it is not.
func TestSkillsListSaysWhyHidden(t *testing.T) {
	app, stdout, _ := skillsApp(t, "")
	h, err := app.home()
	require.NoError(t, err)
	dir := filepath.Join(h.Workspace(), "skills")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pay.md"), []byte("---\nname: pay-parking\ndescription: Pay for parking\n"+
		`metadata: {"openclaw":{"requires":{"env":["OP_TEST_PAY_TOKEN"],"bins":["op-test-no-such-binary"]},"triggers":{"any":["parking"]}}}`+"\n---\n# Pay\n"), 0o644))
	t.Setenv("OP_TEST_PAY_TOKEN", "")

	require.NoError(t, (&SkillsListCmd{}).Run(homeDeps(t, app)))
	assert.Regexp(t, `pay-parking .*hidden from the model: env OP_TEST_PAY_TOKEN not set; binary op-test-no-such-binary not on PATH`, stdout.String())
	stdout.Reset()
	require.NoError(t, (&SkillsListCmd{JSON: true}).Run(homeDeps(t, app)))
	assert.Contains(t, stdout.String(), `"missing": [`)
	assert.Contains(t, stdout.String(), `"triggers": [`)

	t.Setenv("OP_TEST_PAY_TOKEN", "set")
	stdout.Reset()
	require.NoError(t, (&SkillsListCmd{}).Run(homeDeps(t, app)))
	assert.Contains(t, stdout.String(), "hidden from the model: binary op-test-no-such-binary not on PATH")
	assert.NotContains(t, stdout.String(), "env OP_TEST_PAY_TOKEN")
}

// TestLearningSaysWhichSkillItReplaced: a second run with the same steps
// under another task replaces the first run's skill, and says so (the
// first run printed its replay command).
func TestLearningSaysWhichSkillItReplaced(t *testing.T) {
	s := simtest.Start(t)
	srv := llmtest.NewServer(t)
	home := homeWithFakeModel(t, srv)
	var first string
	for i, task := range []string{"open the settings", "show me the settings app"} {
		srv.ReplyTool("launch_app", map[string]any{"packageName": "com.android.settings"})
		srv.ReplyTool("finish", map[string]any{"message": "open"})
		code, out, errOut := mainIn(t, home, "--device", s.Serial(), "agent", task)
		require.Equal(t, ExitOK, code, out+errOut)
		m := regexp.MustCompile(`learned skill: (\S+)`).FindStringSubmatch(out)
		require.NotNil(t, m, out)
		if i == 0 {
			first = m[1]
			assert.NotContains(t, out, "replaces")
			continue
		}
		assert.Contains(t, out, "replaces the earlier skill "+first+" (same task or same steps)")
		assert.NoFileExists(t, first)
	}
}
