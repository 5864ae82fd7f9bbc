package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// TestConvertMaestroCorpusPlaysGreen converts the Maestro corpus, checks
// the report counts, then plays every converted flow whose app the virtual
// phone has through the real adb server, and checks the phone's state.
func TestConvertMaestroCorpusPlaysGreen(t *testing.T) {
	corpus := "../convert/maestro/testdata/corpus"
	out := filepath.Join(t.TempDir(), "converted")
	var stdout, stderr strings.Builder
	code := Main(t.Context(), []string{"--home", t.TempDir(), "convert", "maestro", corpus, "-o", out}, &stdout, &stderr)
	// broken.yaml and config.yaml are not convertible: exit 1, the rest lints.
	assert.Equal(t, ExitFailed, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	assert.Contains(t, stdout.String(), "8 files: 4 converted, 2 with warnings, 2 not convertible\n")
	assert.NotContains(t, stderr.String(), "lint ", "every converted playbook lints")

	s := simtest.Start(t)
	p := s.Phone()
	play := func(flows ...string) {
		t.Helper()
		args := []string{"play", "--output", t.TempDir()}
		for _, f := range flows {
			args = append(args, filepath.Join(out, f))
		}
		code, pout, perr := playMain(t, s.Serial(), args...)
		require.Equal(t, ExitOK, code, "stdout:\n%s\nstderr:\n%s", pout, perr)
		assert.Contains(t, pout, "\n"+itoa(len(flows))+" passed, 0 failed\n")
	}

	play("notes.yaml")
	assert.Contains(t, p.Notes(), "Buy milk!", "inputText ${NOTE + SUFFIX}")
	assert.Contains(t, p.Notes(), "Buy milk again", "runFlow file with env")
	assert.Contains(t, p.Notes(), "retried", "retry with a file")
	assert.NotContains(t, p.Notes(), "third", "longPressOn deleted it")
	assert.Equal(t, map[string]string{"source": "maestro", "retries": "2"}, p.LaunchExtras(), "launchApp arguments")
	assert.True(t, p.PermissionGranted("com.openpocket.notes", "android.permission.POST_NOTIFICATIONS"), "launchApp permissions")

	play("settings.yaml", "contacts.yaml", "login.yaml")
	assert.True(t, p.WifiOn(), "tapOn repeat 3 left Wi-Fi on")
	assert.False(t, p.AirplaneMode(), "enabled, toggled, disabled")
	assert.Equal(t, "52.5300000,13.4100000", p.Location(), "travel ends at its last point")
	assert.Subset(t, p.KeyLog(), []int{24, 25, 20, 85, 243}, "Maestro key names reach the real key codes")
	assert.Equal(t, "copied by maestro", p.Clipboard())
	assert.Contains(t, p.Links(), "login://start")
	assert.Equal(t, "alice", p.LoggedInUser())
	_, err := os.Stat(filepath.Join(out, "subflows", "add_note.yaml"))
	assert.NoError(t, err)
}

// TestConvertedAICommandsAreNotPassed: Maestro's AI commands become AI
// steps (no placeholder); without a model they are never ✓ passed: one
// optional as in Maestro warns naming the missing model, one with
// optional: false fails the run.
func TestConvertedAICommandsAreNotPassed(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ai.yaml"), []byte("appId: com.android.settings\n---\n- launchApp\n- assertWithAI:\n    assertion: The Wi-Fi switch is on\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "strict.yaml"), []byte("appId: com.android.settings\n---\n- launchApp\n- assertWithAI:\n    assertion: The Wi-Fi switch is on\n    optional: false\n"), 0o644))
	out := filepath.Join(t.TempDir(), "converted")
	var stdout, stderr strings.Builder
	code := Main(t.Context(), []string{"--home", t.TempDir(), "convert", "maestro", dir, "-o", out}, &stdout, &stderr)
	require.Equal(t, ExitOK, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	s := simtest.Start(t)
	junit := filepath.Join(t.TempDir(), "junit.xml")
	code, pout, perr := playMain(t, s.Serial(), "play", filepath.Join(out, "ai.yaml"), "--output", t.TempDir(), "--report", junit)
	require.Equal(t, ExitOK, code, "stdout:\n%s\nstderr:\n%s", pout, perr)
	assert.Regexp(t, `(?m)^! ai_assert The Wi-Fi switch is on .*ai\.yaml:\d+: .*needs a model`, pout, "the AI step warns without a model")
	assert.NotRegexp(t, `(?m)^✓ .*(ai_assert|TODO)`, pout)
	x, err := os.ReadFile(junit)
	require.NoError(t, err)
	assert.Regexp(t, `warned ai_assert The Wi-Fi switch is on .*no model configured`, string(x))

	code, pout, perr = playMain(t, s.Serial(), "play", filepath.Join(out, "strict.yaml"), "--output", t.TempDir())
	assert.Equal(t, ExitFailed, code, "stdout:\n%s\nstderr:\n%s", pout, perr)
	assert.Regexp(t, `(?m)^✗ ai_assert The Wi-Fi switch is on`, pout)
}
