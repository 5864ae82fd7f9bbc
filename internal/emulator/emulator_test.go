package emulator

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/emulator/emulatortest"
	"github.com/openpocket/openpocket/internal/sim/simtest"
)

func TestMain(m *testing.M) { emulatortest.Main(m) }

func managerFor(t *testing.T, root string) *Manager {
	t.Helper()
	simtest.RequireADB(t)
	sdk, err := FindSDK(Env{Getenv: func(k string) string { return map[string]string{"ANDROID_SDK_ROOT": root}[k] },
		LookPath: func(string) (string, error) { return "", os.ErrNotExist }, Home: t.TempDir()})
	require.NoError(t, err)
	return &Manager{SDK: sdk, ADB: adb.NewClient(""), Poll: 50 * time.Millisecond}
}

func listed(t *testing.T, m *Manager, serial string) string {
	devs, err := m.ADB.Devices(context.Background())
	require.NoError(t, err)
	for _, d := range devs {
		if d.Serial == serial {
			return d.State
		}
	}
	return ""
}

// TestFindSDK: the environment's SDK, PATH's emulator, and when there is
// none, what was looked at and how to install it.
func TestFindSDK(t *testing.T) {
	none := Env{Getenv: func(string) string { return "" }, LookPath: func(string) (string, error) { return "", os.ErrNotExist }, Home: t.TempDir()}
	_, err := FindSDK(none)
	require.ErrorIs(t, err, ErrNoSDK)
	for _, want := range []string{"$ANDROID_SDK_ROOT is not set", "$ANDROID_HOME is not set", "no emulator on PATH", "sdkmanager", "ANDROID_SDK_ROOT"} {
		assert.Contains(t, err.Error(), want)
	}
	empty := t.TempDir()
	_, err = FindSDK(Env{Getenv: func(k string) string { return map[string]string{"ANDROID_HOME": empty}[k] }, LookPath: none.LookPath, Home: none.Home})
	assert.ErrorContains(t, err, empty+" ($ANDROID_HOME): no emulator/emulator")

	root := emulatortest.SDK(t, "Pixel_8")
	sdk, err := FindSDK(Env{Getenv: func(k string) string { return map[string]string{"ANDROID_HOME": root}[k] }, LookPath: none.LookPath, Home: none.Home})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "emulator", "emulator"), sdk.Emulator)
	assert.Equal(t, filepath.Join(root, "cmdline-tools", "latest", "bin", "avdmanager"), sdk.AVDManager)
	onPath := Env{Getenv: none.Getenv, Home: none.Home, LookPath: func(name string) (string, error) {
		if name == "emulator" {
			return filepath.Join(root, "emulator", "emulator"), nil
		}
		return "", os.ErrNotExist
	}}
	sdk, err = FindSDK(onPath)
	require.NoError(t, err)
	assert.Equal(t, root, sdk.Root)
}

// TestStartStatusStop: an AVD starts on an emulator port pair, the adb
// server lists it as emulator-N once booted, status names its AVD, and
// stop kills it through its console until the server drops it.
func TestStartStatusStop(t *testing.T) {
	m := managerFor(t, emulatortest.SDK(t, "Pixel_8", "Tablet"))
	ctx := context.Background()
	avds, err := m.ListAVDs(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"Pixel_8", "Tablet"}, avds)

	serial, err := m.Start(ctx, "Pixel_8", StartOptions{Headless: true, Wait: time.Minute})
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = m.Stop(context.Background(), serial) })
	assert.Regexp(t, `^emulator-55[5-8][02468]$`, serial)
	assert.Equal(t, "device", listed(t, m, serial))

	running, err := m.Status(ctx)
	require.NoError(t, err)
	var mine *Running
	for i := range running {
		if running[i].Serial == serial {
			mine = &running[i]
		}
	}
	require.NotNil(t, mine, "status lists %s: %+v", serial, running)
	assert.Equal(t, "Pixel_8", mine.AVD)
	assert.True(t, mine.Booted)

	stopCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	got, err := m.Stop(stopCtx, serial)
	require.NoError(t, err)
	assert.Equal(t, serial, got)
	assert.Empty(t, listed(t, m, serial), "the adb server dropped it")
}

// TestBootThatNeverCompletes: the wait ends with why (listed, but
// sys.boot_completed is 0) and how to stop it.
func TestBootThatNeverCompletes(t *testing.T) {
	m := managerFor(t, emulatortest.SDK(t, "Slow"))
	serial, err := m.Start(context.Background(), "Slow", StartOptions{Headless: true, Wait: 3 * time.Second})
	t.Cleanup(func() { _, _ = m.Stop(context.Background(), serial) })
	require.ErrorIs(t, err, ErrBootTimeout)
	assert.Contains(t, err.Error(), `sys.boot_completed is "0"`)
	assert.Contains(t, err.Error(), "openpocket emulator stop "+serial)
}

// TestStartFailures: an SDK without AVDs says how to create one; an
// unknown name lists the AVDs there are; an emulator that exits at once
// shows its own words.
func TestStartFailures(t *testing.T) {
	ctx := context.Background()
	_, err := managerFor(t, emulatortest.SDK(t)).Start(ctx, "Pixel_8", StartOptions{})
	require.ErrorIs(t, err, ErrNoAVDs)
	assert.Contains(t, err.Error(), "avdmanager create avd")

	m := managerFor(t, emulatortest.SDK(t, "Pixel_8", "Broken"))
	_, err = m.Start(ctx, "Pixel_9", StartOptions{})
	require.ErrorIs(t, err, ErrNoAVD)
	assert.Contains(t, err.Error(), "Pixel_8, Broken")
	_, err = m.Start(ctx, "Broken", StartOptions{Wait: 30 * time.Second})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exited before it booted")
	assert.Contains(t, err.Error(), "PANIC: Missing emulator engine program")

	_, err = m.Stop(ctx, "127.0.0.1:5555")
	assert.ErrorContains(t, err, "not an emulator serial")
}
