package main_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/emulator/emulatortest"
	"github.com/openpocket/openpocket/internal/lease"
)

// TestEmulatorCommandsAndAnAVDTarget: with a stand-in SDK, `emulator list`
// names its AVD; an agent whose target is `--type emulator --avd NAME`
// starts that emulator on its first run (the adb server lists it as
// emulator-N) and finds it running on the next; status and stop see it.
func TestEmulatorCommandsAndAnAVDTarget(t *testing.T) {
	sdk := emulatortest.SDK(t, "Pixel_8")
	env := []string{"ANDROID_SDK_ROOT=" + sdk, "ANDROID_HOME=", lease.DirEnv + "=" + t.TempDir()}
	home := filepath.Join(t.TempDir(), "home")
	op := func(args ...string) result { return runBinary(t, env, append([]string{"--home", home}, args...)...) }

	r := op("emulator", "list")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "Pixel_8\n", r.stdout)
	r = op("target", "set", "--type", "emulator", "--avd", "Pixel_8")
	require.Equal(t, 0, r.code, r.stderr)

	snapshotDevice := func() (string, result) {
		r := op("snapshot", "--json")
		require.Equal(t, 0, r.code, r.stderr)
		var snap struct {
			DeviceID string `json:"deviceId"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &snap))
		return snap.DeviceID, r
	}
	serial, r := snapshotDevice()
	t.Cleanup(func() { op("emulator", "stop", serial) })
	assert.Regexp(t, `^emulator-55\d\d$`, serial)
	assert.Contains(t, r.stderr, "starting emulator Pixel_8 for agent default")
	again, r := snapshotDevice()
	assert.Equal(t, serial, again, "the running emulator is found by its AVD")
	assert.NotContains(t, r.stderr, "starting emulator")

	r = op("emulator", "status")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, serial+`\s+Pixel_8\s+device\s+yes`, r.stdout)
	r = op("emulator", "stop", serial)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "stopped "+serial+"\n", r.stdout)
	r = op("emulator", "status")
	assert.NotContains(t, r.stdout, serial)
}

// TestEmulatorWithoutSDK says what is missing and how to install it.
func TestEmulatorWithoutSDK(t *testing.T) {
	r := runBinary(t, []string{"ANDROID_SDK_ROOT=" + t.TempDir(), "ANDROID_HOME=", "PATH=/usr/bin:/bin", "HOME=" + t.TempDir()},
		"--home", t.TempDir(), "emulator", "list")
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "Android emulator not found")
	assert.Contains(t, r.stderr, "no emulator/emulator")
	assert.Contains(t, r.stderr, "sdkmanager")
}
