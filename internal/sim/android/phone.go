package android

import (
	"fmt"
	"image"
	"strings"
	"sync"

	"github.com/openpocket/openpocket/internal/sim/adbd"
)

// Package names of the built-in apps.
const (
	PkgLauncher          = "com.android.launcher3"
	PkgSettings          = "com.android.settings"
	PkgNotes             = "com.openpocket.notes"
	PkgLogin             = "com.openpocket.login"
	PkgContacts          = "com.openpocket.contacts"
	PkgPermissionControl = "com.android.permissioncontroller"
	PkgSystemUI          = "com.android.systemui"
)

// Credentials of the Login app.
const (
	LoginPassword = "hunter2"
	DefaultOTP    = "123456"
)

// Options configure a new phone; zero fields take the defaults.
type Options struct {
	Width, Height, Density int
	Serial, Model          string
	// Characteristics is ro.build.characteristics: "phone" (default) or
	// "tv" for an android-tv target.
	Characteristics string
}

const (
	defaultWidth   = 1080
	defaultHeight  = 2400
	defaultDensity = 420
	defaultModel   = "OpenPocket Virtual Phone"
	defaultSerial  = "vphone0001"
)

// Phone is one simulated Android device. All methods are safe for concurrent
// use: one mutex guards the state, and nothing blocks while holding it.
type Phone struct {
	opts Options
	fs   *memFS

	mu      sync.Mutex
	st      state
	version uint64 // bumped on every visible change; keys the caches below

	tree        *screenTree
	treeVersion uint64
	img         *image.RGBA
	imgVersion  uint64
	png         []byte
	pngVersion  uint64
	xml         []byte
	xmlVersion  uint64

	capture ScreencapOptions // per-frame encode delays, header format (screencap.go)

	// capApps: the capability apps are installed (capapps.go).
	capApps bool

	// booting keeps sys.boot_completed at 0: an emulator whose boot never
	// completes (SetBooting).
	booting bool
}

var _ adbd.Handler = (*Phone)(nil)

// state is everything Reset puts back to first boot.
type state struct {
	physW, physH, physDensity int
	overW, overH, overDensity int // wm size / wm density overrides, 0 = none
	offsetX, offsetY          int

	tasks      []*task // z-order: the last one is in front
	nextTaskID int

	awake     bool
	wifi      bool
	bluetooth bool
	clipboard string
	focused   string            // key of the focused EditText ("" = none)
	fields    map[string]string // EditText key → text

	notes                   []string
	notesPermissionAnswered bool

	loginError, otpError bool
	loggedIn             bool
	user                 string
	otp                  string

	contactsScroll int
	notifOff       map[string]bool // apps whose notifications are turned off

	secure     map[string]bool
	failMonkey bool
	settings   map[string]string // "namespace/key" → value, besides wifi_on/bluetooth_on
	relabel    map[string]string // Relabel: shown label or id name → its new one

	ext   extState   // lock screen, keyboard, shade, build quirks (lock.go)
	media mediaState // media scanner (media.go)
	x     extraState // permissions, installs, airplane mode, location, keys (devicecmds.go)
	perm  permState  // permission dialogs answered (permdialog.go)
}

// task is an Android task: a stack of activities of one app.
type task struct {
	id   int
	pkg  string
	acts []*activity
}

// activity is one entry of a task's back stack.
type activity struct {
	pkg string
	cls string // short class name, ".MainActivity"
	// contact is the contact index shown by ContactDetailActivity.
	contact int
	// message and answersNotes describe a permission dialog.
	message      string
	answersNotes bool
	// perm is what a permission controller dialog asks for (permdialog.go).
	perm *permRequest
}

func (a *activity) component() string { return a.pkg + "/" + a.cls }

// isDialog reports whether the activity draws as a dialog over the one below.
func (a *activity) isDialog() bool { return a.pkg == PkgPermissionControl || a.pkg == PkgAndroid }

// New returns a freshly booted phone showing the launcher.
func New(opts Options) *Phone {
	if opts.Width <= 0 {
		opts.Width = defaultWidth
	}
	if opts.Height <= 0 {
		opts.Height = defaultHeight
	}
	if opts.Density <= 0 {
		opts.Density = defaultDensity
	}
	if opts.Model == "" {
		opts.Model = defaultModel
	}
	if opts.Serial == "" {
		opts.Serial = defaultSerial
	}
	p := &Phone{opts: opts, fs: newMemFS()}
	p.st = p.bootState()
	p.version = 1
	return p
}

func (p *Phone) bootState() state {
	st := state{
		physW: p.opts.Width, physH: p.opts.Height, physDensity: p.opts.Density,
		nextTaskID: 12,
		awake:      true,
		wifi:       true,
		fields:     map[string]string{},
		otp:        DefaultOTP,
		secure:     map[string]bool{},
		settings:   map[string]string{},
		ext:        newExtState(),
	}
	st.tasks = []*task{{id: 1, pkg: PkgLauncher, acts: []*activity{{pkg: PkgLauncher, cls: ".Launcher"}}}}
	return st
}

// changed invalidates every cached rendering; call with p.mu held.
func (p *Phone) changed() { p.version++ }

// Reset puts the phone back to its first-boot state, files included.
func (p *Phone) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.st = p.bootState()
	p.fs.reset()
	p.changed()
}

// Banner is the CNXN payload advertising the device.
func (p *Phone) Banner() string {
	return "device::ro.product.name=openpocket_vphone;ro.product.model=" +
		strings.ReplaceAll(p.opts.Model, " ", "_") +
		";ro.product.device=vphone;features=shell_v2,cmd,stat_v2"
}

// Files is the device file system, shared by sync: and the shell.
func (p *Phone) Files() adbd.FileSystem { return p.fs }

// SetBooting makes the phone report a boot in progress (sys.boot_completed
// 0) or completed.
func (p *Phone) SetBooting(on bool) { p.locked(func() { p.booting = on }) }

// Serial is the device serial number (ro.serialno).
func (p *Phone) Serial() string { return p.opts.Serial }

func (p *Phone) locked(f func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f()
}

// WifiOn reports the Wi-Fi switch.
func (p *Phone) WifiOn() (on bool) { p.locked(func() { on = p.st.wifi }); return }

// BluetoothOn reports the Bluetooth switch.
func (p *Phone) BluetoothOn() (on bool) { p.locked(func() { on = p.st.bluetooth }); return }

// Notes returns the saved notes, oldest first.
func (p *Phone) Notes() (notes []string) {
	p.locked(func() { notes = append([]string(nil), p.st.notes...) })
	return
}

// LoggedIn reports whether the Login app reached its home screen.
func (p *Phone) LoggedIn() (in bool) { p.locked(func() { in = p.st.loggedIn }); return }

// LoggedInUser is the user name of the logged-in user ("" when logged out).
func (p *Phone) LoggedInUser() (user string) {
	p.locked(func() {
		if p.st.loggedIn {
			user = p.st.user
		}
	})
	return
}

// CurrentPackage is the package of the resumed (top) activity.
func (p *Phone) CurrentPackage() (pkg string) { p.locked(func() { pkg = p.topLocked().pkg }); return }

// CurrentActivity is the resumed activity as a short component,
// "com.openpocket.notes/.MainActivity".
func (p *Phone) CurrentActivity() (c string) {
	p.locked(func() { c = p.topLocked().component() })
	return
}

// Clipboard is the primary clip's text.
func (p *Phone) Clipboard() (s string) { p.locked(func() { s = p.st.clipboard }); return }

// FocusedText is the text of the focused EditText ("" when none is focused).
func (p *Phone) FocusedText() (s string) {
	p.locked(func() {
		if p.st.focused != "" {
			s = p.st.fields[p.st.focused]
		}
	})
	return
}

// Awake reports whether the screen is on.
func (p *Phone) Awake() (on bool) { p.locked(func() { on = p.st.awake }); return }

// SetOTP changes the one-time code the Login app accepts.
func (p *Phone) SetOTP(code string) { p.locked(func() { p.st.otp = code }) }

// SetLayoutOffset shifts all app content (not the system bars) by dx, dy
// pixels, as a different layout or a misaligned screenshot would.
func (p *Phone) SetLayoutOffset(dx, dy int) {
	p.locked(func() {
		p.st.offsetX, p.st.offsetY = dx, dy
		p.changed()
	})
}

// Resize turns the phone into a device with another physical screen; it
// clears any wm size/density override. Non-positive values are ignored.
func (p *Phone) Resize(w, h, density int) {
	if w <= 0 || h <= 0 || density <= 0 {
		return
	}
	p.locked(func() {
		p.st.physW, p.st.physH, p.st.physDensity = w, h, density
		p.st.overW, p.st.overH, p.st.overDensity = 0, 0, 0
		p.st.contactsScroll = 0
		p.changed()
	})
}

// ShowPermissionDialog pops up a runtime permission dialog over whatever is
// on screen, as an app in the background might.
func (p *Phone) ShowPermissionDialog(appLabel string) {
	p.locked(func() {
		front := p.frontLocked()
		front.acts = append(front.acts, &activity{
			pkg: PkgPermissionControl, cls: ".permission.ui.GrantPermissionsActivity",
			message: fmt.Sprintf("Allow %s to send you notifications?", appLabel),
		})
		p.st.focused = ""
		p.changed()
	})
}

// SetSecure sets or clears FLAG_SECURE on pkg's windows: its screenshots are
// black and dumpsys window lists the SECURE flag.
func (p *Phone) SetSecure(pkg string, on bool) {
	p.locked(func() {
		if on {
			p.st.secure[pkg] = true
		} else {
			delete(p.st.secure, pkg)
		}
		p.changed()
	})
}

// FailMonkey makes `monkey` report that it found no activities, to exercise
// launch fallbacks.
func (p *Phone) FailMonkey(on bool) { p.locked(func() { p.st.failMonkey = on }) }

// size returns the logical screen size and density (overrides applied).
func (p *Phone) sizeLocked() (w, h, density int) {
	w, h, density = p.st.physW, p.st.physH, p.st.physDensity
	if p.st.overW > 0 {
		w, h = p.st.overW, p.st.overH
	}
	if p.st.overDensity > 0 {
		density = p.st.overDensity
	}
	return
}

func (p *Phone) frontLocked() *task { return p.st.tasks[len(p.st.tasks)-1] }

func (p *Phone) topLocked() *activity {
	t := p.frontLocked()
	return t.acts[len(t.acts)-1]
}

func (p *Phone) findTaskLocked(pkg string) int {
	for i, t := range p.st.tasks {
		if t.pkg == pkg {
			return i
		}
	}
	return -1
}

func (p *Phone) bringToFrontLocked(i int) {
	t := p.st.tasks[i]
	p.st.tasks = append(append(p.st.tasks[:i:i], p.st.tasks[i+1:]...), t)
}

// goHomeLocked brings the launcher task to the front (KEYCODE_HOME).
func (p *Phone) goHomeLocked() {
	p.bringToFrontLocked(p.findTaskLocked(PkgLauncher))
	p.st.focused = ""
	p.st.ext.openFolder = ""
	p.changed()
}

// launchLocked starts pkg's launcher activity, or brings its task to the
// front when it is already running. It reports false for unknown packages.
func (p *Phone) launchLocked(pkg string) bool {
	a := appByPackage(pkg)
	if a == nil || !a.launchable {
		if pkg == PkgLauncher {
			p.goHomeLocked()
			return true
		}
		return false
	}
	if i := p.findTaskLocked(pkg); i >= 0 {
		p.bringToFrontLocked(i)
	} else {
		root := &activity{pkg: pkg, cls: a.mainActivity}
		if pkg == PkgLogin && p.st.loggedIn {
			root.cls = ".HomeActivity"
		}
		t := &task{id: p.st.nextTaskID, pkg: pkg, acts: []*activity{root}}
		p.st.nextTaskID++
		if pkg == PkgNotes && !p.st.notesPermissionAnswered {
			d := p.permDialogLocked(PkgNotes, GroupNotifications)
			d.answersNotes = true
			t.acts = append(t.acts, d)
		}
		t.acts = append(t.acts, p.launchPromptsLocked(pkg)...)
		p.st.tasks = append(p.st.tasks, t)
	}
	p.st.focused = ""
	p.changed()
	return true
}

// startActivityLocked starts an explicit component (am start -n). Only the
// exported activities can be started from the shell.
func (p *Phone) startActivityLocked(pkg, cls string) error {
	a := appByPackage(pkg)
	if a == nil || !a.hasActivity(cls) {
		return fmt.Errorf("Error type 3\nError: Activity class {%s/%s} does not exist.", pkg, expandClass(pkg, cls))
	}
	if cls == a.mainActivity {
		p.launchLocked(pkg)
		return nil
	}
	if !a.isExported(cls) {
		return fmt.Errorf("Security exception: Permission Denial: starting Intent { flg=0x10000000 cmp=%s/%s } from null (pid=1, uid=2000) not exported from uid 10100", pkg, cls)
	}
	p.pushLocked(&activity{pkg: pkg, cls: cls})
	return nil
}

// pushLocked starts an activity on top of the front task (or a new task
// when the front task belongs to another app).
func (p *Phone) pushLocked(act *activity) {
	if i := p.findTaskLocked(act.pkg); i >= 0 {
		p.bringToFrontLocked(i)
	} else {
		p.st.tasks = append(p.st.tasks, &task{id: p.st.nextTaskID, pkg: act.pkg})
		p.st.nextTaskID++
	}
	front := p.frontLocked()
	front.acts = append(front.acts, act)
	p.st.focused = ""
	p.changed()
}

// replaceTopLocked swaps the top activity for act (finish() + startActivity()).
func (p *Phone) replaceTopLocked(act *activity) {
	front := p.frontLocked()
	front.acts[len(front.acts)-1] = act
	p.st.focused = ""
	p.changed()
}

// backLocked handles KEYCODE_BACK: dialogs first, then the activity stack;
// leaving the root of a task returns to the launcher.
func (p *Phone) backLocked() {
	if p.closeFolderLocked() {
		return
	}
	front := p.frontLocked()
	if p.keyboardShownLocked() && !front.acts[len(front.acts)-1].isDialog() {
		// BACK first closes the soft keyboard of the focused field — unless a
		// dialog over it (the keyboard picker) holds input focus, which BACK
		// dismisses as on a real phone.
		p.st.focused = ""
		p.changed()
		return
	}
	if front.pkg == PkgLauncher && len(front.acts) == 1 {
		return
	}
	top := front.acts[len(front.acts)-1]
	if top.answersNotes {
		p.st.notesPermissionAnswered = true
	}
	if r := top.perm; r != nil && !r.answered {
		p.recordPermissionLocked(r, AnswerDeny) // BACK denies, as on a phone
	}
	front.acts = front.acts[:len(front.acts)-1]
	if len(front.acts) == 0 {
		p.endOneTimeLocked(front.pkg)
		p.st.tasks = p.st.tasks[:len(p.st.tasks)-1]
		p.bringToFrontLocked(p.findTaskLocked(PkgLauncher))
	}
	if !top.isDialog() {
		// A dismissed dialog hands focus back to the field beneath it.
		p.st.focused = ""
	}
	p.changed()
}

// forceStopLocked kills pkg: its task and unsaved input are gone.
func (p *Phone) forceStopLocked(pkg string) {
	if pkg == PkgLauncher {
		return
	}
	if i := p.findTaskLocked(pkg); i >= 0 {
		p.st.tasks = append(p.st.tasks[:i:i], p.st.tasks[i+1:]...)
	}
	p.endOneTimeLocked(pkg)
	prefix := fieldPrefix(pkg)
	for _, key := range fieldKeys {
		if strings.HasPrefix(key, prefix) {
			delete(p.st.fields, key)
			if p.st.focused == key {
				p.st.focused = ""
			}
		}
	}
	switch pkg {
	case PkgLogin:
		p.st.loginError, p.st.otpError = false, false
	case PkgContacts:
		p.st.contactsScroll = 0
	}
	p.changed()
}

// clearLocked is `pm clear`: force-stop plus the app's saved data.
func (p *Phone) clearLocked(pkg string) {
	p.forceStopLocked(pkg)
	switch pkg {
	case PkgNotes:
		p.st.notes = nil
		p.st.notesPermissionAnswered = false
	case PkgLogin:
		p.st.loggedIn, p.st.user = false, ""
	}
	p.changed()
}
