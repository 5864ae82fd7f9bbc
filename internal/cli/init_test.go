package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/llm"
	"github.com/openpocket/openpocket/internal/workspace"
)

func TestInitWritesConfigAndBootstrapsTheWorkspace(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	code, out, errOut := mainIn(t, home, "init", "--base-url", "http://127.0.0.1:11434/v1", "--model-name", "qwen", "--api-key-env", "LOCAL_KEY",
		"--profile", "local", "--serial", "emulator-5554")
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, "next: openpocket doctor")

	cfg, warns, err := workspace.LoadConfigWarnings(filepath.Join(home, "config.json"))
	require.NoError(t, err)
	assert.Empty(t, warns)
	assert.Equal(t, "local", cfg.DefaultModel)
	assert.Equal(t, workspace.ModelProfile{BaseURL: "http://127.0.0.1:11434/v1", Model: "qwen", APIKeyEnv: "LOCAL_KEY", MaxTokens: 4096}, cfg.Models["local"])
	assert.Equal(t, "emulator-5554", cfg.Target.Device)
	raw, err := os.ReadFile(filepath.Join(home, "config.json"))
	require.NoError(t, err)
	assert.NotContains(t, string(raw), `"apiKey": "`+"x", "no key is written")

	h, err := workspace.Open(home)
	require.NoError(t, err)
	st, err := h.ReadWorkspaceState()
	require.NoError(t, err)
	assert.Equal(t, 1, st.Version)
	assert.NotEmpty(t, st.BootstrapSeededAt)
	require.NotNil(t, st.OnboardingCompletedAt, "onboarding completed")
	for _, f := range []string{"BOOTSTRAP.md", "AGENTS.md", "USER.md", "IDENTITY.md", "MEMORY.md"} {
		assert.FileExists(t, filepath.Join(home, "workspace", f))
	}

	// Never overwritten without --force; the user's edits survive a re-run.
	require.NoError(t, os.WriteFile(filepath.Join(home, "workspace", "USER.md"), []byte("# User\n\n- name: Ada\n"), 0o644))
	code, _, errOut = mainIn(t, home, "init", "--model-name", "other")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "already exists; pass --force")
	cfg, _, err = workspace.LoadConfigWarnings(filepath.Join(home, "config.json"))
	require.NoError(t, err)
	assert.Equal(t, "qwen", cfg.Models["local"].Model)

	code, _, errOut = mainIn(t, home, "init", "--model-name", "other", "--force")
	require.Equal(t, ExitOK, code, errOut)
	cfg, _, err = workspace.LoadConfigWarnings(filepath.Join(home, "config.json"))
	require.NoError(t, err)
	assert.Equal(t, "other", cfg.Models["default"].Model)
	user, err := os.ReadFile(filepath.Join(home, "workspace", "USER.md"))
	require.NoError(t, err)
	assert.Contains(t, string(user), "Ada", "starter files are never overwritten")
}

func TestInitAsksOnATerminalOnly(t *testing.T) {
	c := &InitCmd{ModelName: "given"}
	var out strings.Builder
	require.NoError(t, c.ask(bufioReader("http://h:1/v1\nMY_KEY\nemulator-1\n"), &out))
	assert.Equal(t, "http://h:1/v1", c.BaseURL)
	assert.Equal(t, "given", c.ModelName, "a flag is not asked again")
	assert.Equal(t, "MY_KEY", c.APIKeyEnv)
	assert.Equal(t, "emulator-1", c.Serial)
	assert.Contains(t, out.String(), "Model endpoint base URL [https://api.openai.com/v1]: ")
	assert.NotContains(t, out.String(), "Model name")
}

func TestUpstreamConfigLoadsWithAMigrationNote(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	require.NoError(t, os.MkdirAll(home, 0o755))
	upstream := `{
  "default_model": "gpt",
  "models": {"gpt": {"base_url": "http://127.0.0.1:9/v1", "model": "gpt-4.1", "api_key_env": "UP_KEY", "max_tokens": 1000}},
  "agent": {"max_steps": 50, "return_home_on_task_end": false, "loop_delay_ms": 1000},
  "screenshots": {"save_step_screenshots": false}
}
`
	require.NoError(t, os.WriteFile(filepath.Join(home, "config.json"), []byte(upstream), 0o600))
	code, out, errOut := mainIn(t, home, "model", "show")
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, "gpt-4.1")
	assert.Contains(t, out, "from $UP_KEY")
	assert.Contains(t, errOut, "note: "+filepath.Join(home, "config.json")+`:4:30: migrated legacy key "return_home_on_task_end" to "returnHomeOnTaskEnd"`)
	assert.Contains(t, errOut, `migrated legacy key "default_model" to "defaultModel"`)

	h, err := workspace.Open(home)
	require.NoError(t, err)
	cfg := h.Config()
	assert.False(t, cfg.Agent.ReturnHomeOnTaskEnd)
	assert.Equal(t, 50, cfg.Agent.MaxSteps)
	assert.Equal(t, 1000, cfg.Agent.LoopDelayMs)
	assert.False(t, cfg.Screenshots.SaveStepScreenshots)
	assert.Equal(t, 1000, cfg.Models["gpt"].MaxTokens)
}

func TestModelFailureClassifiesEndpointErrors(t *testing.T) {
	refused := &url.Error{Op: "Post", URL: "http://127.0.0.1:9/v1", Err: &net.OpError{Op: "dial", Err: errors.New("connection refused")}}
	var me ModelError
	assert.True(t, errors.As(modelFailure(fmt.Errorf("model: %w", refused)), &me))
	assert.Equal(t, ExitModel, ExitCode(FailedError{Msg: "agent failed", Cause: modelFailure(refused)}))
	assert.True(t, errors.As(modelFailure(&llm.APIError{StatusCode: 401}), &me))
	assert.Equal(t, ExitDevice, ExitCode(modelFailure(fmt.Errorf("capture: %w", adb.ErrDeviceNotFound))))
	assert.Equal(t, ExitFailed, ExitCode(modelFailure(llm.ErrNoAction)), "a reply without an action is not an endpoint problem")
	assert.Equal(t, ExitCanceled, ExitCode(modelFailure(context.Canceled)))
}

func bufioReader(s string) *bufio.Reader { return bufio.NewReader(strings.NewReader(s)) }

// TestFirstCommandsWriteNoConfig: README's order (any command, then init)
// works: ordinary commands never write config.json, and init replaces one
// nobody edited (an earlier version's first-command default) without --force.
func TestFirstCommandsWriteNoConfig(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	cfgPath := filepath.Join(home, "config.json")
	for _, args := range [][]string{{"sessions", "list"}, {"model", "list"}, {"skills", "list"}, {"cron", "list"}} {
		code, _, errOut := mainIn(t, home, args...)
		require.Equal(t, ExitOK, code, "%v: %s", args, errOut)
		assert.NoFileExists(t, cfgPath, "%v wrote config.json", args)
	}
	code, _, errOut := mainIn(t, home, "init", "--model-name", "first")
	require.Equal(t, ExitOK, code, errOut)

	// A default config as an earlier version wrote it is replaced.
	data, err := workspace.MarshalConfig(workspace.DefaultConfig())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(cfgPath, data, 0o600))
	code, out, errOut := mainIn(t, home, "init", "--base-url", "http://localhost:11434/v1", "--model-name", "qwen2.5-vl", "--api-key-env", "OPENPOCKET_TEST_UNSET_KEY")
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, "is a local server, so no key")
	cfg, _, err := workspace.LoadConfigWarnings(cfgPath)
	require.NoError(t, err)
	assert.Equal(t, "qwen2.5-vl", cfg.Models["default"].Model)
}
