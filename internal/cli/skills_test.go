package cli

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/internal/skills"
)

func skillsApp(t *testing.T, serial string) (*App, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	app := &App{sys: testSystem{},
		Globals: Globals{Home: t.TempDir(), Device: serial, ADBServer: "127.0.0.1:5037"},
		Stdout:  &stdout, Stderr: &stderr, Ctx: context.Background(),
		Logger: slog.New(slog.NewTextHandler(&stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	t.Cleanup(app.runCleanups)
	return app, &stdout, &stderr
}

func mustAct(t *testing.T, typ string, p map[string]any) action.Action {
	t.Helper()
	a, err := action.New(typ, p)
	require.NoError(t, err)
	return a
}

// wifiTrace is what an agent run toggling Wi-Fi records.
func wifiTrace(t *testing.T, switchID string) []engine.TraceStep {
	return []engine.TraceStep{
		{Step: 1, Action: mustAct(t, "launch_app", map[string]any{"packageName": "com.android.settings"}),
			AppBefore: "com.android.launcher3", AppAfter: "com.android.settings", Changed: true},
		{Step: 2, Thought: "Tap the Wi-Fi switch", Action: mustAct(t, "tap_element", map[string]any{"elementId": "3"}),
			AppBefore: "com.android.settings", AppAfter: "com.android.settings", Changed: true,
			Target: &engine.Target{ResourceID: switchID, ClassName: "android.widget.Switch"}},
		{Step: 3, Action: mustAct(t, "finish", map[string]any{"message": "Wi-Fi is off"}), AppBefore: "com.android.settings"},
	}
}

func TestSkillsListShowValidate(t *testing.T) {
	app, stdout, _ := skillsApp(t, "")
	h, err := app.home()
	require.NoError(t, err)
	writeWifiOffSkill(t, h)

	require.NoError(t, (&SkillsListCmd{}).Run(homeDeps(t, app)))
	out := stdout.String()
	assert.Contains(t, out, "turn-off-wi-fi")
	assert.Contains(t, out, "workspace (auto)")
	assert.Contains(t, out, "toggle-wifi")

	stdout.Reset()
	require.NoError(t, (&SkillsShowCmd{Name: "turn-off-wi-fi"}).Run(homeDeps(t, app)))
	assert.Contains(t, stdout.String(), "behavior_fingerprint:")
	assert.Contains(t, stdout.String(), "script:   "+filepath.Join(h.Workspace(), "scripts", "auto"))

	stdout.Reset()
	require.NoError(t, (&SkillsValidateCmd{}).Run(streams(app), onUse(app)))
	assert.Contains(t, stdout.String(), "valid")

	bad := filepath.Join(t.TempDir(), "bad.md")
	require.NoError(t, os.WriteFile(bad, []byte("# Bad\n\n```lua\nlocal x = = 1\n```\n"), 0o644))
	stdout.Reset()
	err = (&SkillsValidateCmd{Paths: []string{bad}}).Run(streams(app), onUse(app))
	require.Error(t, err)
	assert.Contains(t, stdout.String(), "bad.md")
}

func TestSkillsRunReplaysWithoutModel(t *testing.T) {
	s := simtest.Start(t)
	app, stdout, stderr := skillsApp(t, s.Serial())
	h, err := app.home()
	require.NoError(t, err)
	writeWifiOffSkill(t, h)

	s.Phone().SetLayoutOffset(0, 120)
	require.NoError(t, (&SkillsRunCmd{Name: "turn-off-wi-fi"}).Run(skillsRunDeps(t, app)), stderr.String())
	assert.False(t, s.Phone().WifiOn())
	out := stdout.String()
	assert.Contains(t, out, "✓ Launch com.android.settings")
	assert.Contains(t, out, "✓ turn-off-wi-fi: 3 step(s) passed")
	sessions, _ := filepath.Glob(filepath.Join(h.Workspace(), "sessions", "session-*.md"))
	require.Len(t, sessions, 1)
	body, _ := os.ReadFile(sessions[0])
	assert.Contains(t, string(body), "SUCCESS")
}

func TestSkillsRunReportsFailedCheck(t *testing.T) {
	s := simtest.Start(t)
	app, _, stderr := skillsApp(t, s.Serial())
	h, err := app.home()
	require.NoError(t, err)
	steps := wifiTrace(t, "com.android.settings:id/no_such_switch")
	steps[1].Target.Bounds = screen.Rect{}
	_, err = skills.Write(skills.ArtifactOptions{Workspace: h.Workspace(), Task: "Turn off Wi-Fi", Steps: steps})
	require.NoError(t, err)
	err = (&SkillsRunCmd{Name: "turn-off-wi-fi", Params: map[string]string{"timeout_ms": "300"}}).Run(skillsRunDeps(t, app))
	require.Error(t, err)
	msg := stderr.String()
	assert.Contains(t, msg, "step 2 (Tap no_such_switch Switch) failed")
	assert.Contains(t, msg, `expected: an element matching id="com.android.settings:id/no_such_switch"`)
	assert.True(t, strings.Contains(msg, `screen:   com.android.settings in front, screen shows "Settings", "Wi-Fi"`), msg)
	assert.True(t, s.Phone().WifiOn())
}
