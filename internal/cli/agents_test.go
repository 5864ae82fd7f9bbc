package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/lease"
	"github.com/openpocket/openpocket/internal/workspace"
)

// mainOut runs the whole command line like the binary would and returns
// its exit code and output.
func runMain(t *testing.T, home string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), append([]string{"--home", home}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

// isolatedInstall is an install with no environment leaking into it.
func isolatedInstall(t *testing.T) string {
	t.Helper()
	t.Setenv(workspace.EnvHome, "")
	t.Setenv(workspace.EnvAgent, "")
	t.Setenv("ANDROID_SERIAL", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv(lease.DirEnv, t.TempDir())
	return filepath.Join(t.TempDir(), "install")
}

func TestAgentsCommands(t *testing.T) {
	home := isolatedInstall(t)
	h, err := workspace.Open(home)
	require.NoError(t, err)
	cfg := h.Config()
	cfg.Models = map[string]workspace.ModelProfile{"main": {BaseURL: "http://127.0.0.1:1/v1", Model: "m", APIKey: "sk-do-not-copy"}}
	cfg.DefaultModel = "main"
	require.NoError(t, h.SaveConfig(cfg))

	code, out, errOut := runMain(t, home, "agents", "create", "shop")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "created agent shop in "+filepath.Join(home, "agents", "shop"))
	assert.Contains(t, out, "without API keys")
	raw, err := os.ReadFile(filepath.Join(home, "agents", "shop", "config.json"))
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "sk-do-not-copy")

	code, _, errOut = runMain(t, home, "agents", "create", "shop")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, `agent "shop" already exists`)

	code, out, _ = runMain(t, home, "--agent", "shop", "target", "set", "--type", "android-tv", "--endpoint", "10.0.0.9:5555")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "target android-tv 10.0.0.9:5555, bound exclusively")
	code, out, _ = runMain(t, home, "agents", "list")
	require.Equal(t, 0, code)
	assert.Regexp(t, `(?m)^default\s+-\s+stopped`, out)
	assert.Regexp(t, `(?m)^shop\s+android-tv 10.0.0.9:5555\s+stopped`, out)

	t.Setenv(workspace.EnvAgent, "shop") // OPENPOCKET_AGENT selects like --agent
	code, out, _ = runMain(t, home, "target", "show")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "agent:    shop\ntype:     android-tv\nendpoint: 10.0.0.9:5555")
	assert.Contains(t, out, "KEYCODE_DPAD_CENTER")
	code, out, _ = runMain(t, home, "agents", "show")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "created:  ")
	assert.Contains(t, out, "from default (keys copied: false)")
	t.Setenv(workspace.EnvAgent, "")

	// The default agent cannot take shop's phone.
	code, _, errOut = runMain(t, home, "target", "set", "--type", "physical-phone", "--device", "10.0.0.9:5555", "--detached")
	assert.Equal(t, ExitDevice, code)
	assert.Contains(t, errOut, `bound to agent "shop"`)

	code, _, errOut = runMain(t, home, "--agent", "ghost", "target", "show")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "agents create ghost")

	code, out, _ = runMain(t, home, "agents", "remove", "shop")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "removed agent shop")
	code, _, errOut = runMain(t, home, "target", "set", "--type", "physical-phone", "--device", "10.0.0.9:5555", "--detached")
	assert.Equal(t, 0, code, "removing shop released its phone: %s", errOut)
	code, _, _ = runMain(t, home, "target", "clear")
	assert.Equal(t, 0, code)
	_, ok, err := mustInstall(t, home).Binding("default")
	require.NoError(t, err)
	assert.False(t, ok)
}

func TestTargetSetRefusedWhileGatewayRuns(t *testing.T) {
	home := isolatedInstall(t)
	code, _, _ := runMain(t, home, "agents", "create", "tv")
	require.Equal(t, 0, code)
	lockDir := filepath.Join(home, "agents", "tv", "state", "runtime")
	require.NoError(t, os.MkdirAll(lockDir, 0o755))
	host, _ := os.Hostname()
	require.NoError(t, os.WriteFile(filepath.Join(lockDir, "gateway.lock.json"),
		[]byte(`{"pid": `+strconv.Itoa(os.Getpid())+`, "startedAt": "2026-11-24T10:00:00.000Z", "host": "`+host+`"}`), 0o644))
	code, _, errOut := runMain(t, home, "--agent", "tv", "target", "set", "--type", "emulator", "--device", "emulator-5554")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "its gateway runs (pid "+strconv.Itoa(os.Getpid()))
	code, _, errOut = runMain(t, home, "agents", "remove", "tv")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "stop it first")
	code, _, errOut = runMain(t, home, "--agent", "tv", "target", "set", "--type", "cloud")
	assert.Equal(t, ExitUsage, code, "checked after the gateway: %s", errOut)
}

func mustInstall(t *testing.T, home string) *workspace.Install {
	t.Helper()
	in, err := workspace.OpenInstall(home)
	require.NoError(t, err)
	return in
}

func TestInitWritesTheSelectedAgentsConfig(t *testing.T) {
	home := isolatedInstall(t)
	code, _, errOut := runMain(t, home, "agents", "create", "shop")
	require.Equal(t, 0, code, errOut)
	before, _ := os.ReadFile(filepath.Join(home, "config.json")) // absent until init writes it
	code, out, errOut := runMain(t, home, "--agent", "shop", "init", "--force", "--model-name", "shop-model")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, filepath.Join(home, "agents", "shop", "config.json"))
	after, _ := os.ReadFile(filepath.Join(home, "config.json"))
	assert.Equal(t, string(before), string(after), "the default agent's config is untouched")
	raw, err := os.ReadFile(filepath.Join(home, "agents", "shop", "config.json"))
	require.NoError(t, err)
	assert.Contains(t, string(raw), "shop-model")
	code, _, errOut = runMain(t, home, "--agent", "ghost", "init")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "agents create ghost")
	code, _, errOut = runMain(t, home, "--agent", "shp", "sessions", "list")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, `no such agent "shp"`)
	assert.Contains(t, errOut, "did you mean shop?")
}
