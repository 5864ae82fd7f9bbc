package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// marks returns doctor's lines that start with ✓ or ✗.
func marks(out string) (ok, bad []string) {
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "✓ "):
			ok = append(ok, l)
		case strings.HasPrefix(l, "✗ "):
			bad = append(bad, l)
		}
	}
	return ok, bad
}

func TestDoctorWithoutADBServer(t *testing.T) {
	srv := llmtest.NewServer(t)
	home := homeWithModel(t, srv)
	port := strconv.Itoa(closedPort(t))
	res := runBinary(t, []string{"ANDROID_ADB_SERVER_PORT=" + port}, "--home", home, "doctor")
	assert.Equal(t, 1, res.code, res.stdout+res.stderr)
	_, bad := marks(res.stdout)
	require.NotEmpty(t, bad, res.stdout)
	assert.Contains(t, res.stdout, "✗ adb server: nothing listens at 127.0.0.1:"+port)
	assert.Contains(t, res.stdout, "fix: adb -P "+port+" start-server")
	assert.Contains(t, res.stdout, `✓ model "fake"`, "the model is still checked")
	assert.NotContains(t, res.stdout, "ready:")
}

func TestDoctorAllGreenWithVirtualPhoneAndFakeModel(t *testing.T) {
	phone := simtest.Start(t)
	srv := llmtest.NewServer(t)
	home := homeWithModel(t, srv)
	res := runBinary(t, nil, "--home", home, "-s", phone.Serial(), "doctor")
	assert.Equal(t, 0, res.code, res.stdout+res.stderr)
	ok, bad := marks(res.stdout)
	assert.Empty(t, bad, res.stdout)
	joined := strings.Join(ok, "\n")
	for _, want := range []string{"✓ config: ", "✓ adb: ", "✓ adb server: listening at 127.0.0.1:5037",
		"✓ device " + phone.Serial() + " (", "authorized, screen on, unlocked", `✓ model "fake" (gpt-fake at ` + srv.BaseURL() + "): answers", "✓ sandbox: "} {
		assert.Contains(t, joined, want)
	}
	assert.Contains(t, res.stdout, "ready: the default run has what it needs")
	assert.NotEmpty(t, srv.Requests(), "the model was sent a request")
}

func TestDoctorNamesTheProfileWhoseEndpointIsDown(t *testing.T) {
	phone := simtest.Start(t)
	home := homeWithDownModel(t)
	res := runBinary(t, nil, "--home", home, "-s", phone.Serial(), "doctor")
	assert.Equal(t, 1, res.code, res.stdout+res.stderr)
	_, bad := marks(res.stdout)
	require.Len(t, bad, 1, res.stdout)
	assert.Contains(t, bad[0], `✗ model "down" (gpt-down at http://127.0.0.1:`)
	assert.Contains(t, bad[0], "connection refused")
	assert.Contains(t, res.stdout, "fix: check baseUrl")
}

func TestDoctorScreenOff(t *testing.T) {
	phone := simtest.Start(t)
	srv := llmtest.NewServer(t)
	home := homeWithModel(t, srv)
	res := runBinary(t, nil, "--home", home, "-s", phone.Serial(), "act", `{"type":"keyevent","keycode":"KEYCODE_POWER"}`)
	require.Equal(t, 0, res.code, res.stderr)
	res = runBinary(t, nil, "--home", home, "-s", phone.Serial(), "doctor")
	assert.Equal(t, 1, res.code, res.stdout)
	assert.Contains(t, res.stdout, "✗ device "+phone.Serial())
	assert.Contains(t, res.stdout, "screen off")
	assert.Contains(t, res.stdout, "KEYCODE_WAKEUP")
}

// TestDoctorSeesTheLockScreen reads the keyguard from `dumpsys window
// policy` in the formats of Android 5 (mShowingLockscreen), 6–9
// (isStatusBarKeyguard) and 8+ (KeyguardServiceDelegate showing=).
func TestDoctorSeesTheLockScreen(t *testing.T) {
	phone := simtest.Start(t)
	srv := llmtest.NewServer(t)
	home := homeWithModel(t, srv)
	for _, sdk := range []int{22, 28, 34} {
		t.Run("sdk"+strconv.Itoa(sdk), func(t *testing.T) {
			p := phone.Phone()
			p.SetSDK(sdk)
			p.SetLockScreen(true, "1234")
			p.Sleep()
			res := runBinary(t, nil, "--home", home, "-s", phone.Serial(), "act", `{"type":"keyevent","keycode":"KEYCODE_WAKEUP"}`)
			require.Equal(t, 0, res.code, res.stderr)
			require.True(t, p.Locked())

			res = runBinary(t, nil, "--home", home, "-s", phone.Serial(), "doctor")
			assert.Equal(t, 1, res.code, res.stdout)
			assert.Contains(t, res.stdout, "✗ device "+phone.Serial())
			assert.Contains(t, res.stdout, "screen on, locked — fix: unlock the phone")

			p.SetLockScreen(false, "")
			res = runBinary(t, nil, "--home", home, "-s", phone.Serial(), "doctor")
			assert.Equal(t, 0, res.code, res.stdout)
			assert.Contains(t, res.stdout, "authorized, screen on, unlocked")
		})
	}
}

// Upstream's example config (our test copy in internal/workspace/testdata)
// loads as is: doctor prints each migrated or accepted upstream key as a
// note with its line and column, and no ✗ for any of them.
func TestDoctorUpstreamExampleConfigHasNoFailures(t *testing.T) {
	phone := simtest.Start(t)
	srv := llmtest.NewServer(t)
	home := homeWithModel(t, srv)
	raw, err := os.ReadFile("../../internal/workspace/testdata/upstream-example.json")
	require.NoError(t, err)
	var cfg map[string]any
	require.NoError(t, json.Unmarshal(raw, &cfg))
	// Only the model endpoint is ours: doctor asks it a question.
	cfg["models"] = map[string]any{"fake": map[string]any{"baseUrl": srv.BaseURL(), "model": "gpt-fake", "apiKey": "k", "temperature": nil, "reasoningEffort": nil}}
	cfg["defaultModel"] = "fake"
	cfg["target"] = map[string]any{"type": "emulator", "adbEndpoint": "", "pin": "1234", "wakeupIntervalSec": 3, "cloudProvider": ""}
	out, err := json.MarshalIndent(cfg, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(home, "config.json"), out, 0o600))

	res := runBinary(t, []string{"HOME=" + t.TempDir(), "OP_TEST_TG_TOKEN="}, "--home", home, "-s", phone.Serial(), "doctor")
	assert.Equal(t, 0, res.code, res.stdout+res.stderr)
	_, bad := marks(res.stdout)
	assert.Empty(t, bad, res.stdout)
	assert.Contains(t, res.stdout, `note: config: `+filepath.Join(home, "config.json")+`:`)
	assert.Contains(t, res.stdout, `migrated legacy key "localRelayPort" to "relayPort"`)
	assert.Contains(t, res.stdout, `upstream key "telegram": moved to channels.telegram`)
	assert.NotContains(t, res.stdout, "unknown key")
}
