package cli

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/adb"
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
		require.NoError(t, (&SkillsRunCmd{Name: res.SkillPath}).Run(app), out.String())
		assert.False(t, s.Phone().WifiOn(), "the replay turned Wi-Fi off again (layout shifted by %d)", shift)
	}
	// A cron job's lua payload may name the skill file.
	_, err = phone.Shell(ctx, "settings put global wifi_on 1")
	require.NoError(t, err)
	jr, err := app.runLuaFile(ctx, res.SkillPath, nil)
	require.NoError(t, err)
	assert.True(t, jr.Success, jr.Message)
	assert.False(t, s.Phone().WifiOn(), "the scheduled replay turned Wi-Fi off")
	assert.Equal(t, modelCalls, len(srv.Requests()), "replays make no model calls")
}
