package run_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/skills"
)

// recordWifiSkill drives the virtual phone as the agent loop does (launch
// Settings, tap_element on the Wi-Fi switch, finish) and writes the
// learned skill: wifi.lua (the replay) and wifi.md beside it.
func recordWifiSkill(t *testing.T, r *aiRig) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr, err := adb.NewClient("127.0.0.1:5037").Open(ctx, adb.Target{Serial: r.sim.Serial()})
	require.NoError(t, err)
	ph := device.NewPhone(tr, device.Options{SettleTimeout: time.Second, SettleInterval: 50 * time.Millisecond})
	var steps []engine.TraceStep
	exec := func(a action.Action, snap *screen.Snapshot, el func(screen.UIElement) bool) {
		if el != nil {
			for _, e := range snap.UIElements {
				if el(e) {
					a, _ = action.New("tap_element", map[string]any{"elementId": e.ID})
				}
			}
		}
		out, err := ph.Execute(ctx, a, device.ActOptions{Snapshot: snap, Scaled: true, Observe: true})
		require.NoError(t, err)
		st := engine.TraceStep{Step: len(steps) + 1, At: time.Now(), Action: a, DeviceAction: out.Device, Result: out.Result,
			AppBefore: orApp(out.AppBefore, snap.CurrentApp), AppAfter: out.AppAfter, HashBefore: out.HashBefore, HashAfter: out.HashAfter,
			Changed: out.Changed, ScreenWidth: snap.Width, ScreenHeight: snap.Height}
		if out.Element != nil {
			st.Target = engine.TargetOfElement(snap, out.Element)
		}
		steps = append(steps, st)
	}
	capture := func() *screen.Snapshot {
		s, err := ph.Capture(ctx, device.CaptureOptions{Scaled: true, SOM: true})
		require.NoError(t, err)
		return s
	}
	launch, _ := action.New("launch_app", map[string]any{"packageName": "com.android.settings"})
	exec(launch, capture(), nil)
	exec(action.Action{}, capture(), func(e screen.UIElement) bool { return strings.HasSuffix(e.ResourceID, "wifi_switch") })
	require.NotNil(t, steps[1].Target, "the tap recorded its element")
	fin, _ := action.New("finish", map[string]any{"message": "Wi-Fi toggled"})
	exec(fin, capture(), nil)

	src, _ := skills.GenerateReplay(steps, skills.ReplayOptions{Name: "wifi", Task: "Toggle Wi-Fi"})
	dir := t.TempDir()
	lua := filepath.Join(dir, "wifi.lua")
	require.NoError(t, os.WriteFile(lua, []byte(src), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "wifi.md"), []byte("---\nname: wifi\ndescription: Toggle Wi-Fi\n---\n\n# Toggle Wi-Fi\n"), 0o644))
	return lua
}

func orApp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// A skill whose target the app renamed: the replay step that finds
// nothing is repaired with one model call, the run says so, the skill's
// script holds the new selector and its markdown notes the repair; the
// next replay needs no model call.
func TestSkillRepairsRenamedTargetWithOneCall(t *testing.T) {
	r := newAIRig(t)
	lua := recordWifiSkill(t, r)
	r.sim.Phone().Reset()
	r.sim.Phone().Relabel("wifi_switch", "wlan_switch")
	r.sim.Phone().Relabel("Wi-Fi", "WLAN")
	before := r.sim.Phone().WifiOn()

	res, err := r.svc.Replay(t.Context(), run.ReplayOptions{Skill: lua, Params: map[string]string{"timeout_ms": "1500"}})
	require.NoError(t, err, res.Message)
	assert.Equal(t, 1, r.calls(), "one model call repairs the step")
	assert.NotEqual(t, before, r.sim.Phone().WifiOn(), "the repaired step toggled Wi-Fi")
	assert.Contains(t, res.Repaired, "repaired by one model call")
	assert.Contains(t, res.Repaired, "wlan_switch")
	assert.Contains(t, res.Message, "repaired", "the session's verdict names the repair")

	script, err := os.ReadFile(lua)
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(script), `{id = "com.android.settings:id/wlan_switch"`), "the corrected selector is written back")
	assert.False(t, strings.Contains(string(script), `{id = "com.android.settings:id/wifi_switch"`), "the old selector is gone")
	md, err := os.ReadFile(strings.TrimSuffix(lua, ".lua") + ".md")
	require.NoError(t, err)
	assert.Contains(t, string(md), "## Repairs")
	assert.Contains(t, string(md), time.Now().UTC().Format("2006-01-02"))

	before = r.sim.Phone().WifiOn()
	res, err = r.svc.Replay(t.Context(), run.ReplayOptions{Skill: lua, Params: map[string]string{"timeout_ms": "1500"}})
	require.NoError(t, err, res.Message)
	assert.Equal(t, 1, r.calls(), "the repaired skill replays with zero model calls")
	assert.Empty(t, res.Repaired)
	assert.NotEqual(t, before, r.sim.Phone().WifiOn())
}
