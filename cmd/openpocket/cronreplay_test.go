package main_test

import (
	"context"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// learnWifiOff has an agent run (the real binary, the model answering
// launch, tap on the Wi-Fi switch, finish) learn "Turn off Wi-Fi" in a new
// home; Wi-Fi is off after it. p drives the phone directly.
func learnWifiOff(t *testing.T) (phone *sim.Sim, srv *llmtest.Server, home string, p *device.Phone) {
	t.Helper()
	phone = simtest.Start(t)
	srv = llmtest.NewServer(t)
	home = homeWithModel(t, srv)
	ctx := context.Background()
	d, err := adb.NewClient("").Open(ctx, adb.Target{Serial: phone.Serial()})
	require.NoError(t, err)
	p = device.NewPhone(d, device.Options{})
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
	return phone, srv, home, p
}

// TestCronRunReplaysALearnedTask: an agent run learns "turn off Wi-Fi";
// a scheduled agent_turn job with that task, run by `openpocket cron run`,
// replays the learned skill: Wi-Fi goes off again with no request at the
// model server.
func TestCronRunReplaysALearnedTask(t *testing.T) {
	phone, srv, home, p := learnWifiOff(t)
	ctx := context.Background()
	dev := []string{"--home", home, "--device", phone.Serial()}
	learnedWith := len(srv.Requests())

	r := runBinary(t, nil, append(dev, "cron", "add", "--id", "wifi-off", "--every", "24h", "--task", "turn off wi-fi")...)
	require.Equal(t, 0, r.code, r.stderr)
	_, err := p.Shell(ctx, "settings put global wifi_on 1")
	require.NoError(t, err)
	require.True(t, phone.Phone().WifiOn())
	r = runBinary(t, nil, append(dev, "cron", "run", "wifi-off")...)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "job wifi-off ok after ")
	assert.Contains(t, r.stderr, "Replayed the learned skill")
	assert.False(t, phone.Phone().WifiOn(), "the job's replay turned Wi-Fi off")
	assert.Equal(t, learnedWith, len(srv.Requests()), "the job made no model call")
}

// TestMCPAgentRunReplaysALearnedTask: agent_run over MCP with a task a
// skill was learned for replays it with no request at the model server;
// no_replay asks the model.
func TestMCPAgentRunReplaysALearnedTask(t *testing.T) {
	phone, srv, home, p := learnWifiOff(t)
	learnedWith := len(srv.Requests())
	withMCPClient(t, home, phone.Serial(), nil, func(ctx context.Context, cs *sdk.ClientSession) {
		_, err := p.Shell(ctx, "settings put global wifi_on 1")
		require.NoError(t, err)
		res := call(t, ctx, cs, "agent_run", map[string]any{"task": "turn off wi-fi"})
		require.False(t, res.IsError, text(res))
		assert.Contains(t, text(res), "Replayed the learned skill")
		assert.False(t, phone.Phone().WifiOn(), "the replay turned Wi-Fi off")
		assert.Equal(t, learnedWith, len(srv.Requests()), "no model call")

		_, err = p.Shell(ctx, "settings put global wifi_on 1")
		require.NoError(t, err)
		srv.ReplyTool("finish", map[string]any{"message": "asked the model"})
		res = call(t, ctx, cs, "agent_run", map[string]any{"task": "turn off wi-fi", "no_replay": true})
		assert.Contains(t, text(res), "asked the model")
		assert.Greater(t, len(srv.Requests()), learnedWith, "no_replay asked the model")
	})
}
