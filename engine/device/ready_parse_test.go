package device

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The focus and top-activity forms real builds print besides the ones the
// activity dump names.
func TestParseCurrentAppWindowOnlyAndTopForms(t *testing.T) {
	sony := "  mCurrentFocus=Window{c52eaa8 u0 com.sony.dtv.sonysystemservice}\n  mFocusedApp=null\n"
	assert.Equal(t, "com.sony.dtv.sonysystemservice", parseCurrentApp(sony, windowKeys))
	overlay := "  mCurrentFocus=Window{ab u0 NotificationShade}\n"
	assert.Equal(t, "", parseCurrentApp(overlay, windowKeys), "a system window title is not a package")
	both := "  mCurrentFocus=Window{c52eaa8 u0 com.vendor.popup}\n  mFocusedApp=ActivityRecord{cd u0 com.whatsapp/.Main t9}\n"
	assert.Equal(t, "com.whatsapp", parseCurrentApp(both, windowKeys), "a component under any key beats a bare window title")

	top := "TASK com.android.launcher3 id=1 userId=0\n  ACTIVITY com.android.launcher3/.Launcher 1a2b pid=4001\nTASK com.twitter.android id=40 userId=0\n  ACTIVITY com.twitter.android/.StartActivity 5a8ae7c pid=4242\n"
	assert.Equal(t, "com.twitter.android", parseTopActivity(top), "the task in front is printed last")
	assert.Equal(t, "", parseTopActivity("ACTIVITYX a.b/.C\n"))
}

func TestWindowFlagsSecureForms(t *testing.T) {
	for line, want := range map[string]bool{
		"fl=LAYOUT_IN_SCREEN SECURE HARDWARE_ACCELERATED}":                 true,
		"mAttrs={(0,0)(fillxfill) flags=FLAG_SECURE FLAG_LAYOUT_IN_SCREEN": true,
		"mAttrs={(0,0)(fillxfill) ty=1 fl=#81812100":                       true, // 0x2000 set
		"mAttrs={(0,0)(fillxfill) ty=1 fl=#81810100":                       false,
		"fl=LAYOUT_IN_SCREEN HARDWARE_ACCELERATED":                         false,
		"title=SECURE settings":                                            false,
	} {
		assert.Equal(t, want, windowFlagsSecure(line), line)
	}
}

func TestParsePowerStateAcrossVersions(t *testing.T) {
	cases := []struct {
		name                string
		out                 string
		awake, locked, know bool
	}{
		{"android 5 lockscreen", "  mWakefulness=Awake\n    mShowingLockscreen=true mShowingDream=false mDreamingLockscreen=true\n", true, true, true},
		{"android 7 status bar keyguard", "  mWakefulness=Asleep\n    mStatusBar=Window{1 u0 StatusBar} isStatusBarKeyguard=true\n", false, true, true},
		{"android 14 delegate section", "  mWakefulness=Awake\n    KeyguardServiceDelegate\n      showing=true\n      secure=true\n    KeyguardStateMonitor\n", true, true, true},
		{"android 14 unlocked", "  mWakefulness=Awake\n  mInteractive=true\n    KeyguardServiceDelegate\n      showing=false\n", true, false, true},
		{"showing outside the delegate is not the keyguard", "  mWakefulness=Awake\n  Dialog showing=true\n", true, false, false},
		{"keyguard controller", "  mInteractive=false\n  KeyguardController:\n    mKeyguardShowing=true\n", false, true, true},
		{"only the display state", "Display Power: state=ON\n", true, false, false},
		{"only dumpsys display", "  mScreenState=OFF\n", false, false, false},
		{"dozing", "  mWakefulness=Dozing\n  mInteractive=false\n", false, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := parsePowerState(c.out)
			assert.Equal(t, [3]bool{c.awake, c.locked, c.know}, [3]bool{st.Awake, st.Locked, st.KeyguardKnown})
		})
	}
}

func TestJoinShellWordsLikeADB(t *testing.T) {
	for _, c := range []struct {
		words []string
		want  string
	}{
		{[]string{"echo", "a", "&&", "echo", "b"}, "echo a && echo b"},
		{[]string{"ls", "/sdcard", "|", "grep", "-c", "x", ">", "/sdcard/n"}, "ls /sdcard | grep -c x > /sdcard/n"},
		{[]string{"input", "text", "hello world"}, "input text hello world"}, // adb does not re-quote either
		{[]string{"sh", "-c", "echo a && echo b"}, "sh -c 'echo a && echo b'"},
		{[]string{"sh", "-c"}, "sh -c"},
		{[]string{"su", "-c", "ls /data | wc -l"}, "su -c 'ls /data | wc -l'"},
	} {
		assert.Equal(t, c.want, JoinShellWords(c.words))
	}
}
