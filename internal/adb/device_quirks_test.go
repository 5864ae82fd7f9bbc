package adb_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/sim/android"
)

// The four device-layer behaviours that differ between builds, each checked
// through the real adb server against a virtual phone set up like such a
// build.

// `shell` runs like `adb shell TOKENS`: the device's sh sees the operators.
func TestShellActionKeepsShellSyntaxOnTheDevice(t *testing.T) {
	_, d := openShared(t)
	p := device.NewPhone(d, device.Options{})
	ctx := context.Background()
	for cmd, want := range map[string]string{
		`echo a && echo b`:                                "a\nb",
		`adb shell echo hello | wc -l`:                    "1",
		`echo saved > /sdcard/q.txt; cat /sdcard/q.txt`:   "saved",
		`sh -c 'echo one && echo two'`:                    "one\ntwo",
		`false || echo "fallback ran"`:                    "fallback ran",
		`echo x | grep -c y; echo "exit status reported"`: "0\nexit status reported",
	} {
		res, err := p.ShellAction(ctx, cmd)
		require.NoError(t, err, cmd)
		assert.Equal(t, "shell exitCode=0\n"+want, res, cmd)
	}
}

// A FLAG_SECURE window leaves the system bars visible around its black
// surface: the flag is read on every capture and the cache never answers.
func TestSecureWindowFlagOnEveryCaptureBypassesCache(t *testing.T) {
	s, d := openShared(t)
	s.Phone().SetSecureScreen(android.PkgSettings+"/.Settings", true)
	p := device.NewPhone(d, device.Options{})
	ctx := context.Background()
	_, err := p.LaunchApp(ctx, android.PkgSettings)
	require.NoError(t, err)
	for i := 0; i < 3; i++ {
		snap, err := p.Capture(ctx, device.CaptureOptions{})
		require.NoError(t, err)
		png, err := snap.FullPNG() // raw captures make the PNG on demand
		require.NoError(t, err)
		img, err := screen.DecodePNG(png)
		require.NoError(t, err)
		require.False(t, screen.IsBlack(img), "the status and navigation bars are still drawn")
		assert.True(t, snap.SecureSurface, "capture %d", i+1)
		assert.Equal(t, screen.SourceFresh, snap.CaptureMetrics.UIElementsSource, "capture %d never reuses the cache", i+1)
	}
	s.Phone().SetSecureScreen(android.PkgSettings+"/.Settings", false)
	snap, err := p.Capture(ctx, device.CaptureOptions{})
	require.NoError(t, err)
	assert.False(t, snap.SecureSurface)
}

// Builds that name the app in front only by a window titled with its
// package, or only in `dumpsys activity top`.
func TestCurrentAppFromWindowOnlyFocusAndActivityTop(t *testing.T) {
	s, d := openShared(t)
	p := device.NewPhone(d, device.Options{})
	ctx := context.Background()
	_, err := p.LaunchApp(ctx, android.PkgContacts)
	require.NoError(t, err)

	s.Phone().SetFocusStyle(android.FocusWindowOnly)
	res, err := d.Shell(ctx, "dumpsys window windows | grep mCurrentFocus")
	require.NoError(t, err)
	assert.Regexp(t, `mCurrentFocus=Window\{[0-9a-f]+ u0 com\.openpocket\.contacts\}`, string(res.Stdout))
	app, err := p.CurrentApp(ctx)
	require.NoError(t, err)
	assert.Equal(t, android.PkgContacts, app)

	s.Phone().SetFocusStyle(android.FocusTopOnly)
	res, err = d.Shell(ctx, "dumpsys activity top | grep ACTIVITY")
	require.NoError(t, err)
	assert.Contains(t, string(res.Stdout), "ACTIVITY com.openpocket.contacts/.ContactsActivity")
	app, err = p.CurrentApp(ctx)
	require.NoError(t, err)
	assert.Equal(t, android.PkgContacts, app)
}

// A clipboard the shell may not read back: the paste goes through
// unverified and the text still lands in the field.
func TestTypeWhenTheClipboardRefusesReads(t *testing.T) {
	s, d := openShared(t)
	s.Phone().SetClipboardReadable(false)
	p := device.NewPhone(d, device.Options{})
	ctx := context.Background()
	_, err := p.LaunchApp(ctx, android.PkgLogin)
	require.NoError(t, err)
	snap, err := p.Capture(ctx, device.CaptureOptions{})
	require.NoError(t, err)
	field := findByID(snap.UIElements, "username")
	require.NotNil(t, field)
	_, err = p.Execute(ctx, mustParse(t, fmt.Sprintf(`{"type":"tap","x":%d,"y":%d}`, field.Center.X, field.Center.Y)), device.ActOptions{})
	require.NoError(t, err)
	got, err := d.Shell(ctx, "cmd clipboard get text")
	require.NoError(t, err)
	require.Equal(t, "null", strings.TrimSpace(string(got.Stdout)), "the phone refuses clipboard reads")
	res, err := p.Type(ctx, "Zoë")
	require.NoError(t, err)
	assert.Contains(t, res, "unverified")
	assert.Equal(t, "Zoë", s.Phone().FocusedText())
}

// A sleeping phone behind a PIN keyguard is woken and unlocked, whatever
// Android version's lock-screen lines it prints.
func TestEnsureReadyUnlocksASleepingPINPhone(t *testing.T) {
	for _, sdk := range []int{22, 27, 34} {
		t.Run(fmt.Sprintf("sdk%d", sdk), func(t *testing.T) {
			s, d := openShared(t)
			ph := s.Phone()
			ph.SetSDK(sdk)
			ph.SetLockScreen(true, "2468")
			ph.Sleep()
			require.True(t, ph.Locked())
			p := device.NewPhone(d, device.Options{})
			ctx := context.Background()
			st, err := p.PowerState(ctx)
			require.NoError(t, err)
			assert.Equal(t, [3]bool{false, true, true}, [3]bool{st.Awake, st.Locked, st.KeyguardKnown})

			rep, err := p.EnsureReady(ctx, device.ReadyOptions{PIN: "2468"})
			require.NoError(t, err)
			assert.Equal(t, []string{"wake", "dismiss keyguard", "enter PIN"}, rep.Steps)
			assert.True(t, ph.Awake())
			assert.False(t, ph.Locked())
			assert.Zero(t, ph.UnlockAttempts())

			ph.Sleep()
			_, err = p.EnsureReady(ctx, device.ReadyOptions{PIN: "1111"})
			require.ErrorIs(t, err, device.ErrDeviceLocked)
			assert.True(t, ph.Locked(), "a wrong PIN leaves the phone locked")
			assert.Positive(t, ph.UnlockAttempts())
		})
	}
}
