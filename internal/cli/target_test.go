package cli

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/internal/workspace"
)

func savedTarget(t *testing.T, home string) workspace.TargetConfig {
	t.Helper()
	cfg, _, err := workspace.LoadConfigWarnings(home + "/config.json")
	require.NoError(t, err)
	return cfg.Target
}

// TestTargetSetRefusesASerialNotAttached: a serial the adb server does
// not list is refused naming what is attached (--detached binds it
// anyway); an attached one is bound.
func TestTargetSetRefusesASerialNotAttached(t *testing.T) {
	home := isolatedInstall(t)
	phone := simtest.Start(t)
	code, _, errOut := runMain(t, home, "target", "set", "--type", "emulator", "--device", "emulator-5999")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "device emulator-5999 is not attached")
	assert.Contains(t, errOut, phone.Serial()+" (device)", "the attached devices are named")
	assert.Contains(t, errOut, "--detached")
	// Nothing was bound: no command writes config.json on a fresh install
	// unless it sets something (first run), and this one set nothing.
	assert.NoFileExists(t, filepath.Join(home, "config.json"), "nothing was bound")

	code, _, errOut = runMain(t, home, "target", "set", "--type", "emulator", "--device", "emulator-5999", "--detached")
	assert.Equal(t, 0, code, errOut)
	code, out, errOut := runMain(t, home, "target", "set", "--type", "emulator", "--device", phone.Serial())
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "bound exclusively")
}

// TestTargetSetPin: a PIN is 4 to 16 digits (never echoed when refused),
// and a target set without --pin keeps the stored one.
func TestTargetSetPin(t *testing.T) {
	home := isolatedInstall(t)
	for _, bad := range []string{"12ab", "123", "12345678901234567"} {
		code, _, errOut := runMain(t, home, "target", "set", "--type", "emulator", "--pin", bad)
		assert.Equal(t, ExitUsage, code, bad)
		assert.Contains(t, errOut, "expected 4 to 16 digits")
		assert.NotContains(t, errOut, bad, "the PIN is a secret")
	}
	code, _, errOut := runMain(t, home, "target", "set", "--type", "emulator", "--pin", "2468")
	require.Equal(t, 0, code, errOut)
	code, _, errOut = runMain(t, home, "target", "set", "--type", "physical-phone")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "2468", savedTarget(t, home).Pin, "--type without --pin keeps the stored PIN")
	assert.Equal(t, "physical-phone", savedTarget(t, home).Type)
}

// TestTargetSetEndpointGetsTheDefaultPort: a bare host is adb's HOST:5555.
func TestTargetSetEndpointGetsTheDefaultPort(t *testing.T) {
	home := isolatedInstall(t)
	code, out, errOut := runMain(t, home, "target", "set", "--type", "physical-phone", "--endpoint", "10.0.0.7")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "10.0.0.7:5555")
	assert.Equal(t, "10.0.0.7:5555", savedTarget(t, home).AdbEndpoint)
	code, _, errOut = runMain(t, home, "target", "set", "--type", "physical-phone", "--endpoint", "10.0.0.7:99999")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "port must be a number")
	code, _, errOut = runMain(t, home, "target", "set", "--type", "physical-phone", "--avd", "Pixel_8")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "--avd names an emulator's virtual device")
}
