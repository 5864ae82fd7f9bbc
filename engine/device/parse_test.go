package device

import (
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
)

func utf16le(s string) []byte {
	u := utf16.Encode([]rune(s))
	b := []byte{0xff, 0xfe}
	for _, c := range u {
		b = append(b, byte(c), byte(c>>8))
	}
	return b
}

func TestParseCurrentApp(t *testing.T) {
	cases := []struct {
		name string
		out  string
		keys []string
		want string
	}{
		{"android 10+ activities", "  topResumedActivity=ActivityRecord{5e2f1a u0 com.android.settings/.Settings t12}\n  ResumedActivity: ActivityRecord{5e2f1a u0 com.android.settings/.Settings t12}\n", activityKeys, "com.android.settings"},
		{"older resumed only", "    mResumedActivity: ActivityRecord{1 u0 com.example.app/com.example.app.Main t3}\n", activityKeys, "com.example.app"},
		{"focus on a system overlay falls to focused app", "  mCurrentFocus=Window{ab u0 NotificationShade}\n  mFocusedApp=ActivityRecord{cd u0 com.whatsapp/.Main t9}\n", windowKeys, "com.whatsapp"},
		{"android 11 without mCurrentFocus", "  mFocusedApp=ActivityRecord{cd u0 org.mozilla.firefox/.App t9}\n", windowKeys, "org.mozilla.firefox"},
		{"null focus, ime target names the app", "  mCurrentFocus=null\n  mFocusedApp=null\n  imeInputTarget=Window{e u0 com.openpocket.notes/com.openpocket.notes.MainActivity}\n", windowKeys, "com.openpocket.notes"},
		{"a longer key is not the key", "  topResumedActivityX=ActivityRecord{1 u0 a.b/.C t1}\n", activityKeys, ""},
		{"nothing", "no activities\n", activityKeys, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, parseCurrentApp(normalizeOutput([]byte(c.out)), c.keys))
		})
	}
}

func TestNormalizeOutputUTF16CRLF(t *testing.T) {
	raw := utf16le("  mFocusedApp=ActivityRecord{cd u0 com.vendor.app/.Main t9}\r\n")
	got := normalizeOutput(raw)
	assert.Equal(t, "  mFocusedApp=ActivityRecord{cd u0 com.vendor.app/.Main t9}\n", got)
	assert.Equal(t, "com.vendor.app", parseCurrentApp(got, windowKeys))
	assert.Equal(t, "a\nb\n", normalizeOutput([]byte("a\r\r\nb\r\n")))
}

func TestParseWMSize(t *testing.T) {
	w, h, ok := parseWMSize("WARNING: linker: permission denied\nPhysical size: 1440x3120\nOverride size: 1080x2340\n")
	assert.True(t, ok)
	assert.Equal(t, [2]int{1080, 2340}, [2]int{w, h}, "the override is what input uses")
	w, h, ok = parseWMSize("Physical size: 720x1600\n")
	assert.True(t, ok)
	assert.Equal(t, [2]int{720, 1600}, [2]int{w, h})
	_, _, ok = parseWMSize("Error: no display\n")
	assert.False(t, ok)
}

func TestParseSecure(t *testing.T) {
	out := `Window #3 Window{a u0 com.bank/com.bank.Main}:
    mAttrs={(0,0)(fillxfill) fl=LAYOUT_IN_SCREEN SECURE HARDWARE_ACCELERATED}
  Window #4 Window{b u0 com.other/com.other.Main}:
    mAttrs={(0,0)(fillxfill) fl=LAYOUT_IN_SCREEN}
`
	assert.True(t, parseSecure(out, "com.bank"))
	assert.False(t, parseSecure(out, "com.other"))
	assert.False(t, parseSecure(out, ""))
}

func TestParseLaunchablePackages(t *testing.T) {
	out := `Activity #0:
  priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false
  ActivityInfo:
    name=com.android.settings.Settings
    packageName=com.android.settings
Activity #1:
  ActivityInfo:
    name=com.openpocket.notes.MainActivity
    packageName=com.openpocket.notes
Activity #2:
    packageName=com.android.settings
`
	assert.Equal(t, []string{"com.android.settings", "com.openpocket.notes"}, parseLaunchablePackages(out))
	assert.Equal(t, []string{"com.a.b"}, parseLaunchablePackages("com.a.b/.Main\n"))
}

func TestSplitCommand(t *testing.T) {
	words, err := SplitCommand(`sh -c 'echo "a b"; ls' "x y" z\ w`)
	assert.NoError(t, err)
	assert.Equal(t, []string{"sh", "-c", `echo "a b"; ls`, "x y", "z w"}, words)
	_, err = SplitCommand(`echo 'oops`)
	assert.ErrorContains(t, err, "unterminated ' quote at column 6")
	assert.Equal(t, `sh -c 'echo "a b"; ls'`, JoinCommand([]string{"sh", "-c", `echo "a b"; ls`}))
	assert.Equal(t, `'it'\''s'`, Quote("it's"))
}

func TestEscapeInputText(t *testing.T) {
	assert.Equal(t, `hello%sworld\!%s\(1\)\&\&\$HOME`, EscapeInputText("hello world! (1)&&$HOME"))
	assert.True(t, isPlainASCII("abc 123 !?"))
	assert.False(t, isPlainASCII("café"))
	assert.False(t, isPlainASCII("a\nb"))
}

func TestTruncateMiddle(t *testing.T) {
	s := make([]byte, 10000)
	for i := range s {
		s[i] = 'a' + byte(i%26)
	}
	got := TruncateMiddle(string(s), 3000)
	assert.Len(t, []rune(got), 3000)
	assert.Equal(t, string(s[:100]), got[:100], "head kept")
	assert.Equal(t, string(s[len(s)-100:]), got[len(got)-100:], "tail kept")
	assert.Contains(t, got, "...[truncated]...")
	assert.Equal(t, "short", TruncateMiddle("short", 3000))
}

func TestPNGSize(t *testing.T) {
	hdr := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x048\x00\x00\t`")
	w, h, ok := pngSize(hdr)
	assert.True(t, ok)
	assert.Equal(t, [2]int{1080, 2400}, [2]int{w, h})
	_, _, ok = pngSize([]byte("not a png at all, really not"))
	assert.False(t, ok)
}

func TestParseGetprop(t *testing.T) {
	out := "[ro.build.version.sdk]: [34]\n[ro.product.model]: [Pixel 7 Pro]\n[empty.value]: []\nwarning: not a prop line\n[with.brackets]: [a]b]\n"
	p := parseGetprop(normalizeOutput([]byte(out)))
	assert.Equal(t, "34", p["ro.build.version.sdk"])
	assert.Equal(t, "Pixel 7 Pro", p["ro.product.model"])
	assert.Equal(t, "", p["empty.value"])
	assert.Equal(t, "a]b", p["with.brackets"])
	assert.Len(t, p, 4)
}
