package android

import (
	"context"
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPermissionsGrantRevoke(t *testing.T) {
	p := New(Options{})
	mustRun(t, p, "pm grant com.openpocket.notes android.permission.POST_NOTIFICATIONS")
	assert.True(t, p.PermissionGranted(PkgNotes, "android.permission.POST_NOTIFICATIONS"))
	// A decided notification permission is not asked on launch.
	mustRun(t, p, "monkey -p com.openpocket.notes -c android.intent.category.LAUNCHER 1")
	assert.Equal(t, PkgNotes, p.CurrentPackage())
	mustRun(t, p, "pm revoke com.openpocket.notes android.permission.POST_NOTIFICATIONS")
	assert.False(t, p.PermissionGranted(PkgNotes, "android.permission.POST_NOTIFICATIONS"))

	r := run(t, p, "pm grant com.openpocket.notes android.permission.READ_SMS")
	assert.Equal(t, 255, r.code)
	assert.Contains(t, r.stderr, "has not requested permission android.permission.READ_SMS")
	r = run(t, p, "pm grant com.example.none android.permission.CAMERA")
	assert.Contains(t, r.stderr, "Unknown package: com.example.none")
}

func TestPmInstallPushedAPK(t *testing.T) {
	p := New(Options{})
	out := run(t, p, "pm install -r /data/local/tmp/com.example.stub.apk")
	assert.Equal(t, 1, out.code)
	assert.Contains(t, out.stdout, "INSTALL_FAILED_INVALID_URI")

	require.NoError(t, p.fs.WriteFile("/data/local/tmp/bad.apk", []byte("not a zip"), 0o644, time.Now()))
	assert.Contains(t, run(t, p, "pm install /data/local/tmp/bad.apk").stdout, "INSTALL_PARSE_FAILED_NOT_APK")

	require.NoError(t, p.fs.WriteFile("/data/local/tmp/com.example.stub.apk", []byte("PK\x03\x04rest"), 0o644, time.Now()))
	assert.Contains(t, mustRun(t, p, "pm install -r /data/local/tmp/com.example.stub.apk"), "Success")
	assert.Equal(t, []string{"com.example.stub"}, p.Installed())
	assert.Contains(t, mustRun(t, p, "pm list packages com.example"), "package:com.example.stub\n")
}

func TestDeepLinkAndExtras(t *testing.T) {
	p := New(Options{})
	mustRun(t, p, "pm grant com.openpocket.notes android.permission.POST_NOTIFICATIONS")
	out := mustRun(t, p, "am start -W -a android.intent.action.VIEW -d 'notes://note?text=From%20a%20link'")
	assert.Contains(t, out, "Status: ok")
	assert.Equal(t, PkgNotes, p.CurrentPackage())
	assert.Equal(t, []string{"notes://note?text=From%20a%20link"}, p.Links())
	assert.Equal(t, "From a link", p.FocusedTextOr(fieldNote))

	r := run(t, p, "am start -a android.intent.action.VIEW -d https://example.com")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "unable to resolve Intent")

	mustRun(t, p, "am start -W -a android.intent.action.MAIN -c android.intent.category.LAUNCHER -p com.openpocket.login --es user alice --ei retries 3")
	assert.Equal(t, map[string]string{"user": "alice", "retries": "3"}, p.LaunchExtras())
}

func TestAirplaneLocationKeys(t *testing.T) {
	p := New(Options{})
	mustRun(t, p, "cmd connectivity airplane-mode enable")
	assert.True(t, p.AirplaneMode())
	assert.False(t, p.WifiOn())
	assert.Equal(t, "enabled\n", mustRun(t, p, "cmd connectivity airplane-mode"))
	assert.Equal(t, "1\n", mustRun(t, p, "settings get global airplane_mode_on"))
	mustRun(t, p, "cmd connectivity airplane-mode disable")
	assert.False(t, p.AirplaneMode())
	assert.True(t, p.WifiOn(), "Wi-Fi comes back as it was")

	mustRun(t, p, "cmd location providers set-test-provider-location gps --location 52.52,13.405")
	assert.Equal(t, "52.52,13.405", p.Location())
	assert.Equal(t, 255, run(t, p, "cmd location providers set-test-provider-location gps --location 91,0").code)

	mustRun(t, p, "input keyevent KEYCODE_VOLUME_UP KEYCODE_VOLUME_UP KEYCODE_VOLUME_DOWN KEYCODE_DPAD_LEFT KEYCODE_MEDIA_PLAY_PAUSE KEYCODE_TV_INPUT_HDMI_1")
	assert.Equal(t, 1, p.Volume())
	assert.Equal(t, []int{24, 24, 25, 21, 85, 243}, p.KeyLog())
}

func TestInputMethodDumpAndBack(t *testing.T) {
	p := New(Options{})
	mustRun(t, p, "pm grant com.openpocket.notes android.permission.POST_NOTIFICATIONS")
	mustRun(t, p, "monkey -p com.openpocket.notes -c android.intent.category.LAUNCHER 1")
	assert.Contains(t, mustRun(t, p, "dumpsys input_method"), "mInputShown=false")
	p.locked(func() { p.st.focused = fieldNote })
	assert.Contains(t, mustRun(t, p, "dumpsys input_method"), "mInputShown=true")
	mustRun(t, p, "input keyevent KEYCODE_BACK")
	assert.Equal(t, PkgNotes, p.CurrentPackage(), "BACK closes the keyboard first")
	assert.Contains(t, mustRun(t, p, "dumpsys input_method"), "mInputShown=false")
}

func TestScreenrecordWritesMP4(t *testing.T) {
	p := New(Options{})
	done := make(chan result, 1)
	go func() { done <- run(t, p, "screenrecord --time-limit 30 /sdcard/rec.mp4") }()
	time.Sleep(300 * time.Millisecond)
	mustRun(t, p, "pkill -INT screenrecord")
	r := <-done
	require.Equal(t, 0, r.code, r.stderr)
	data, err := p.fs.ReadFile("/sdcard/rec.mp4")
	require.NoError(t, err)
	assert.Equal(t, "ftyp", string(data[4:8]))
	ms := mvhdDurationMs(t, data)
	assert.GreaterOrEqual(t, ms, 250)
	assert.Less(t, ms, 30000)

	// The time limit ends a recording by itself; the shell closing too.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	code := p.Shell(ctx, "screenrecord /sdcard/rec2.mp4", nil, &discard{}, &discard{})
	assert.Equal(t, 0, code)
	data, err = p.fs.ReadFile("/sdcard/rec2.mp4")
	require.NoError(t, err)
	assert.Greater(t, mvhdDurationMs(t, data), 100)
	assert.Equal(t, 2, run(t, p, "screenrecord --time-limit 500 /sdcard/x.mp4").code)
	assert.Equal(t, 1, run(t, p, "pkill screenrecord").code, "nothing to stop")
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }

// mvhdDurationMs finds moov/mvhd and returns duration/timescale in ms.
func mvhdDurationMs(t *testing.T, data []byte) int {
	t.Helper()
	for i := 0; i+8 <= len(data); {
		size := int(binary.BigEndian.Uint32(data[i:]))
		typ := string(data[i+4 : i+8])
		require.GreaterOrEqual(t, size, 8, "box %s", typ)
		if typ == "moov" {
			i += 8
			continue
		}
		if typ == "mvhd" {
			scale := binary.BigEndian.Uint32(data[i+20:])
			dur := binary.BigEndian.Uint32(data[i+24:])
			return int(uint64(dur) * 1000 / uint64(scale))
		}
		i += size
	}
	t.Fatal("no mvhd box")
	return 0
}

func TestUimodeNight(t *testing.T) {
	p := New(Options{})
	assert.Equal(t, "Night mode: no\n", mustRun(t, p, "cmd uimode night"))
	assert.Equal(t, "Night mode: yes\n", mustRun(t, p, "cmd uimode night yes"))
	assert.Equal(t, 255, run(t, p, "cmd uimode night maybe").code)
}
