package device_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/device/devicetest"
)

// fakeLock is a scripted phone with a sleeping PIN keyguard: it answers the
// readiness commands from its state.
type fakeLock struct {
	mu                       sync.Mutex
	awake, locked, bouncer   bool
	pin, entry               string
	ignoreWakeup, ignoreDism bool
	appFocused               bool // an app window has focus despite the lock lines
}

func (l *fakeLock) install(f *devicetest.Fake) {
	answer := func(fn func(cmd string) string) devicetest.Handler {
		return func(cmd string) (device.ShellResult, error) {
			l.mu.Lock()
			defer l.mu.Unlock()
			return device.ShellResult{Stdout: []byte(fn(cmd))}, nil
		}
	}
	f.On("dumpsys power", answer(func(string) string {
		w := "Asleep"
		if l.awake {
			w = "Awake"
		}
		return "  mWakefulness=" + w + "\n    KeyguardServiceDelegate\n      showing=" + map[bool]string{true: "true", false: "false"}[l.locked] + "\n"
	}))
	f.On("input keyevent KEYCODE_WAKEUP", answer(func(string) string {
		if !l.ignoreWakeup {
			l.awake = true
		}
		return ""
	}))
	f.On("input keyevent KEYCODE_POWER", answer(func(string) string { l.awake = !l.awake; return "" }))
	f.On("wm dismiss-keyguard", answer(func(string) string {
		if !l.ignoreDism {
			l.bouncer = true
		}
		return ""
	}))
	f.On("input text ", answer(func(cmd string) string {
		if l.bouncer {
			l.entry += strings.TrimPrefix(cmd, "input text ")
		}
		return ""
	}))
	f.On("input keyevent KEYCODE_ENTER", answer(func(string) string {
		if l.bouncer && l.entry == l.pin {
			l.locked, l.bouncer = false, false
		}
		l.entry = ""
		return ""
	}))
	f.On("input swipe", answer(func(string) string { l.bouncer = true; return "" }))
	f.On("dumpsys window windows", answer(func(string) string {
		if l.appFocused {
			return "  mCurrentFocus=Window{1 u0 com.chat/com.chat.Main}\n"
		}
		return "  mCurrentFocus=Window{2 u0 NotificationShade}\n"
	}))
}

func readyPhone(l *fakeLock) (*devicetest.Fake, *device.Phone) {
	f := devicetest.New()
	f.OnOutput("wm size", "Physical size: 1080x2400\n")
	l.install(f)
	return f, device.NewPhone(f, device.Options{})
}

func TestEnsureReadyWakesAndEntersPIN(t *testing.T) {
	l := &fakeLock{locked: true, pin: "4321"}
	f, p := readyPhone(l)
	rep, err := p.EnsureReady(context.Background(), device.ReadyOptions{PIN: "4321", Pause: time.Millisecond})
	require.NoError(t, err)
	assert.Equal(t, []string{"wake", "dismiss keyguard", "enter PIN"}, rep.Steps)
	assert.False(t, rep.Before.Awake)
	assert.True(t, rep.After.Awake && !rep.After.Locked)
	assert.NotContains(t, rep.String(), "4321", "the PIN never reaches the report")
	assert.Equal(t, []string{"input text 4321"}, f.CallsWithPrefix("input text"))
}

func TestEnsureReadyLeavesAReadyPhoneAlone(t *testing.T) {
	l := &fakeLock{awake: true}
	f, p := readyPhone(l)
	rep, err := p.EnsureReady(context.Background(), device.ReadyOptions{PIN: "1"})
	require.NoError(t, err)
	assert.Empty(t, rep.Steps)
	assert.Equal(t, "device ready (screen on, unlocked)", rep.String())
	assert.Empty(t, f.CallsWithPrefix("input"), "nothing is typed on an unlocked phone")
}

func TestEnsureReadySaysWhyTheDeviceStaysLocked(t *testing.T) {
	l := &fakeLock{awake: true, locked: true, pin: "4321"}
	_, p := readyPhone(l)
	_, err := p.EnsureReady(context.Background(), device.ReadyOptions{Pause: time.Millisecond})
	require.ErrorIs(t, err, device.ErrDeviceLocked)
	assert.ErrorContains(t, err, "set target.pin")

	l = &fakeLock{awake: true, locked: true, pin: "4321"}
	_, p = readyPhone(l)
	_, err = p.EnsureReady(context.Background(), device.ReadyOptions{PIN: "0000", Pause: time.Millisecond})
	require.ErrorIs(t, err, device.ErrDeviceLocked)
	assert.ErrorContains(t, err, "check the PIN")
	assert.NotContains(t, err.Error(), "0000")

	l = &fakeLock{ignoreWakeup: true}
	f, p := readyPhone(l)
	rep, err := p.EnsureReady(context.Background(), device.ReadyOptions{Pause: time.Millisecond})
	require.NoError(t, err, "POWER wakes a build that ignores WAKEUP")
	assert.Equal(t, []string{"wake", "power key"}, rep.Steps)
	assert.Len(t, f.CallsWithPrefix("input keyevent KEYCODE_POWER"), 1)
}

func TestEnsureReadySwipesUpWhenDismissIsIgnored(t *testing.T) {
	l := &fakeLock{awake: true, locked: true, pin: "12", ignoreDism: true}
	_, p := readyPhone(l)
	rep, err := p.EnsureReady(context.Background(), device.ReadyOptions{PIN: "12", Pause: time.Millisecond})
	require.NoError(t, err)
	assert.Equal(t, []string{"dismiss keyguard", "enter PIN", "swipe up", "enter PIN"}, rep.Steps)
}

func TestEnsureReadyRejectsANonDigitPIN(t *testing.T) {
	l := &fakeLock{awake: true, locked: true, pin: "12"}
	f, p := readyPhone(l)
	_, err := p.EnsureReady(context.Background(), device.ReadyOptions{PIN: "12; reboot", Pause: time.Millisecond})
	require.ErrorIs(t, err, device.ErrDeviceLocked)
	assert.ErrorContains(t, err, "digits only")
	assert.Empty(t, f.CallsWithPrefix("input text"))
}

// A build that prints no power state gets the harmless WAKEUP but never
// POWER, which would turn an awake screen off; the run goes on.
func TestEnsureReadyNeverPressesPowerBlind(t *testing.T) {
	f := devicetest.New()
	f.OnOutput("wm size", "Physical size: 1080x2400\n")
	f.OnExit("dumpsys power", "", "Can't find service: power\n", 1)
	f.OnOutput("input keyevent", "")
	p := device.NewPhone(f, device.Options{})
	rep, err := p.EnsureReady(context.Background(), device.ReadyOptions{Pause: time.Millisecond})
	require.NoError(t, err)
	assert.Equal(t, []string{"wake"}, rep.Steps)
	assert.Empty(t, f.CallsWithPrefix("input keyevent KEYCODE_POWER"))
}

// Lock-screen lines that disagree with the window focus never get the PIN
// typed into the app that has focus.
func TestEnsureReadyNeverTypesThePINIntoAnApp(t *testing.T) {
	l := &fakeLock{awake: true, locked: true, pin: "12", appFocused: true}
	f, p := readyPhone(l)
	_, err := p.EnsureReady(context.Background(), device.ReadyOptions{PIN: "12", Pause: time.Millisecond})
	require.ErrorIs(t, err, device.ErrDeviceLocked)
	assert.ErrorContains(t, err, "com.chat has input focus")
	assert.Empty(t, f.CallsWithPrefix("input text"))
}
