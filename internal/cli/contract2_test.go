package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/internal/skills"
	"github.com/openpocket/openpocket/internal/workspace"
)

// homeWithFakeModel is a home whose default model is srv.
func homeWithFakeModel(t *testing.T, srv *llmtest.Server) string {
	home := filepath.Join(t.TempDir(), "home")
	h, err := workspace.Open(home)
	require.NoError(t, err)
	cfg := h.Config()
	cfg.Models = map[string]workspace.ModelProfile{"fake": {BaseURL: srv.BaseURL(), Model: "gpt-fake"}}
	cfg.DefaultModel = "fake"
	cfg.Agent.LoopDelayMs = 0
	require.NoError(t, h.SaveConfig(cfg))
	return home
}

const shadowSkill = "---\nname: toggle-wifi\ndescription: My own Wi-Fi toggle.\n---\n\n# Toggle Wi-Fi\n\nMine.\n\n## Replay\n\n```lua\nerror(\"the switch moved\")\n```\n"

func TestSkillsListNamesShadowedSkills(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	_, err := workspace.Open(home)
	require.NoError(t, err)
	p := filepath.Join(home, "workspace", "skills", "toggle-wifi.md")
	require.NoError(t, os.WriteFile(p, []byte(shadowSkill), 0o644))

	code, out, errOut := mainIn(t, home, "skills", "list")
	require.Equal(t, ExitOK, code, errOut)
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "toggle-wifi ") {
			line = l
		}
	}
	assert.Contains(t, line, "workspace (shadows bundled:toggle-wifi.md)")
	assert.Contains(t, out, "save-note", "the other bundled skill is listed with its origin")

	code, out, _ = mainIn(t, home, "skills", "list", "--json")
	require.Equal(t, ExitOK, code)
	var list []skills.Entry
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	found := false
	for _, e := range list {
		if e.Name == "toggle-wifi" {
			found = true
			assert.Equal(t, "workspace", e.Source)
			assert.Equal(t, []string{"bundled:toggle-wifi.md"}, e.Shadows)
		}
	}
	assert.True(t, found)
}

func TestFallbackAgentTakesOverAnyReplayFailure(t *testing.T) {
	s := simtest.Start(t)
	srv := llmtest.NewServer(t)
	home := homeWithFakeModel(t, srv)
	p := filepath.Join(home, "workspace", "skills", "toggle-wifi.md")
	require.NoError(t, os.WriteFile(p, []byte(shadowSkill), 0o644))

	code, _, errOut := mainIn(t, home, "--device", s.Serial(), "skills", "run", "toggle-wifi")
	assert.Equal(t, ExitFailed, code, "without the flag the replay failure is the verdict")
	assert.Contains(t, errOut, "note: skill toggle-wifi from workspace (skills/toggle-wifi.md) shadows bundled:toggle-wifi.md")
	assert.Contains(t, errOut, "the switch moved")
	assert.Empty(t, srv.Requests())

	code, out, errOut := mainIn(t, home, "--device", s.Serial(), "skills", "run", "toggle-wifi", "--fallback-agent")
	assert.Equal(t, ExitOK, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
	assert.Contains(t, out, "handing the rest of the task to the model")
	assert.NotEmpty(t, srv.Requests(), "the model was asked")
}

func TestModelListJSONNeverShowsKeys(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	h, err := workspace.Open(home)
	require.NoError(t, err)
	cfg := h.Config()
	cfg.Models = map[string]workspace.ModelProfile{
		"a": {BaseURL: "http://127.0.0.1:1/v1", Model: "m1", APIKey: "sk-secret-value"},
		"b": {BaseURL: "http://127.0.0.1:2/v1", Model: "m2", APIKeyEnv: "B_KEY"},
	}
	cfg.DefaultModel = "b"
	require.NoError(t, h.SaveConfig(cfg))
	code, out, errOut := mainIn(t, home, "model", "list", "--json")
	require.Equal(t, ExitOK, code, errOut)
	assert.NotContains(t, out, "sk-secret-value")
	var list []modelListEntry
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	require.Len(t, list, 2)
	assert.Equal(t, modelListEntry{Profile: "a", Model: "m1", BaseURL: "http://127.0.0.1:1/v1", APIKey: "set in config.json"}, list[0])
	assert.Equal(t, modelListEntry{Profile: "b", Default: true, Model: "m2", BaseURL: "http://127.0.0.1:2/v1", APIKey: "from $B_KEY"}, list[1])
}

func TestUnsetAPIKeyEnvIsReportedBeforeTheRun(t *testing.T) {
	srv := llmtest.NewServer(t)
	home := homeWithFakeModel(t, srv)
	h, err := workspace.Open(home)
	require.NoError(t, err)
	cfg := h.Config()
	// A public host needs its key (a local one does not: see
	// TestLocalModelNeedsNoKey).
	cfg.Models["fake"] = workspace.ModelProfile{BaseURL: "https://models.example.com/v1", Model: "gpt-fake", APIKeyEnv: "OPENPOCKET_TEST_NO_SUCH_KEY"}
	require.NoError(t, h.SaveConfig(cfg))
	code, _, errOut := mainIn(t, home, "--device", "nope:1", "agent", "do it")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, `model profile "fake": apiKeyEnv names $OPENPOCKET_TEST_NO_SUCH_KEY, which is not set`)
	assert.Empty(t, srv.Requests(), "nothing was sent")
}

func TestSessionsListAndShow(t *testing.T) {
	s := simtest.Start(t)
	srv := llmtest.NewServer(t)
	home := homeWithFakeModel(t, srv)
	srv.ReplyTool("launch_app", map[string]any{"packageName": "com.android.settings"})
	srv.ReplyTool("finish", map[string]any{"message": "Settings is open"})
	code, out, errOut := mainIn(t, home, "--device", s.Serial(), "agent", "open the settings")
	require.Equal(t, ExitOK, code, "stdout:\n%s\nstderr:\n%s", out, errOut)

	code, out, errOut = mainIn(t, home, "sessions", "list", "--json")
	require.Equal(t, ExitOK, code, errOut)
	var list []workspace.SessionSummary
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	require.Len(t, list, 1)
	sum := list[0]
	assert.Equal(t, "SUCCESS", sum.Status)
	assert.Equal(t, "open the settings", sum.Task)
	assert.Equal(t, "fake", sum.Model)
	assert.Equal(t, 2, sum.Steps)
	assert.FileExists(t, sum.Path)

	code, out, _ = mainIn(t, home, "sessions", "list")
	require.Equal(t, ExitOK, code)
	assert.Contains(t, out, sum.ID+"  SUCCESS  2")

	code, out, errOut = mainIn(t, home, "sessions", "show", sum.ID)
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, "OPENPOCKET SESSION\n")
	assert.Contains(t, out, "Step 1\n")
	assert.NotContains(t, out, "```", "code fences are rendered, not printed")
	assert.Regexp(t, `screenshots \(2\):\n  .*-session-`+sum.ID+`-step-001-`, out)

	code, latest, _ := mainIn(t, home, "sessions", "show", "latest")
	require.Equal(t, ExitOK, code)
	assert.Equal(t, out, latest)
}
