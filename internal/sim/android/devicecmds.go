package android

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"
)

// Device-level commands the Maestro-parity playbook steps use: runtime
// permissions (pm grant/revoke), installing a pushed APK (pm install),
// deep links (am start -a VIEW -d URI), airplane mode (cmd connectivity),
// a test GPS provider (cmd location), the IME state (dumpsys input_method),
// volume/TV/media keys and screenrecord (recorder.go).

// extraState is the part of the phone's state these commands change.
type extraState struct {
	granted   map[string]bool   // "pkg perm" → granted
	installed []string          // packages installed with pm install
	extras    map[string]string // intent extras of the last am start, "key=value"
	airplane  bool
	location  string // "lat,lng" of the test provider, "" = none
	volume    int    // music stream volume 0..15
	keys      []int  // key codes pressed that no app handles (volume, TV, media)
	links     []string
	night     bool    // dark theme (cmd uimode night yes)
	radios    [2]bool // Wi-Fi and Bluetooth before airplane mode, restored after it
}

// runtimePermissions are the permissions the phone's apps request.
var runtimePermissions = map[string][]string{
	PkgNotes:    {"android.permission.POST_NOTIFICATIONS", "android.permission.CAMERA"},
	PkgContacts: {"android.permission.READ_CONTACTS", "android.permission.WRITE_CONTACTS"},
	PkgLogin:    {"android.permission.ACCESS_FINE_LOCATION", "android.permission.ACCESS_COARSE_LOCATION"},
}

// deepLinks maps URI schemes to the app that handles VIEW intents for them.
var deepLinks = map[string]string{"notes": PkgNotes, "contacts": PkgContacts, "login": PkgLogin}

// extraKeys are the key codes beyond the phone's own keyNames.
var extraKeys = map[string]int{
	"VOLUME_UP": 24, "VOLUME_DOWN": 25, "VOLUME_MUTE": 164, "DPAD_UP": 19, "DPAD_DOWN": 20,
	"DPAD_LEFT": 21, "DPAD_RIGHT": 22, "DPAD_CENTER": 23, "MEDIA_PLAY_PAUSE": 85, "MEDIA_STOP": 86,
	"MEDIA_NEXT": 87, "MEDIA_PREVIOUS": 88, "MEDIA_REWIND": 89, "MEDIA_FAST_FORWARD": 90,
	"BUTTON_A": 96, "BUTTON_B": 97, "TV_INPUT": 178, "TV_INPUT_HDMI_1": 243, "TV_INPUT_HDMI_2": 244,
	"TV_INPUT_HDMI_3": 245, "SOFT_SLEEP": 276, "SYSTEM_NAVIGATION_UP": 280, "SYSTEM_NAVIGATION_DOWN": 281,
}

func init() {
	for k, v := range extraKeys {
		keyNames[k] = v
	}
}

func addDeviceCommands(m map[string]command) {
	m["screenrecord"] = cmdScreenrecord
	m["pkill"] = cmdPkill
	m["appops"] = func(context.Context, *Phone, *cmdIO) int { return 0 }
}

// extraKeyLocked handles keys no app reacts to: volume changes the stream
// volume, Lock (SOFT_SLEEP) turns the screen off; every one is logged.
func (p *Phone) extraKeyLocked(code int) {
	x := &p.st.x
	switch code {
	case 24:
		x.volume = min(x.volume+1, 15)
	case 25:
		x.volume = max(x.volume-1, 0)
	case 164:
		x.volume = 0
	case 276:
		p.sleepLocked()
	}
	x.keys = append(x.keys, code)
	p.changed()
}

// KeyLog returns the volume, TV and media key codes pressed since boot.
func (p *Phone) KeyLog() (keys []int) {
	p.locked(func() { keys = append(keys, p.st.x.keys...) })
	return
}

// Volume is the music stream volume (0..15).
func (p *Phone) Volume() (v int) { p.locked(func() { v = p.st.x.volume }); return }

// AirplaneMode reports whether airplane mode is on.
func (p *Phone) AirplaneMode() (on bool) { p.locked(func() { on = p.st.x.airplane }); return }

// Location is the test provider's "lat,lng" ("" when none was set).
func (p *Phone) Location() (s string) { p.locked(func() { s = p.st.x.location }); return }

// PermissionGranted reports whether pkg holds perm.
func (p *Phone) PermissionGranted(pkg, perm string) (ok bool) {
	p.locked(func() { ok = p.st.x.granted[pkg+" "+perm] })
	return
}

// Installed lists the packages installed with pm install.
func (p *Phone) Installed() (pkgs []string) {
	p.locked(func() { pkgs = append(pkgs, p.st.x.installed...) })
	return
}

// LaunchExtras returns the intent extras of the last am start ("key=value").
func (p *Phone) LaunchExtras() (m map[string]string) {
	p.locked(func() {
		m = map[string]string{}
		for k, v := range p.st.x.extras {
			m[k] = v
		}
	})
	return
}

// Links lists the URIs opened with VIEW intents.
func (p *Phone) Links() (l []string) { p.locked(func() { l = append(l, p.st.x.links...) }); return }

// pmExtra handles pm grant, revoke and install; ok is false for other
// subcommands.
func pmExtra(p *Phone, c *cmdIO, args []string) (code int, ok bool) {
	switch args[0] {
	case "grant", "revoke":
		rest := positional(args[1:])
		if len(rest) < 2 {
			c.errorf("Error: no package or permission specified")
			return 1, true
		}
		pkg, perm := rest[0], rest[1]
		if appByPackage(pkg) == nil && !p.isInstalled(pkg) {
			c.errorf("Exception occurred while executing '%s':\njava.lang.IllegalArgumentException: Unknown package: %s", args[0], pkg)
			return 255, true
		}
		if !contains(runtimePermissions[pkg], perm) {
			c.errorf("Exception occurred while executing '%s':\njava.lang.SecurityException: Package %s has not requested permission %s", args[0], pkg, perm)
			return 255, true
		}
		p.locked(func() {
			if p.st.x.granted == nil {
				p.st.x.granted = map[string]bool{}
			}
			p.st.x.granted[pkg+" "+perm] = args[0] == "grant"
			if pkg == PkgNotes && perm == "android.permission.POST_NOTIFICATIONS" {
				// A decided permission is not asked again.
				p.st.notesPermissionAnswered = true
			}
			p.changed()
		})
		return 0, true
	case "install":
		return pmInstall(p, c, positional(args[1:])), true
	}
	return 0, false
}

// positional drops option flags (-r, -g, --user 0 …).
func positional(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "--user" || args[i] == "-i" || args[i] == "--install-location":
			i++
		case strings.HasPrefix(args[i], "-"):
		default:
			out = append(out, args[i])
		}
	}
	return out
}

// pmInstall installs a stub app named after a pushed APK file
// (/data/local/tmp/com.example.app.apk → com.example.app). The file must
// exist and start with the ZIP signature like a real APK.
func pmInstall(p *Phone, c *cmdIO, args []string) int {
	if len(args) == 0 {
		c.errorf("Error: must either specify a package size or an APK file")
		return 1
	}
	file := args[len(args)-1]
	data, err := p.fs.ReadFile(file)
	if err != nil {
		fmt.Fprintf(c.stdout, "Failure [INSTALL_FAILED_INVALID_URI: Don't have an APK at %s]\n", file)
		return 1
	}
	if len(data) < 4 || string(data[:4]) != "PK\x03\x04" {
		fmt.Fprintln(c.stdout, "Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse: not a ZIP archive]")
		return 1
	}
	pkg := strings.TrimSuffix(path.Base(file), ".apk")
	p.locked(func() {
		if !contains(p.st.x.installed, pkg) && appByPackage(pkg) == nil {
			p.st.x.installed = append(p.st.x.installed, pkg)
			sort.Strings(p.st.x.installed)
		}
	})
	fmt.Fprintln(c.stdout, "Performing Streamed Install")
	fmt.Fprintln(c.stdout, "Success")
	return 0
}

func (p *Phone) isInstalled(pkg string) (ok bool) {
	p.locked(func() { ok = contains(p.st.x.installed, pkg) })
	return
}

// installedLocked lists pm-installed stubs (pm list packages shows them).
func (p *Phone) installedPackages() []string { return p.Installed() }

// amView opens a deep link in the app registered for its scheme.
func amView(p *Phone, c *cmdIO, in intentArgs) int {
	u, err := url.Parse(in.data)
	if err != nil || u.Scheme == "" {
		c.errorf("Error: Activity not started, unable to resolve Intent { act=%s dat=%s }", in.action, in.data)
		return 1
	}
	pkg, ok := deepLinks[u.Scheme]
	if !ok || (in.pkg != "" && in.pkg != pkg) {
		fmt.Fprintf(c.stdout, "Starting: Intent { act=%s dat=%s:/... }\n", in.action, u.Scheme)
		c.errorf("Error: Activity not started, unable to resolve Intent { act=%s dat=%s:/... flg=0x10000000 }", in.action, u.Scheme)
		return 1
	}
	fmt.Fprintf(c.stdout, "Starting: Intent { act=%s dat=%s:/... pkg=%s }\n", in.action, u.Scheme, pkg)
	p.locked(func() {
		p.st.x.links = append(p.st.x.links, in.data)
		if pkg == PkgNotes && u.Host == "note" {
			// notes://note?text=… opens Notes with the text in the field.
			p.st.fields[fieldNote] = u.Query().Get("text")
		}
		p.launchLocked(pkg)
	})
	return amWaitReport(c, in, pkg+"/"+appByPackage(pkg).mainActivity)
}

// rememberExtras keeps the extras of an am start for tests to inspect.
func (p *Phone) rememberExtras(extras map[string]string) {
	p.locked(func() { p.st.x.extras = extras })
}

// connectivityCmd: cmd connectivity airplane-mode [enable|disable].
func connectivityCmd(p *Phone, c *cmdIO) int {
	args := c.args[1:]
	if len(args) == 0 || args[0] != "airplane-mode" {
		c.errorf("Unknown command: %s", strings.Join(args, " "))
		return 255
	}
	if len(args) == 1 {
		on := p.AirplaneMode()
		fmt.Fprintln(c.stdout, map[bool]string{true: "enabled", false: "disabled"}[on])
		return 0
	}
	var on bool
	switch args[1] {
	case "enable":
		on = true
	case "disable":
	default:
		c.errorf("Unsupported argument: %s", args[1])
		return 255
	}
	p.locked(func() {
		switch {
		case on && !p.st.x.airplane:
			p.st.x.radios = [2]bool{p.st.wifi, p.st.bluetooth}
			p.st.wifi, p.st.bluetooth = false, false
		case !on && p.st.x.airplane:
			// Like Android, leaving airplane mode turns the radios back on
			// as they were.
			p.st.wifi, p.st.bluetooth = p.st.x.radios[0], p.st.x.radios[1]
		}
		p.st.x.airplane = on
		p.st.settings["global/airplane_mode_on"] = boolDigit(on)
		p.changed()
	})
	return 0
}

// locationCmd: cmd location providers add-test-provider / set-test-
// provider-enabled / set-test-provider-location PROVIDER --location LAT,LNG.
func locationCmd(p *Phone, c *cmdIO) int {
	args := c.args[1:]
	if len(args) < 3 || args[0] != "providers" {
		c.errorf("Unknown command: %s", strings.Join(args, " "))
		return 255
	}
	switch args[1] {
	case "add-test-provider", "set-test-provider-enabled", "remove-test-provider":
		return 0
	case "set-test-provider-location":
		for i := 3; i+1 < len(args); i++ {
			if args[i] == "--location" {
				lat, lng, ok := strings.Cut(args[i+1], ",")
				var a, b float64
				if _, err := fmt.Sscanf(lat+" "+lng, "%g %g", &a, &b); !ok || err != nil || a < -90 || a > 90 || b < -180 || b > 180 {
					c.errorf("Exception occurred while executing 'providers':\njava.lang.IllegalArgumentException: invalid location %q", args[i+1])
					return 255
				}
				p.locked(func() { p.st.x.location = args[i+1] })
				return 0
			}
		}
		c.errorf("Exception occurred while executing 'providers':\njava.lang.IllegalArgumentException: missing --location")
		return 255
	}
	c.errorf("Unknown command: %s", args[1])
	return 255
}

// dumpInputMethodLocked is `dumpsys input_method`, trimmed to the lines
// that tell whether the soft keyboard is up.
func (p *Phone) dumpInputMethodLocked() string {
	shown := p.keyboardShownLocked()
	return fmt.Sprintf("Input method client state for display 0:\n  mCurMethodId=com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME\n"+
		"  mServedView=%s\n  mInputShown=%t mShowRequested=%t\n  mCurrentSubtype: com.google.android.inputmethod.latin en_US\n",
		map[bool]string{true: "EditText{" + p.st.focused + "}", false: "null"}[shown], shown, shown)
}

// FocusedTextOr returns the text of the field with key (fieldNote, …).
func (p *Phone) FocusedTextOr(key string) (s string) {
	p.locked(func() { s = p.st.fields[key] })
	return
}

// uimodeCmd: cmd uimode night [yes|no|auto].
func uimodeCmd(p *Phone, c *cmdIO) int {
	args := c.args[1:]
	if len(args) == 0 || args[0] != "night" {
		c.errorf("Unknown command: %s", strings.Join(args, " "))
		return 255
	}
	if len(args) > 1 {
		switch args[1] {
		case "yes", "no", "auto":
			p.locked(func() { p.st.x.night = args[1] == "yes"; p.changed() })
		default:
			c.errorf("Error: mode must be 'yes', 'no', or 'auto'")
			return 255
		}
	}
	var on bool
	p.locked(func() { on = p.st.x.night })
	fmt.Fprintf(c.stdout, "Night mode: %s\n", map[bool]string{true: "yes", false: "no"}[on])
	return 0
}

// keyboardShownLocked reports whether the soft keyboard window is up.
func (p *Phone) keyboardShownLocked() bool {
	return p.st.focused != "" && p.st.ext.softKeyboard && !p.st.ext.locked && p.st.awake
}
