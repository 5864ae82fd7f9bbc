package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/workspace"
)

func engineEvent(kind string, f map[string]any) engine.Event {
	return engine.Event{Kind: kind, Fields: f}
}

// modelApp is an App over a home with two profiles, "fake" the default.
func modelApp(t *testing.T) (*App, *strings.Builder) {
	t.Helper()
	t.Setenv(workspace.EnvHome, "")
	home := t.TempDir()
	h, err := workspace.Open(home)
	require.NoError(t, err)
	cfg := h.Config()
	cfg.Models = map[string]workspace.ModelProfile{
		"fake":  {BaseURL: "http://127.0.0.1:1/v1", Model: "gpt-fake", APIKeyEnv: "FAKE_KEY"},
		"other": {Model: "gpt-other", APIKey: "sk-secret-value", MaxTokens: 512},
	}
	cfg.DefaultModel = "fake"
	require.NoError(t, h.SaveConfig(cfg))
	modes, err := h.ModeStore()
	require.NoError(t, err)
	require.NoError(t, modes.Set("fake", "responses"))
	var out strings.Builder
	return &App{sys: testSystem{}, Globals: Globals{Home: home}, Stdout: &out, Stderr: &out}, &out
}

func TestModelList(t *testing.T) {
	app, out := modelApp(t)
	require.NoError(t, (&ModelListCmd{}).Run(configDeps(t, app)))
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	require.Len(t, lines, 3, out.String())
	assert.Regexp(t, `^\s+PROFILE\s+MODEL\s+BASE URL\s+MODE$`, lines[0])
	assert.Regexp(t, `^\*\s+fake\s+gpt-fake\s+http://127.0.0.1:1/v1\s+responses$`, lines[1])
	assert.Regexp(t, `^\s+other\s+gpt-other\s+https://api.openai.com/v1\s+- \(chat first\)$`, lines[2])
}

func TestModelShow(t *testing.T) {
	app, out := modelApp(t)
	require.NoError(t, (&ModelShowCmd{Profile: "other"}).Run(configDeps(t, app)))
	s := out.String()
	assert.Regexp(t, `profile:\s+other\n`, s)
	assert.Regexp(t, `default:\s+false\n`, s)
	assert.Regexp(t, `apiKey:\s+set in config.json\n`, s)
	assert.Regexp(t, `maxTokens:\s+512\n`, s)
	assert.NotContains(t, s, "sk-secret-value", "keys are never printed")

	out.Reset()
	require.NoError(t, (&ModelShowCmd{}).Run(configDeps(t, app)))
	assert.Regexp(t, `profile:\s+fake\n`, out.String())
	assert.Regexp(t, `apiKey:\s+from \$FAKE_KEY\n`, out.String())
	assert.Regexp(t, `mode:\s+responses\n`, out.String())

	err := (&ModelShowCmd{Profile: "nope"}).Run(configDeps(t, app))
	assert.Equal(t, ExitUsage, ExitCode(err))
	assert.Contains(t, err.Error(), "profiles: fake, other")
}

func TestModelSet(t *testing.T) {
	app, out := modelApp(t)
	require.NoError(t, (&ModelSetCmd{Profile: "other"}).Run(streams(app), app.Globals, home(t, app)))
	assert.Equal(t, "defaultModel: fake -> other\n", out.String())
	cfg, err := workspace.LoadConfig(app.Home + "/config.json")
	require.NoError(t, err)
	assert.Equal(t, "other", cfg.DefaultModel)
	assert.Equal(t, "sk-secret-value", cfg.Models["other"].APIKey, "the rest of the config is kept")
	entries, err := os.ReadDir(app.Home)
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.HasPrefix(e.Name(), ".config.json") || strings.HasSuffix(e.Name(), ".tmp"), "no temp file left: %s", e.Name())
	}

	// A fresh App sees the new default.
	app2, out2 := modelApp(t)
	app2.Home = app.Home
	require.NoError(t, (&ModelListCmd{}).Run(configDeps(t, app2)))
	assert.Regexp(t, `\*\s+other\s+gpt-other`, out2.String())

	err = (&ModelSetCmd{Profile: "missing"}).Run(streams(app), app.Globals, home(t, app))
	assert.Equal(t, ExitUsage, ExitCode(err))
	assert.Contains(t, err.Error(), `model profile "missing" is not in`)
}
