package device

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// PowerState is what `dumpsys power` and `dumpsys window policy` say about
// the screen and the lock screen.
type PowerState struct {
	// Awake: mWakefulness=Awake (or mInteractive=true / Display Power ON).
	Awake bool
	// AwakeKnown: one of those lines was found; false means the build
	// printed none and Awake is only a guess (false).
	AwakeKnown bool
	// Wakefulness is mWakefulness as printed ("Awake", "Asleep", "Dozing",
	// "Dreaming"), "" when the build does not print it.
	Wakefulness string
	// Locked: the keyguard is showing (any of the lines keyguardKeys lists).
	Locked bool
	// KeyguardKnown: some keyguard line was found; false means the build
	// printed none and Locked is only a guess (false).
	KeyguardKnown bool
}

// keyguardKeys are the lock-screen lines of `dumpsys window policy` across
// Android versions (and KeyguardController's, in `dumpsys activity`):
// mShowingLockscreen (5.x), isStatusBarKeyguard (6–9), the
// KeyguardServiceDelegate section's showing= (8+), mKeyguardShowing (8+),
// isKeyguardShowing (vendor builds). Any "true" means locked.
var keyguardKeys = []string{"mShowingLockscreen", "isStatusBarKeyguard", "mKeyguardShowing", "isKeyguardShowing", "mDreamingLockscreen"}

// parsePowerState reads the combined output of `dumpsys power` and
// `dumpsys window policy`.
func parsePowerState(out string) PowerState {
	var st PowerState
	interactive, display := "", ""
	inDelegate := false
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimSpace(line)
		indent := len(line) - len(strings.TrimLeft(line, " "))
		// The delegate is a section with one field per line on most builds,
		// and one line "KeyguardServiceDelegate: showing=true …" on others.
		if rest, ok := strings.CutPrefix(t, "KeyguardServiceDelegate"); ok {
			inDelegate = strings.TrimLeft(rest, ": ") == ""
			for _, f := range strings.Fields(rest) {
				if v, ok := strings.CutPrefix(f, "showing="); ok {
					st.KeyguardKnown = true
					st.Locked = st.Locked || v == "true"
				}
			}
			continue
		}
		if inDelegate && indent <= 4 && t != "" && !strings.Contains(t, "=") {
			inDelegate = false // the next section
		}
		for _, f := range strings.Fields(t) {
			k, v, ok := strings.Cut(f, "=")
			if !ok {
				continue
			}
			switch {
			case k == "mWakefulness":
				st.Wakefulness = v
			case k == "mInteractive":
				interactive = v
			case k == "showing" && inDelegate:
				st.KeyguardKnown = true
				st.Locked = st.Locked || v == "true"
			case contains(keyguardKeys, k):
				st.KeyguardKnown = true
				st.Locked = st.Locked || v == "true"
			}
		}
		if v, ok := strings.CutPrefix(t, "Display Power: state="); ok {
			display = v
		} else if v, ok := strings.CutPrefix(t, "mScreenState="); ok && display == "" {
			display = v
		}
	}
	st.AwakeKnown = true
	switch {
	case st.Wakefulness != "":
		st.Awake = st.Wakefulness == "Awake"
	case interactive != "":
		st.Awake = interactive == "true"
	case display != "":
		st.Awake = display == "ON"
	default:
		st.AwakeKnown = false
	}
	return st
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// powerStateCommand reads power, the lock screen and the display's screen
// state (the grep keeps `dumpsys display`'s kilobytes off the wire).
const powerStateCommand = "dumpsys power; dumpsys window policy; dumpsys display | grep mScreenState="

// PowerState reads the screen and lock-screen state in one round trip. The
// exit status is ignored: a build that rejects one of the dumps still
// answers the others.
func (p *Phone) PowerState(ctx context.Context) (PowerState, error) {
	res, err := p.t.Shell(ctx, powerStateCommand)
	if err != nil {
		return PowerState{}, fmt.Errorf("read device state: %w", err)
	}
	return parsePowerState(normalizeOutput(res.Stdout)), nil
}

// ErrDeviceLocked reports a device whose lock screen could not be passed.
var ErrDeviceLocked = errors.New("device is locked")

// ReadyOptions say how to unlock the device.
type ReadyOptions struct {
	// PIN is typed on a PIN keyguard (config target.pin); "" = none. It is
	// never written into the report or an error.
	PIN string
	// Pause is the wait after each step for the screen to follow (400 ms).
	Pause time.Duration
}

// ReadyReport says what EnsureReady found and did, for a progress line.
type ReadyReport struct {
	Before, After PowerState
	// Steps are the actions taken, in order ("wake", "dismiss keyguard",
	// "enter PIN", "swipe up").
	Steps []string
}

// String is a one-line summary without the PIN.
func (r ReadyReport) String() string {
	if len(r.Steps) == 0 {
		return "device ready (screen on, unlocked)"
	}
	return "device ready after: " + strings.Join(r.Steps, ", ")
}

// EnsureReady makes the device usable before a run: it wakes a sleeping
// screen, dismisses the keyguard and, when the keyguard asks for one, types
// the PIN. A device that stays asleep or locked is ErrDeviceLocked with a
// message saying what was tried and what to do.
func (p *Phone) EnsureReady(ctx context.Context, o ReadyOptions) (ReadyReport, error) {
	if o.Pause <= 0 {
		o.Pause = 400 * time.Millisecond
	}
	var rep ReadyReport
	st, err := p.PowerState(ctx)
	if err != nil {
		return rep, err
	}
	rep.Before, rep.After = st, st
	step := func(name string, commands ...string) error {
		rep.Steps = append(rep.Steps, name)
		for _, c := range commands {
			if _, err := p.run(ctx, c); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		if err := sleep(ctx, o.Pause); err != nil {
			return err
		}
		st, err = p.PowerState(ctx)
		rep.After = st
		return err
	}
	if !st.Awake {
		if err := step("wake", "input keyevent KEYCODE_WAKEUP"); err != nil {
			return rep, err
		}
		// POWER toggles: press it only when the device says it is asleep,
		// never on a build whose state is unknown (it may be awake).
		if !st.Awake && st.AwakeKnown {
			if err := step("power key", "input keyevent KEYCODE_POWER"); err != nil {
				return rep, err
			}
		}
		if !st.Awake && st.AwakeKnown {
			return rep, fmt.Errorf("%w: the screen stays off (mWakefulness=%s) after KEYCODE_WAKEUP and KEYCODE_POWER", ErrDeviceLocked, orNone(st.Wakefulness))
		}
	}
	if st.Locked {
		if err := p.unlock(ctx, o, &st, step); err != nil {
			return rep, err
		}
	}
	if st.Locked {
		if o.PIN == "" {
			return rep, fmt.Errorf("%w: the lock screen is still showing after wm dismiss-keyguard; it likely needs a PIN: set target.pin in config.json, or unlock the phone by hand", ErrDeviceLocked)
		}
		return rep, fmt.Errorf("%w: the lock screen is still showing after wm dismiss-keyguard and entering target.pin; check the PIN in config.json, or unlock the phone by hand", ErrDeviceLocked)
	}
	return rep, nil
}

// unlock dismisses the keyguard; a secure keyguard then shows its bouncer,
// where the PIN goes. A swipe up is the last resort for keyguards that
// ignore dismiss-keyguard.
func (p *Phone) unlock(ctx context.Context, o ReadyOptions, st *PowerState, step func(string, ...string) error) error {
	if err := step("dismiss keyguard", "wm dismiss-keyguard"); err != nil {
		return err
	}
	enterPIN := func() error {
		if o.PIN == "" || !st.Locked {
			return nil
		}
		if !isDigits(o.PIN) {
			return fmt.Errorf("%w: target.pin must be digits only", ErrDeviceLocked)
		}
		if app, err := p.focusedApp(ctx); err != nil {
			return err
		} else if app != "" {
			// Never type the PIN into an app: the lock-screen lines may lie.
			return fmt.Errorf("%w: the lock screen is reported but %s has input focus; not typing target.pin", ErrDeviceLocked, app)
		}
		return step("enter PIN", "input text "+o.PIN, "input keyevent KEYCODE_ENTER")
	}
	if err := enterPIN(); err != nil || !st.Locked {
		return err
	}
	w, h, err := p.Size(ctx)
	if err != nil {
		return err
	}
	swipe := fmt.Sprintf("input swipe %d %d %d %d 300", w/2, h*9/10, w/2, h*3/10)
	if err := step("swipe up", swipe); err != nil {
		return err
	}
	return enterPIN()
}

// focusedApp is the package whose window has input focus, "" when the
// focus is a system window (the keyguard: NotificationShade, StatusBar,
// Keyguard) or null.
func (p *Phone) focusedApp(ctx context.Context) (string, error) {
	res, err := p.t.Shell(ctx, "dumpsys window windows")
	if err != nil {
		return "", fmt.Errorf("read window focus: %w", err)
	}
	return parseCurrentApp(normalizeOutput(res.Stdout), []string{"mCurrentFocus"}), nil
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
