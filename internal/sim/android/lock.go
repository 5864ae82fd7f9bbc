package android

import (
	"fmt"
	"image"
	"strconv"
	"strings"
)

// extState is the part of the phone's state added for device readiness and
// real-device quirks: the lock screen, the Android version the dumps
// imitate, the soft keyboard, the notification shade and the settings
// that make the phone answer like other builds. Reset restores it.
type extState struct {
	sdk int // Android API level the dumpsys formats follow (34)

	// Lock screen: enabled by SetLockScreen; going to sleep locks it.
	keyguard  bool
	pin       string // "" = swipe to unlock
	locked    bool
	bouncer   bool   // the PIN pad is up
	pinEntry  string // digits typed on the PIN pad
	wrongPIN  bool
	wrongPINs int

	softKeyboard  bool // an IME window shows while a field is focused (on; SetSoftKeyboard)
	shadeOpen     bool // the notification shade is pulled down
	notifications []notification
	chatSent      map[string][]string // Chat: conversation name → sent messages
	openFolder    string              // Launcher: the open folder's name

	clipboardDenied bool            // `cmd clipboard get text` prints null
	secureScreens   map[string]bool // FLAG_SECURE per activity component
	focusStyle      FocusStyle
	quirks          Quirks
}

func newExtState() extState {
	return extState{sdk: 34, softKeyboard: true, secureScreens: map[string]bool{}}
}

// FocusStyle selects how the activity and window dumps name the app in
// front, imitating builds the runtime must also read.
type FocusStyle int

const (
	// FocusModern prints topResumedActivity, ResumedActivity, mCurrentFocus
	// with the activity component and mFocusedApp (Android 10+).
	FocusModern FocusStyle = iota
	// FocusWindowOnly prints no resumed activity, no mFocusedApp, and a
	// focus window titled by package only, "Window{c52eaa8 u0 PKG}", as TV
	// and vendor builds do for windows a service adds.
	FocusWindowOnly
	// FocusTopOnly prints neither resumed activities nor a focus; only
	// `dumpsys activity top` names the app ("ACTIVITY pkg/.Cls …").
	FocusTopOnly
)

// SetSDK makes the phone imitate another Android API level in getprop and
// in the dumpsys formats that differ by version (dumpsys window policy).
func (p *Phone) SetSDK(sdk int) {
	if sdk <= 0 {
		return
	}
	p.locked(func() { p.st.ext.sdk = sdk; p.changed() })
}

// SetLockScreen turns the lock screen on (pin "" = swipe to unlock, else a
// PIN keyguard) or off (enabled false, which also unlocks). The phone locks
// the next time the screen goes off.
func (p *Phone) SetLockScreen(enabled bool, pin string) {
	p.locked(func() {
		e := &p.st.ext
		e.keyguard, e.pin = enabled, pin
		if !enabled {
			e.locked, e.bouncer, e.pinEntry, e.wrongPIN = false, false, "", false
		}
		p.changed()
	})
}

// Sleep turns the screen off, locking the phone when a lock screen is set,
// as pressing the power button does.
func (p *Phone) Sleep() { p.locked(func() { p.sleepLocked() }) }

// Locked reports whether the keyguard is showing.
func (p *Phone) Locked() (on bool) { p.locked(func() { on = p.st.ext.locked }); return }

// UnlockAttempts counts wrong PINs entered on the PIN pad.
func (p *Phone) UnlockAttempts() (n int) { p.locked(func() { n = p.st.ext.wrongPINs }); return }

// SetSoftKeyboard turns the on-screen keyboard window on (the default: it
// shows while a text field has focus, as on a phone) or off.
func (p *Phone) SetSoftKeyboard(on bool) {
	p.locked(func() { p.st.ext.softKeyboard = on; p.changed() })
}

// SetClipboardReadable false makes `cmd clipboard get text` print "null",
// as Android 10+ does for the shell on many builds; pasting still works.
func (p *Phone) SetClipboardReadable(on bool) {
	p.locked(func() { p.st.ext.clipboardDenied = !on })
}

// SetSecureScreen sets FLAG_SECURE on one activity's window (component as
// "pkg/.Cls"): screencap shows that window black while the system bars
// stay visible, as on a device, and dumpsys window lists SECURE.
func (p *Phone) SetSecureScreen(component string, on bool) {
	p.locked(func() {
		if on {
			p.st.ext.secureScreens[component] = true
		} else {
			delete(p.st.ext.secureScreens, component)
		}
		p.changed()
	})
}

// SetFocusStyle picks how dumpsys names the app in front.
func (p *Phone) SetFocusStyle(s FocusStyle) {
	p.locked(func() { p.st.ext.focusStyle = s; p.changed() })
}

func (p *Phone) sleepLocked() {
	if !p.st.awake {
		return
	}
	p.st.awake = false
	e := &p.st.ext
	if e.keyguard {
		e.locked, e.bouncer, e.pinEntry, e.wrongPIN = true, false, "", false
	}
	e.shadeOpen = false
	p.changed()
}

func (p *Phone) wakeLocked() {
	if !p.st.awake {
		p.st.awake = true
		p.changed()
	}
}

// dismissKeyguardLocked is `wm dismiss-keyguard`: a swipe keyguard goes
// away, a PIN keyguard shows its PIN pad.
func (p *Phone) dismissKeyguardLocked() {
	e := &p.st.ext
	if !e.locked || !p.st.awake {
		return
	}
	if e.pin == "" {
		e.locked = false
	} else {
		e.bouncer = true
	}
	p.changed()
}

// keyguardKeyLocked handles a key while the keyguard shows; it reports
// whether the key was consumed (every key is, except the power keys).
func (p *Phone) keyguardKeyLocked(code int) bool {
	e := &p.st.ext
	if !e.locked || !p.st.awake || code == keyPower || code == keySleep || code == keyWakeup {
		return false
	}
	switch {
	case code == keyBack:
		e.bouncer, e.pinEntry = false, ""
	case code == keyMenu && e.pin == "":
		e.locked = false
	case !e.bouncer:
	case code >= key0 && code <= key9:
		e.pinEntry += string(rune('0' + code - key0))
	case code == keyDel && e.pinEntry != "":
		e.pinEntry = e.pinEntry[:len(e.pinEntry)-1]
	case code == keyEnter:
		p.submitPINLocked()
	}
	p.changed()
	return true
}

// keyguardTypeLocked takes `input text` while locked: digits go to the PIN
// pad, anything else is lost (there is no focused field).
func (p *Phone) keyguardTypeLocked(text string) bool {
	e := &p.st.ext
	if !e.locked {
		return false
	}
	if e.bouncer {
		for _, r := range text {
			if r >= '0' && r <= '9' {
				e.pinEntry += string(r)
			}
		}
		p.changed()
	}
	return true
}

func (p *Phone) submitPINLocked() {
	e := &p.st.ext
	if e.pinEntry == e.pin {
		e.locked, e.bouncer, e.wrongPIN = false, false, false
	} else {
		e.wrongPIN = true
		e.wrongPINs++
	}
	e.pinEntry = ""
	p.changed()
}

// keyguardSwipeLocked: swiping up on the lock screen opens the PIN pad, or
// unlocks a swipe keyguard. It reports whether the keyguard took the swipe.
func (p *Phone) keyguardSwipeLocked(delta image.Point) bool {
	e := &p.st.ext
	if !e.locked {
		return false
	}
	if delta.Y < -p.dpLocked(100) && !e.bouncer {
		if e.pin == "" {
			e.locked = false
		} else {
			e.bouncer = true
		}
		p.changed()
	}
	return true
}

func (p *Phone) dpLocked(v int) int {
	_, _, d := p.sizeLocked()
	return (v*d + 80) / 160
}

// androidRelease maps an API level to ro.build.version.release.
func androidRelease(sdk int) string {
	releases := map[int]string{21: "5.0", 22: "5.1", 23: "6.0", 24: "7.0", 25: "7.1.1", 26: "8.0.0", 27: "8.1.0", 28: "9", 29: "10", 30: "11", 31: "12", 32: "12", 33: "13", 34: "14", 35: "15"}
	if r, ok := releases[sdk]; ok {
		return r
	}
	return strconv.Itoa(sdk - 20)
}

// dumpPolicyLocked is `dumpsys window policy`, whose lock-screen lines
// changed across versions: mShowingLockscreen (5.x), isStatusBarKeyguard
// (6–9), the KeyguardServiceDelegate section's showing= (8+).
func (p *Phone) dumpPolicyLocked() string {
	e := &p.st.ext
	locked, awake := e.locked, p.st.awake
	var b strings.Builder
	b.WriteString("WINDOW MANAGER POLICY STATE (dumpsys window policy)\n")
	b.WriteString("    mSafeMode=false mSystemReady=true mSystemBooted=true\n")
	fmt.Fprintf(&b, "    mLidState=LID_ABSENT mLidOpenRotation=-1 mCameraLensCoverState=LENS_COVER_ABSENT mHdmiPlugged=false\n")
	if e.sdk <= 22 {
		fmt.Fprintf(&b, "    mShowingLockscreen=%t mShowingDream=false mDreamingLockscreen=%t\n", locked, locked)
	} else {
		fmt.Fprintf(&b, "    mShowingDream=false mDreamingLockscreen=%t mDreamingSleepToken=null\n", locked && !awake)
	}
	if e.sdk >= 23 && e.sdk <= 28 {
		fmt.Fprintf(&b, "    mStatusBar=Window{%s u0 StatusBar} isStatusBarKeyguard=%t\n", objectID("win", "StatusBar"), locked)
	}
	fmt.Fprintf(&b, "    mKeyguardOccluded=false mKeyguardOccludedChanged=false mPendingKeyguardOccluded=false\n")
	if e.sdk >= 26 && e.quirks.KeyguardOneLine {
		fmt.Fprintf(&b, "    KeyguardServiceDelegate: showing=%t inputRestricted=%t occluded=false secure=%t\n",
			locked, locked, e.keyguard && e.pin != "")
	} else if e.sdk >= 26 {
		screen, interactive := "SCREEN_STATE_OFF", "INTERACTIVE_STATE_SLEEP"
		if awake {
			screen, interactive = "SCREEN_STATE_ON", "INTERACTIVE_STATE_AWAKE"
		}
		b.WriteString("    KeyguardServiceDelegate\n")
		fmt.Fprintf(&b, "      showing=%t\n      inputRestricted=%t\n      occluded=false\n      secure=%t\n",
			locked, locked, e.keyguard && e.pin != "")
		fmt.Fprintf(&b, "      dreaming=false\n      systemIsReady=true\n      deviceHasKeyguard=%t\n      enabled=true\n", e.keyguard)
		fmt.Fprintf(&b, "      offReason=OFF_BECAUSE_OF_USER\n      currentUser=0\n      bootCompleted=true\n")
		fmt.Fprintf(&b, "      screenState=%s\n      interactiveState=%s\n", screen, interactive)
		fmt.Fprintf(&b, "      KeyguardStateMonitor\n        mIsShowing=%t\n        mSimSecure=false\n        mInputRestricted=%t\n        mTrusted=false\n        mCurrentUserId=0\n",
			locked, locked)
	}
	return b.String()
}

// keyguardControllerLocked is the KeyguardController section `dumpsys
// activity activities` ends with on Android 8+.
func (p *Phone) keyguardControllerLocked() string {
	if p.st.ext.sdk < 26 {
		return ""
	}
	return fmt.Sprintf("  KeyguardController:\n    mKeyguardShowing=%t\n    mAodShowing=false\n    mKeyguardGoingAway=false\n    mOccluded=false\n    mDismissalRequested=false\n",
		p.st.ext.locked)
}

// keyguardWindow is the lock screen: a clock and "Swipe up to unlock", or
// the PIN pad (bouncer) with digit keys, delete and enter.
func (b *builder) keyguardWindow() *window {
	e := &b.p.st.ext
	root := newView(clsFrame, PkgSystemUI, image.Rect(0, 0, b.w, b.h))
	root.resID = PkgSystemUI + ":id/notification_panel"
	root.look.bg = colWallpaper
	id := func(s string) string { return PkgSystemUI + ":id/" + s }
	clock := b.text(image.Rect(0, b.statusH+b.dp(64), b.w, b.statusH+b.dp(160)), statusClock, id("lock_screen_clock"))
	clock.look.fg, clock.look.center, clock.look.textScale = colWhite, true, b.title*2
	root.add(clock)
	if !e.bouncer {
		hint := b.text(image.Rect(0, b.h-b.navH-b.dp(96), b.w, b.h-b.navH-b.dp(56)), "Swipe up to unlock", id("keyguard_indication_text"))
		hint.look.fg, hint.look.center = colWhite, true
		root.add(hint)
		return &window{title: "NotificationShade", pkg: PkgSystemUI, root: root, modal: true, focus: true}
	}
	msg := "Enter PIN"
	if e.wrongPIN {
		msg = "Wrong PIN"
	}
	top := b.statusH + b.dp(176)
	m := b.text(image.Rect(0, top, b.w, top+b.dp(32)), msg, id("bouncer_message_area"))
	m.look.fg, m.look.center = colWhite, true
	entry := b.node("com.android.keyguard.PasswordTextView", image.Rect(b.dp(48), top+b.dp(40), b.w-b.dp(48), top+b.dp(88)))
	entry.resID, entry.password, entry.focusable, entry.focused = id("pinEntry"), true, true, true
	entry.text = strings.Repeat("•", len(e.pinEntry))
	entry.look.fg, entry.look.center = colWhite, true
	root.add(m, entry)
	p := b.p
	keyW, keyH := b.w/3, b.dp(72)
	padTop := top + b.dp(104)
	labels := []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "del", "0", "enter"}
	for i, l := range labels {
		r := image.Rect(i%3*keyW, padTop+i/3*keyH, (i%3+1)*keyW, padTop+(i/3+1)*keyH)
		var key *view
		switch l {
		case "del":
			key = b.node("android.widget.ImageButton", r)
			key.resID, key.desc = id("delete_button"), "Delete"
			key.onTap = func() { p.keyguardKeyLocked(keyDel) }
			key.look.glyph = "<"
		case "enter":
			key = b.node("android.widget.ImageButton", r)
			key.resID, key.desc = id("key_enter"), "Enter"
			key.onTap = func() { p.keyguardKeyLocked(keyEnter) }
			key.look.glyph = ">"
		default:
			key = b.node("android.view.ViewGroup", r)
			key.resID, key.desc = id("key"+l), l
			code := key0 + int(l[0]-'0')
			key.onTap = func() { p.keyguardKeyLocked(code) }
			digit := b.text(r, l, id("digit_text"))
			digit.look.fg, digit.look.center = colWhite, true
			key.add(digit)
		}
		key.clickable, key.focusable = true, true
		key.look.fg, key.look.center = colWhite, true
		root.add(key)
	}
	return &window{title: "NotificationShade", pkg: PkgSystemUI, root: root, modal: true, focus: true}
}

// windowTitleLocked is the title dumpsys window prints for w: the
// component for activity windows, only the package in FocusWindowOnly.
func (p *Phone) windowTitleLocked(w *window) string {
	if p.st.ext.focusStyle == FocusWindowOnly && w.act != nil {
		return w.pkg
	}
	return w.title
}

// dumpDisplayLocked is the part of `dumpsys display` tools grep for the
// screen state (mGlobalDisplayState, DisplayPowerState's mScreenState).
func (p *Phone) dumpDisplayLocked() string {
	state := "OFF"
	if p.st.awake {
		state = "ON"
	}
	w, h, d := p.sizeLocked()
	return fmt.Sprintf("DISPLAY MANAGER (dumpsys display)\n  mOnlyCode=false\n  mSafeMode=false\n  mPendingTraversal=false\n  mGlobalDisplayState=%s\n  mNextNonDefaultDisplayId=1\n\nDisplay Devices: size=1\n  DisplayDeviceInfo{\"Built-in Screen\": uniqueId=\"local:0\", %d x %d, density %d, FLAG_DEFAULT_DISPLAY, FLAG_SECURE}\n    mState=%s\n\nDisplay Power Controller:\n  mScreenState=%s\n",
		state, w, h, d, state, state)
}
