package adb_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/sim/android"
	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// Device-layer cases from upstream OpenPocket's own test suite
// (test/adb-runtime.test.mjs), each run through the real adb server against
// the virtual phone set up like the build the case describes.

// Upstream runs `adb shell` with stdin ignored and a timeout: `cat` ends at
// once, and a command that never ends stops with what it printed so far.
func TestShellActionClosesStdinAndStopsAtTheTimeout(t *testing.T) {
	_, d := openShared(t)
	// A short default so that a `cat` left waiting for input shows as a
	// timeout instead of the 20 s default.
	p := device.NewPhone(d, device.Options{ShellTimeout: 5 * time.Second})
	ctx := context.Background()

	out, err := p.Execute(ctx, mustParse(t, `{"type":"shell","command":"cat"}`), device.ActOptions{})
	require.NoError(t, err)
	assert.Equal(t, "shell exitCode=0\n", out.Result, "stdin is closed: cat reads end-of-input and exits")

	// The action's own timeoutSec wins over the phone's default.
	out, err = p.Execute(ctx, mustParse(t, `{"type":"shell","command":"echo started; sleep 60","timeoutSec":1}`), device.ActOptions{})
	require.NoError(t, err, "a timeout is a result for the model, not a failed run")
	assert.Equal(t, "shell timedOut=true after 1s (stopped; partial output below)\nstarted", out.Result)

	// The configured default applies when the action names none.
	p = device.NewPhone(d, device.Options{ShellTimeout: time.Second})
	res, err := p.ShellAction(ctx, "echo tick; sleep 60")
	require.NoError(t, err)
	assert.Equal(t, "shell timedOut=true after 1s (stopped; partial output below)\ntick", res)

	// The phone is usable right after: the stopped command did not wedge it.
	res, err = p.ShellAction(ctx, "echo after")
	require.NoError(t, err)
	assert.Equal(t, "shell exitCode=0\nafter", res)
}

// Upstream: "AdbRuntime shell preserves wrapped command and quoted
// arguments" — `sh -lc 'echo first && echo second'` keeps its script whole.
func TestShellActionKeepsTheScriptOfShLc(t *testing.T) {
	_, d := openShared(t)
	p := device.NewPhone(d, device.Options{ShellTimeout: 5 * time.Second})
	ctx := context.Background()
	for _, cmd := range []string{
		`sh -lc 'echo first && echo second'`,
		`sh -c 'echo first && echo second'`,
		`sh -l -c 'echo first && echo second'`,
		`adb shell sh -lc "echo first && echo second"`,
	} {
		res, err := p.ShellAction(ctx, cmd)
		require.NoError(t, err, cmd)
		assert.Equal(t, "shell exitCode=0\nfirst\nsecond", res, cmd)
	}
}

// Upstream: "AdbRuntime uses unverified clipboard paste when clipboard read
// is unavailable" — a read-back printing "Error: …" with exit 0 is not a
// mismatch: the text is pasted and the result says unverified.
func TestTypeClipboardReadBackErrorIsUnverifiedNotAFailure(t *testing.T) {
	s, d := openShared(t)
	s.Phone().SetQuirks(android.Quirks{ClipboardGetError: true})
	p := device.NewPhone(d, device.Options{})
	ctx := context.Background()
	focusUsername(t, p)

	got, err := d.Shell(ctx, "cmd clipboard get text")
	require.NoError(t, err)
	require.Equal(t, 0, got.ExitCode)
	require.True(t, strings.HasPrefix(string(got.Stdout), "Error: "), "the phone prints an error with exit 0: %q", got.Stdout)

	res, err := p.Type(ctx, "São Paulo")
	require.NoError(t, err)
	assert.Contains(t, res, "via clipboard paste (unverified")
	assert.Equal(t, "São Paulo", s.Phone().FocusedText())
}

// Upstream: "AdbRuntime fails clearly when non-ASCII input methods are
// unavailable" — a clipboard set that prints an error with exit 0 must not
// paste whatever the clipboard held before.
func TestTypeFailsWhenClipboardSetPrintsAnError(t *testing.T) {
	s, d := openShared(t)
	p := device.NewPhone(d, device.Options{})
	ctx := context.Background()
	_, err := d.Shell(ctx, "cmd clipboard set text stale")
	require.NoError(t, err)
	s.Phone().SetQuirks(android.Quirks{ClipboardSetError: true})
	focusUsername(t, p)

	_, err = p.Type(ctx, "São Paulo")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Text input failed")
	assert.Contains(t, err.Error(), "no input method is active")
	assert.Empty(t, s.Phone().FocusedText(), "the stale clip was not pasted")
}

// Upstream: "wakes and dismisses keyguard …" feeds
// "KeyguardServiceDelegate: showing=true" on one line: that is locked.
func TestKeyguardDelegateOnOneLineReadsAsLocked(t *testing.T) {
	s, d := openShared(t)
	ph := s.Phone()
	ph.SetLockScreen(true, "2468")
	ph.Sleep()
	ph.SetQuirks(android.Quirks{KeyguardOneLine: true})
	ctx := context.Background()
	_, err := d.Shell(ctx, "input keyevent KEYCODE_WAKEUP")
	require.NoError(t, err)
	require.True(t, ph.Awake())
	require.True(t, ph.Locked())
	pol, err := d.Shell(ctx, "dumpsys window policy")
	require.NoError(t, err)
	require.Contains(t, string(pol.Stdout), "    KeyguardServiceDelegate: showing=true ")

	p := device.NewPhone(d, device.Options{})
	st, err := p.PowerState(ctx)
	require.NoError(t, err)
	assert.True(t, st.KeyguardKnown)
	assert.True(t, st.Locked, "showing=true on the delegate's own line is locked")

	rep, err := p.EnsureReady(ctx, device.ReadyOptions{PIN: "2468"})
	require.NoError(t, err)
	assert.Contains(t, rep.Steps, "enter PIN")
	assert.False(t, ph.Locked())
}

// Upstream: "captureScreenSnapshot uses screenshot dimensions as source
// resolution in landscape" — with `wm size` printing nothing, the
// screenshot's own size is the screen.
func TestLandscapeCaptureWhenWMSizePrintsNothing(t *testing.T) {
	s := simtest.Start(t, simtest.WithSize(2400, 1080))
	s.Phone().SetQuirks(android.Quirks{WMSizeSilent: true})
	d := openSerial(t, s.Serial())
	ctx := context.Background()
	out, err := d.Shell(ctx, "wm size")
	require.NoError(t, err)
	require.Empty(t, out.Stdout)

	p := device.NewPhone(d, device.Options{})
	snap, err := p.Capture(ctx, device.CaptureOptions{Scaled: true})
	require.NoError(t, err)
	assert.Equal(t, [2]int{2400, 1080}, [2]int{snap.Width, snap.Height})
	assert.Greater(t, snap.ScaledWidth, snap.ScaledHeight)
	assert.Equal(t, 768, snap.ScaledHeight)
	w, h, err := p.Size(ctx)
	require.NoError(t, err)
	assert.Equal(t, [2]int{2400, 1080}, [2]int{w, h}, "taps are clamped to the landscape screen")
}

func focusUsername(t *testing.T, p *device.Phone) {
	t.Helper()
	ctx := context.Background()
	_, err := p.LaunchApp(ctx, android.PkgLogin)
	require.NoError(t, err)
	snap, err := p.Capture(ctx, device.CaptureOptions{})
	require.NoError(t, err)
	field := findByID(snap.UIElements, "username")
	require.NotNil(t, field)
	_, err = p.Execute(ctx, mustParse(t, fmt.Sprintf(`{"type":"tap","x":%d,"y":%d}`, field.Center.X, field.Center.Y)), device.ActOptions{})
	require.NoError(t, err)
}

func openSerial(t *testing.T, serial string) *adb.Device {
	t.Helper()
	d, err := adb.NewClient("").Open(context.Background(), adb.Target{Serial: serial})
	require.NoError(t, err)
	return d
}
