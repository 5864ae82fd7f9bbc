package android

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var fsErrNotExist = fs.ErrNotExist

func decodePNG(t testing.TB, data []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	require.NoError(t, err)
	return img
}

func TestScreencapPNGAndCache(t *testing.T) {
	p := New(Options{})
	out := mustRun(t, p, "screencap -p")
	img := decodePNG(t, []byte(out))
	assert.Equal(t, image.Rect(0, 0, 1080, 2400), img.Bounds())
	assert.True(t, bytes.Equal([]byte(out), p.ScreenPNG()))

	// Cached: the very same bytes until something changes.
	first := p.ScreenPNG()
	assert.Same(t, &first[0], &p.ScreenPNG()[0])
	mustRun(t, p, "settings put global wifi_on 0") // the status bar shows Wi-Fi
	assert.False(t, bytes.Equal(first, p.ScreenPNG()))

	mustRun(t, p, "screencap -p /sdcard/shot.png")
	data, err := p.Files().ReadFile("/sdcard/shot.png")
	require.NoError(t, err)
	assert.True(t, bytes.Equal(p.ScreenPNG(), data))

	raw := mustRun(t, p, "screencap")
	require.Equal(t, 16+1080*2400*4, len(raw))
	assert.Equal(t, []byte{0x38, 0x04, 0, 0, 0x60, 0x09, 0, 0, 1, 0, 0, 0}, []byte(raw[:12]))
}

func TestUIDumpToFileAndDefaultPath(t *testing.T) {
	p := New(Options{})
	assert.Equal(t, "UI hierchary dumped to: /sdcard/window_dump.xml\n", mustRun(t, p, "uiautomator dump"))
	data, err := p.Files().ReadFile("/sdcard/window_dump.xml")
	require.NoError(t, err)
	assert.True(t, bytes.Equal(p.UIDumpXML(), data))
	assert.True(t, strings.HasPrefix(string(data), `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.android.launcher3"`))
	mustRun(t, p, "uiautomator dump /data/local/tmp/d.xml && cat /data/local/tmp/d.xml > /sdcard/copy.xml")
	copied, err := p.Files().ReadFile("/sdcard/copy.xml")
	require.NoError(t, err)
	assert.True(t, bytes.Equal(data, copied))
}

func TestDeterministicAcrossPhones(t *testing.T) {
	script := []string{
		"monkey -p com.openpocket.notes -c android.intent.category.LAUNCHER 1",
		"input keyevent KEYCODE_BACK",
		"input tap 300 320",
		"input text hello%sworld",
		"input keyevent KEYCODE_ENTER",
		"cmd clipboard set text 'ünï ✓'",
		"input tap 300 320",
		"input keyevent KEYCODE_PASTE",
	}
	a, b := New(Options{}), New(Options{})
	for _, cmd := range script {
		ra, rb := run(t, a, cmd), run(t, b, cmd)
		assert.Equal(t, ra, rb, cmd)
	}
	pa, pb := mustRun(t, a, "screencap -p"), mustRun(t, b, "screencap -p")
	assert.True(t, pa == pb, "PNG bytes differ between identical phones")
	assert.Equal(t, mustRun(t, a, "uiautomator dump /dev/tty"), mustRun(t, b, "uiautomator dump /dev/tty"))
	assert.Equal(t, mustRun(t, a, "dumpsys window windows"), mustRun(t, b, "dumpsys window windows"))
	assert.Equal(t, []string{"hello world"}, a.Notes())

	// A fresh render of the same state gives the same bytes as the cache.
	a.mu.Lock()
	a.changed()
	a.mu.Unlock()
	assert.True(t, pa == string(a.ScreenPNG()))
}

func TestLayoutOffsetShiftsAppContentOnly(t *testing.T) {
	p := New(Options{})
	before := dump(t, p)
	p.SetLayoutOffset(40, 100)
	after := dump(t, p)
	b0 := parseBounds(t, before.find(t, "notes icon", byDesc("Notes")).Bounds)
	b1 := parseBounds(t, after.find(t, "notes icon", byDesc("Notes")).Bounds)
	assert.Equal(t, [4]int{b0[0] + 40, b0[1] + 100, b0[2] + 40, b0[3] + 100}, b1)
	assert.Equal(t, before.find(t, "clock", byText("12:00")).Bounds, after.find(t, "clock", byText("12:00")).Bounds)

	// Taps follow the moved layout.
	tapNode(t, p, "notes icon", byDesc("Notes"))
	assert.Equal(t, PkgPermissionControl, p.CurrentPackage())
}

func TestResizeAndWmSizeOverride(t *testing.T) {
	p := New(Options{})
	p.Resize(720, 1600, 320)
	assert.Equal(t, "Physical size: 720x1600\n", mustRun(t, p, "wm size"))
	assert.Equal(t, "Physical density: 320\n", mustRun(t, p, "wm density"))
	assert.Equal(t, image.Rect(0, 0, 720, 1600), decodePNG(t, p.ScreenPNG()).Bounds())
	root := dump(t, p).Roots[0]
	assert.Equal(t, "[0,0][720,1600]", root.Bounds)

	mustRun(t, p, "wm size 600x1200")
	assert.Equal(t, "Physical size: 720x1600\nOverride size: 600x1200\n", mustRun(t, p, "wm size"))
	assert.Equal(t, image.Rect(0, 0, 600, 1200), decodePNG(t, p.ScreenPNG()).Bounds())
	tapNode(t, p, "settings icon", byDesc("Settings"))
	assert.Equal(t, PkgSettings, p.CurrentPackage())
	mustRun(t, p, "wm size reset")
	assert.Equal(t, "Physical size: 720x1600\n", mustRun(t, p, "wm size"))
	assert.Equal(t, 255, run(t, p, "wm size big").code)

	mustRun(t, p, "wm density 240")
	assert.Equal(t, "Physical density: 320\nOverride density: 240\n", mustRun(t, p, "wm density"))
}

func TestPermissionDialogOverAnyApp(t *testing.T) {
	p := New(Options{})
	launch(t, p, PkgSettings)
	p.ShowPermissionDialog("Contacts")
	assert.Equal(t, PkgPermissionControl, p.CurrentPackage())
	h := dump(t, p)
	assert.Equal(t, "Allow Contacts to send you notifications?", h.find(t, "msg", byID(PkgPermissionControl+":id/permission_message")).Text)
	assert.True(t, h.has(byText("Wi-Fi")), "the app stays visible below the dialog")
	tapNode(t, p, "deny", byText("Don't allow"))
	assert.Equal(t, PkgSettings, p.CurrentPackage())

	// Over the launcher too.
	mustRun(t, p, "input keyevent HOME")
	p.ShowPermissionDialog("Maps")
	mustRun(t, p, "input keyevent BACK")
	assert.Equal(t, PkgLauncher, p.CurrentPackage())
}

func TestSecureWindowIsBlackAndFlagged(t *testing.T) {
	p := New(Options{})
	launch(t, p, PkgLogin)
	p.SetSecure(PkgLogin, true)
	img := decodePNG(t, p.ScreenPNG())
	for _, pt := range []image.Point{{10, 10}, {540, 1200}, {1070, 2390}} {
		r, g, b, _ := img.At(pt.X, pt.Y).RGBA()
		assert.Equal(t, [3]uint32{0, 0, 0}, [3]uint32{r, g, b}, "pixel %v", pt)
	}
	windows := mustRun(t, p, "dumpsys window windows")
	assert.Regexp(t, `(?m)^\s+fl=.*\bSECURE\b`, windows)
	assert.Contains(t, windows, "mCurrentFocus=Window{")
	assert.Contains(t, windows, " u0 com.openpocket.login/com.openpocket.login.LoginActivity}")
	// The dump still works on secure windows, as with uiautomator on a device.
	assert.True(t, dump(t, p).has(byID(fieldUsername)))

	p.SetSecure(PkgLogin, false)
	assert.NotContains(t, mustRun(t, p, "dumpsys window windows"), "SECURE")
	r, g, b, _ := decodePNG(t, p.ScreenPNG()).At(540, 1200).RGBA()
	assert.NotEqual(t, [3]uint32{0, 0, 0}, [3]uint32{r, g, b})
}

func TestFailMonkeyAndLaunchFallbacks(t *testing.T) {
	p := New(Options{})
	p.FailMonkey(true)
	r := run(t, p, "monkey -p com.openpocket.contacts -c android.intent.category.LAUNCHER 1")
	assert.NotEqual(t, 0, r.code)
	assert.Contains(t, r.stderr, "** No activities found to run, monkey aborted.")
	assert.Equal(t, PkgLauncher, p.CurrentPackage())

	out := mustRun(t, p, "cmd package resolve-activity --brief com.openpocket.contacts")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2)
	assert.Equal(t, "Starting: Intent { cmp=com.openpocket.contacts/.ContactsActivity }\n", mustRun(t, p, "am start -n "+lines[1]))
	assert.Equal(t, PkgContacts+"/.ContactsActivity", p.CurrentActivity())

	mustRun(t, p, "am force-stop com.openpocket.contacts")
	assert.Equal(t, PkgLauncher, p.CurrentPackage())
	out = mustRun(t, p, "am start -a android.intent.action.MAIN -c android.intent.category.LAUNCHER -p com.openpocket.notes")
	assert.Equal(t, "Starting: Intent { act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] pkg=com.openpocket.notes }\n", out)
	assert.Equal(t, PkgPermissionControl, p.CurrentPackage())

	p.FailMonkey(false)
	r = run(t, p, "monkey -p com.unknown.app -c android.intent.category.LAUNCHER 1")
	assert.Equal(t, 252, r.code)
	assert.Contains(t, r.stderr, "monkey aborted")

	r = run(t, p, "am start -n com.openpocket.login/.OtpActivity")
	assert.Equal(t, 1, r.code, "non-exported activities cannot be started")
	assert.Contains(t, r.stderr, "Permission Denial")
	r = run(t, p, "am start -n com.nope/.Main")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "does not exist")
	mustRun(t, p, "am start -n com.android.settings/com.android.settings.AboutPhoneActivity")
	assert.Equal(t, PkgSettings+"/.AboutPhoneActivity", p.CurrentActivity())
}

func TestQueryActivitiesFormat(t *testing.T) {
	p := New(Options{})
	out := mustRun(t, p, "pm query-activities -a android.intent.action.MAIN -c android.intent.category.LAUNCHER")
	assert.True(t, strings.HasPrefix(out, "8 activities found:\n  Activity #0:\n"))
	for _, want := range []string{
		"      name=com.openpocket.notes.MainActivity\n      packageName=com.openpocket.notes\n",
		"      name=com.android.settings.Settings\n      packageName=com.android.settings\n",
		"      name=com.openpocket.contacts.ContactsActivity\n",
		"      name=com.openpocket.login.LoginActivity\n",
	} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, PkgLauncher, "the launcher is a HOME activity, not a LAUNCHER one")
}

func TestDumpsysActivityAndWindowFocus(t *testing.T) {
	p := New(Options{})
	launch(t, p, PkgSettings)
	acts := mustRun(t, p, "dumpsys activity activities")
	assert.Regexp(t, `topResumedActivity=ActivityRecord\{[0-9a-f]+ u0 com\.android\.settings/\.Settings t\d+\}`, acts)
	assert.Regexp(t, `(?m)^\s+ResumedActivity: ActivityRecord\{[0-9a-f]+ u0 com\.android\.settings/\.Settings t\d+\}`, acts)
	win := mustRun(t, p, "dumpsys window")
	assert.Regexp(t, `mCurrentFocus=Window\{[0-9a-f]+ u0 com\.android\.settings/com\.android\.settings\.Settings\}`, win)
	assert.Regexp(t, `mFocusedApp=ActivityRecord\{[0-9a-f]+ u0 com\.android\.settings/\.Settings t\d+\}`, win)
}

func TestPowerKeys(t *testing.T) {
	p := New(Options{})
	assert.Contains(t, mustRun(t, p, "dumpsys power"), "mWakefulness=Awake\n")
	x, y := center(t, dump(t, p).find(t, "settings icon", byDesc("Settings")))
	mustRun(t, p, "input keyevent KEYCODE_SLEEP")
	out := mustRun(t, p, "dumpsys power")
	assert.Contains(t, out, "mWakefulness=Asleep\n")
	assert.Contains(t, out, "mInteractive=false\n")
	r, g, b, _ := decodePNG(t, p.ScreenPNG()).At(540, 300).RGBA()
	assert.Equal(t, [3]uint32{0, 0, 0}, [3]uint32{r, g, b}, "screen off is black")
	r2 := run(t, p, "uiautomator dump /dev/tty")
	assert.Equal(t, 1, r2.code)
	assert.Contains(t, r2.stderr, "null root node")
	mustRun(t, p, fmt.Sprintf("input tap %d %d", x, y))
	assert.Equal(t, PkgLauncher, p.CurrentPackage(), "touches are ignored while asleep")
	mustRun(t, p, "input keyevent 224")
	assert.Contains(t, mustRun(t, p, "dumpsys power"), "mInteractive=true\n")
	mustRun(t, p, "input keyevent KEYCODE_POWER")
	assert.False(t, p.Awake())
}

func TestLongPressDeletesNote(t *testing.T) {
	p := New(Options{})
	launch(t, p, PkgNotes)
	tapNode(t, p, "allow", byText("Allow"))
	tapNode(t, p, "input", byID(fieldNote))
	mustRun(t, p, "input text keep; input keyevent ENTER; input text drop; input keyevent ENTER")
	require.Equal(t, []string{"keep", "drop"}, p.Notes())
	x, y := center(t, dump(t, p).find(t, "drop", byText("drop")))
	mustRun(t, p, fmt.Sprintf("input swipe %d %d %d %d 300", x, y, x, y)) // short: a tap, no effect
	assert.Len(t, p.Notes(), 2)
	mustRun(t, p, fmt.Sprintf("input swipe %d %d %d %d 800", x, y, x, y))
	assert.Equal(t, []string{"keep"}, p.Notes())
}

func TestResetReturnsToFirstBoot(t *testing.T) {
	p := New(Options{})
	fresh := p.ScreenPNG()
	launch(t, p, PkgSettings)
	tapNode(t, p, "wifi", byText("Wi-Fi"))
	mustRun(t, p, "echo x > /sdcard/x.txt")
	p.SetLayoutOffset(5, 5)
	p.Reset()
	assert.True(t, p.WifiOn())
	assert.Equal(t, PkgLauncher, p.CurrentPackage())
	_, err := p.Files().Stat("/sdcard/x.txt")
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.True(t, bytes.Equal(fresh, p.ScreenPNG()))
}

func TestFilesSharedWithSync(t *testing.T) {
	p := New(Options{})
	mtime := time.Date(2025, 5, 6, 7, 8, 9, 0, time.UTC)
	require.NoError(t, p.Files().WriteFile("/data/local/tmp/new/dir/f.bin", []byte{0, 1, 2}, 0o644, mtime))
	info, err := p.Files().Stat("/data/local/tmp/new/dir/f.bin")
	require.NoError(t, err)
	assert.Equal(t, int64(3), info.Size)
	assert.Equal(t, fs.FileMode(0o644), info.Mode)
	assert.True(t, mtime.Equal(info.ModTime))
	assert.Equal(t, "\x00\x01\x02", mustRun(t, p, "cat /data/local/tmp/new/dir/f.bin"))
	dir, err := p.Files().Stat("/data/local/tmp/new")
	require.NoError(t, err)
	assert.True(t, dir.Mode.IsDir())
	entries, err := p.Files().ReadDir("/sdcard")
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	assert.Equal(t, []string{"DCIM", "Download", "Pictures"}, names)
	_, err = p.Files().ReadFile("/missing")
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.Error(t, p.Files().WriteFile("/sdcard", nil, 0o644, mtime), "cannot overwrite a directory")
}

func TestConcurrentStreams(t *testing.T) {
	p := New(Options{})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 5 {
				switch (i + j) % 4 {
				case 0:
					run(t, p, "screencap -p")
				case 1:
					run(t, p, "uiautomator dump /dev/tty")
				case 2:
					run(t, p, "input tap 400 300; input keyevent HOME")
				case 3:
					run(t, p, "dumpsys window windows; echo x > /sdcard/c.txt")
				}
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, PkgLauncher, p.CurrentPackage()) // the last command of each goroutine pair
	decodePNG(t, p.ScreenPNG())
}
