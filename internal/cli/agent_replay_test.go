package cli

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/internal/skills"
	"github.com/openpocket/openpocket/internal/workspace"
)

// learnedWifiOff is an app whose workspace learned "Turn off Wi-Fi" (a
// skill and its replay script), with Wi-Fi on and the phone at home.
func learnedWifiOff(t *testing.T) (*App, *llmtest.Server, *sim.Sim, skills.Artifacts) {
	t.Helper()
	app, srv, _, s := agentAppWithSim(t)
	h, err := app.home()
	require.NoError(t, err)
	art := writeWifiOffSkill(t, h)
	require.True(t, s.Phone().WifiOn())
	return app, srv, s, art
}

// writeWifiOffSkill writes the skill an agent run learns for "Turn off
// Wi-Fi" (a tap on the switch by its resource id) into h's workspace.
func writeWifiOffSkill(t *testing.T, h *workspace.Home) skills.Artifacts {
	t.Helper()
	art, err := skills.Write(skills.ArtifactOptions{Workspace: h.Workspace(), Task: "Turn off Wi-Fi",
		Steps: wifiTrace(t, "com.android.settings:id/wifi_switch"), Now: time.Now()})
	require.NoError(t, err)
	return art
}

func sessionOf(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`session: (\S+)`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	b, err := os.ReadFile(m[1])
	require.NoError(t, err)
	return string(b)
}

// TestAgentReplaysALearnedTaskWithoutTheModel: `openpocket agent` with a
// task a skill was learned for replays it: zero requests reach the model
// server, the output and the session name the skill.
func TestAgentReplaysALearnedTaskWithoutTheModel(t *testing.T) {
	app, srv, s, art := learnedWifiOff(t)
	out := app.Stdout.(interface{ String() string })
	require.NoError(t, (&AgentCmd{Task: "turn off wi-fi"}).Run(deps(t, app)))
	assert.False(t, s.Phone().WifiOn(), "the replay turned Wi-Fi off")
	assert.Empty(t, srv.Requests(), "no model call")
	text := out.String()
	assert.Contains(t, text, "replaying the learned skill "+art.Name+" (skills/auto/")
	assert.Contains(t, text, `matched by task "Turn off Wi-Fi"), no model calls…`)
	assert.Contains(t, text, "SUCCESS: Replayed the learned skill "+art.Name)
	md := sessionOf(t, text)
	assert.Contains(t, md, `"type": "replay_skill"`)
	assert.Contains(t, md, "Replay first: the task matches the learned skill "+art.Name)
	assert.Contains(t, md, "- status: SUCCESS")
	assert.Contains(t, md, "no model calls.")

	// --json says which skill.
	_, err := adbShell(t, s, "settings put global wifi_on 1")
	require.NoError(t, err)
	buf := app.Stdout.(interface {
		Reset()
		Bytes() []byte
	})
	buf.Reset()
	require.NoError(t, (&AgentCmd{Task: "Turn off Wi-Fi", JSON: true}).Run(deps(t, app)))
	var got agentResult
	require.NoError(t, json.Unmarshal(buf.Bytes(), &got), string(buf.Bytes()))
	assert.Equal(t, "SUCCESS", got.Status)
	require.NotNil(t, got.Replayed)
	assert.Equal(t, art.Name, got.Replayed.Name)
	assert.Equal(t, art.ScriptPath, got.Replayed.Script)
	assert.Zero(t, got.Tokens.TotalTokens)
	assert.Empty(t, srv.Requests())
}

// TestAgentReplayFailureHandsOverToTheModel: a dialog the learned run
// never saw stops the replay; the model gets the task, told where the
// replay stopped, and finishes it in the same session.
func TestAgentReplayFailureHandsOverToTheModel(t *testing.T) {
	app, srv, s, art := learnedWifiOff(t)
	_, err := adbShell(t, s, "am start -n com.android.settings/.Settings")
	require.NoError(t, err)
	s.Phone().ShowPermissionDialog("Camera")
	srv.ReplyTool("keyevent", map[string]any{"keycode": "KEYCODE_BACK"})
	srv.ReplyTool("finish", map[string]any{"message": "dismissed the dialog"})
	err = (&AgentCmd{Task: "Turn off Wi-Fi"}).Run(deps(t, app))
	text := app.Stdout.(interface{ String() string }).String()
	require.NoError(t, err, text)
	assert.Contains(t, text, "replaying the learned skill "+art.Name)
	assert.Contains(t, text, "the replay of "+art.Name+" stopped after")
	assert.Contains(t, text, "handing the task to the model…")
	assert.Contains(t, text, "SUCCESS: dismissed the dialog")
	reqs := srv.Requests()
	require.Len(t, reqs, 2, "the model was asked after the replay stopped")
	assert.Contains(t, string(reqs[0].Raw), "A replay of the learned skill "+art.Name+" did ")
	md := sessionOf(t, text)
	assert.Contains(t, md, "### Step 1\n")
	assert.Contains(t, md, `"type": "replay_skill"`)
	assert.Contains(t, md, "Handing the task to the model.")
	assert.Contains(t, md, "### Step 2\n", "the model's steps follow the replay's")
	assert.Contains(t, md, "KEYCODE_BACK")
	// The model did only the rest of the task: it does not replace the
	// learned skill.
	assert.NotContains(t, text, "learned skill:")
	assert.FileExists(t, art.SkillPath)
	assert.FileExists(t, art.ScriptPath)
}

// TestAgentNoReplayAsksTheModel: --no-replay skips the learned skill.
func TestAgentNoReplayAsksTheModel(t *testing.T) {
	app, srv, _, _ := learnedWifiOff(t)
	srv.ReplyTool("finish", map[string]any{"message": "not touching it"})
	require.NoError(t, (&AgentCmd{Task: "turn off wi-fi", NoReplay: true}).Run(deps(t, app)))
	text := app.Stdout.(interface{ String() string }).String()
	assert.NotContains(t, text, "replaying")
	assert.Len(t, srv.Requests(), 1)
	assert.Contains(t, text, "SUCCESS: not touching it")
}

// TestAgentTokenBudget: agent.maxTokens in config.json and --max-tokens
// end a run that would exceed them, FAILED, the tokens used in the
// session and in --json.
func TestAgentTokenBudget(t *testing.T) {
	app, srv, _ := agentApp(t)
	h, err := workspace.Open(app.Home) // before the app reads it
	require.NoError(t, err)
	cfg := h.Config()
	cfg.Agent.MaxTokens = 250
	require.NoError(t, h.SaveConfig(cfg))
	for range 6 {
		srv.ReplyTool("wait", map[string]any{"durationMs": 50}) // 120 tokens each
	}
	err = (&AgentCmd{Task: "wait for ever", JSON: true}).Run(deps(t, app))
	require.Error(t, err)
	assert.Equal(t, ExitFailed, ExitCode(err))
	var got agentResult
	out := app.Stdout.(interface {
		Reset()
		Bytes() []byte
	})
	require.NoError(t, json.Unmarshal(out.Bytes(), &got), string(out.Bytes()))
	assert.Equal(t, "FAILED", got.Status)
	want := "token budget: the next model call would exceed the limit of 250 tokens (240 used in 2 call(s), the largest took 120)"
	assert.True(t, strings.HasPrefix(got.Message, want), got.Message)
	assert.Equal(t, int64(240), got.Tokens.TotalTokens)
	assert.Len(t, srv.Requests(), 2)
	b, err := os.ReadFile(got.SessionPath)
	require.NoError(t, err)
	assert.Contains(t, string(b), "- status: FAILED")
	assert.Contains(t, string(b), want)

	out.Reset()
	err = (&AgentCmd{Task: "wait for ever", JSON: true, MaxTokens: 130}).Run(deps(t, app))
	require.Error(t, err)
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	assert.True(t, strings.HasPrefix(got.Message, "token budget: the next model call would exceed the limit of 130 tokens (120 used in 1 call(s)"), got.Message)
	assert.Len(t, srv.Requests(), 3, "--max-tokens overrides agent.maxTokens")

	err = (&AgentCmd{Task: "x", MaxTokens: -1}).Run(deps(t, app))
	assert.Equal(t, ExitUsage, ExitCode(err))
	assert.Contains(t, err.Error(), "--max-tokens must be at least 0, got -1")
}

// adbShell runs a shell command on the virtual phone through the adb
// server.
func adbShell(t *testing.T, s *sim.Sim, cmd string) (device.ShellResult, error) {
	t.Helper()
	d, err := adb.NewClient("").Open(context.Background(), adb.Target{Serial: s.Serial()})
	require.NoError(t, err)
	return device.NewPhone(d, device.Options{}).Shell(context.Background(), cmd)
}
