package main_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// TestCronRunReplaysALearnedTask: an agent run learns "turn off Wi-Fi";
// a scheduled agent_turn job with that task, run by `openpocket cron run`,
// replays the learned skill: Wi-Fi goes off again with no request at the
// model server.
func TestCronRunReplaysALearnedTask(t *testing.T) {
	phone := simtest.Start(t)
	srv := llmtest.NewServer(t)
	home := homeWithModel(t, srv)
	ctx := context.Background()
	d, err := adb.NewClient("").Open(ctx, adb.Target{Serial: phone.Serial()})
	require.NoError(t, err)
	p := device.NewPhone(d, device.Options{})
	_, err = p.LaunchApp(ctx, "com.android.settings")
	require.NoError(t, err)
	snap, err := p.Capture(ctx, device.CaptureOptions{Scaled: true, NoCache: true})
	require.NoError(t, err)
	mark := ""
	for _, e := range snap.UIElements {
		if e.ResourceID == "com.android.settings:id/wifi_switch" {
			mark = e.ID
		}
	}
	require.NotEmpty(t, mark)
	_, err = p.Shell(ctx, "input keyevent KEYCODE_HOME")
	require.NoError(t, err)

	srv.ReplyTool("launch_app", map[string]any{"packageName": "com.android.settings"})
	srv.ReplyTool("tap_element", map[string]any{"elementId": mark})
	srv.ReplyTool("finish", map[string]any{"message": "Wi-Fi is off"})
	dev := []string{"--home", home, "--device", phone.Serial()}
	r := runBinary(t, nil, append(dev, "agent", "Turn off Wi-Fi")...)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "learned skill:")
	require.False(t, phone.Phone().WifiOn())
	learnedWith := len(srv.Requests())

	r = runBinary(t, nil, append(dev, "cron", "add", "--id", "wifi-off", "--every", "24h", "--task", "turn off wi-fi")...)
	require.Equal(t, 0, r.code, r.stderr)
	_, err = p.Shell(ctx, "settings put global wifi_on 1")
	require.NoError(t, err)
	require.True(t, phone.Phone().WifiOn())
	r = runBinary(t, nil, append(dev, "cron", "run", "wifi-off")...)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "job wifi-off ok after ")
	assert.Contains(t, r.stderr, "Replayed the learned skill")
	assert.False(t, phone.Phone().WifiOn(), "the job's replay turned Wi-Fi off")
	assert.Equal(t, learnedWith, len(srv.Requests()), "the job made no model call")
}
