package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/internal/workspace"
)

// complete runs `openpocket __complete -- WORDS…` and returns the lines.
func complete(t *testing.T, home string, words ...string) []string {
	t.Helper()
	code, out, errOut := mainIn(t, home, append([]string{"__complete", "--"}, words...)...)
	require.Equal(t, ExitOK, code, errOut)
	return strings.Fields(out)
}

func TestCompletionCandidates(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	h, err := workspace.Open(home)
	require.NoError(t, err)
	cfg := h.Config()
	cfg.Models = map[string]workspace.ModelProfile{"local": {BaseURL: "http://127.0.0.1:1/v1", Model: "m"}, "cloud": {BaseURL: "http://127.0.0.1:2/v1", Model: "m"}}
	cfg.DefaultModel = "local"
	require.NoError(t, h.SaveConfig(cfg))
	dir := t.TempDir()
	for _, f := range []string{"a.yaml", "b.yml", "c.lua", "notes.txt", "sub/d.yaml"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o644))
	}

	assert.Equal(t, []string{"play"}, complete(t, home, "pl"))
	assert.Contains(t, complete(t, home, ""), "doctor")
	assert.NotContains(t, complete(t, home, ""), "__complete", "hidden")
	assert.Equal(t, []string{"add", "disable", "enable", "list", "remove", "run"}, complete(t, home, "cron", ""))
	assert.Contains(t, complete(t, home, "play", "--"), "--include-tags")
	assert.Contains(t, complete(t, home, "play", "--"), "--device", "global flags too")
	assert.Equal(t, []string{dir + "/a.yaml", dir + "/b.yml", dir + "/sub/"}, complete(t, home, "play", dir+"/"))
	assert.Equal(t, []string{dir + "/c.lua", dir + "/sub/"}, complete(t, home, "run", dir+"/"))
	assert.Equal(t, []string{"cloud", "local"}, complete(t, home, "model", "set", ""))
	assert.Equal(t, []string{"cloud", "local"}, complete(t, home, "agent", "--model", ""))
	assert.Equal(t, []string{"toggle-wifi"}, complete(t, home, "skills", "run", "tog"))
	assert.Equal(t, []string{"bash", "fish", "zsh"}, complete(t, home, "completion", ""))
	assert.Equal(t, []string{"cloud", "local"}, complete(t, "/nonexistent", "--home", home, "model", "show", ""), "--home on the line is used")
}

func TestCompletionOffersDeviceSerials(t *testing.T) {
	s := simtest.Start(t)
	assert.Contains(t, complete(t, t.TempDir(), "--device", ""), s.Serial())
	assert.Contains(t, complete(t, t.TempDir(), "snapshot", "-s", "127.0.0.1:"), s.Serial())
}

func TestCompletionScripts(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		code, out, errOut := mainIn(t, t.TempDir(), "completion", sh)
		require.Equal(t, ExitOK, code, errOut)
		assert.Contains(t, out, " __complete -- ", sh)
	}
}

func TestJSONOutputs(t *testing.T) {
	s := simtest.Start(t)
	code, out, errOut := mainIn(t, t.TempDir(), "devices", "--json")
	require.Equal(t, ExitOK, code, errOut)
	var devs []adb.DeviceInfo
	require.NoError(t, json.Unmarshal([]byte(out), &devs))
	found := false
	for _, d := range devs {
		if d.Serial == s.Serial() {
			found = true
			assert.Equal(t, "device", d.State)
		}
	}
	assert.True(t, found, out)

	code, out, errOut = mainIn(t, t.TempDir(), "--device", s.Serial(), "snapshot", "--json")
	require.Equal(t, ExitOK, code, errOut)
	var snap map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &snap))
	assert.Equal(t, "com.android.launcher3", snap["currentApp"])

	code, out, errOut = mainIn(t, t.TempDir(), "cron", "list", "--json")
	require.Equal(t, ExitOK, code, errOut)
	var jobs map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &jobs))
	assert.Contains(t, jobs, "jobs")
}
