package cli

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/openpocket/openpocket/internal/emulator/emulatortest"
)

// TestNoPhoneHintOffersTheEmulator: with no phone attached, init and
// doctor offer the SDK's AVDs first; without an SDK they say how to get
// the emulator.
func TestNoPhoneHintOffersTheEmulator(t *testing.T) {
	t.Setenv("ANDROID_HOME", "")
	t.Setenv("ANDROID_SDK_ROOT", emulatortest.SDK(t, "Pixel_8", "Tablet"))
	hint := noPhoneHint(context.Background(), "")
	assert.Contains(t, hint, "openpocket emulator start Pixel_8 (AVDs: Pixel_8, Tablet)")
	assert.Contains(t, hint, "target set --type emulator --avd Pixel_8")

	t.Setenv("ANDROID_SDK_ROOT", emulatortest.SDK(t))
	assert.Contains(t, noPhoneHint(context.Background(), ""), "avdmanager create avd")

	t.Setenv("ANDROID_SDK_ROOT", t.TempDir())
	t.Setenv("PATH", "/usr/bin:/bin")
	t.Setenv("HOME", t.TempDir())
	hint = noPhoneHint(context.Background(), "")
	assert.Contains(t, hint, `sdkmanager "emulator"`)
	assert.Contains(t, hint, "openpocket connect HOST")
}
