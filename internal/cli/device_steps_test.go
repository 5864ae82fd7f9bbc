package cli

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// TestDeviceStepsOnTheVirtualPhone plays the Maestro-parity device steps
// through the real adb server and checks what the phone saw.
func TestDeviceStepsOnTheVirtualPhone(t *testing.T) {
	s := simtest.Start(t)
	p := s.Phone()
	require.NoError(t, p.Files().WriteFile("/data/local/tmp/com.example.stub.apk", []byte("PK\x03\x04stub"), 0o644, time.Now()))
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "apks"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "apks", "com.example.pushed.apk"), []byte("PK\x03\x04pushed"), 0o644))
	pb := filepath.Join(dir, "device.yaml")
	require.NoError(t, os.WriteFile(pb, []byte(`name: device steps
app: com.openpocket.notes
steps:
  - install_apk: /data/local/tmp/com.example.stub.apk
  - install_apk: apks/com.example.pushed.apk        # pushed with adb sync, installed, removed
  - set_permissions: {permissions: {notifications: allow, camera: deny}}
  - open_link: {url: "notes://note?text=From%20a%20link", app: com.openpocket.notes}
  - assert_text: {id: note_input, expected: From a link}
  - tap: Save
  - assert_visible: {id: note_item, text: From a link}
  - tap: {id: note_input}
  - input_random: {kind: email, as: mail}
  - assert: mail:match("^[a-z]+@[a-z]+%.com$") ~= nil
  - hide_keyboard
  - assert_visible: {id: note_input, focused: false}
  - hide_keyboard                                   # nothing to hide: no BACK
  - assert_visible: {id: note_input}
  - set_orientation: landscape_left
  - shell: {command: settings get system user_rotation, as: rot}
  - assert: rot:match("^1") ~= nil
  - set_orientation: portrait
  - set_clipboard: "héllo"
  - launch: com.android.settings
  - assert_visible: {clickable: true, contains: [Bluetooth, {class: Switch}]}
  - assert_not_visible: {clickable: true, contains: [Bluetooth, Wi-Fi], timeout: 300ms}
  - assert_visible: {id_regex: "(wifi|bluetooth)_switch", index: 1}
  - key: Remote Dpad Center
  - key: Lock
`), 0o644))
	code, stdout, stderr := playMain(t, s.Serial(), "play", pb, "--output", t.TempDir())
	require.Equal(t, ExitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Equal(t, []string{"com.example.pushed", "com.example.stub"}, p.Installed())
	_, err := p.Files().ReadFile("/data/local/tmp/com.example.pushed.apk")
	assert.Error(t, err, "the pushed APK is removed after installing")
	assert.True(t, p.PermissionGranted("com.openpocket.notes", "android.permission.POST_NOTIFICATIONS"))
	assert.False(t, p.PermissionGranted("com.openpocket.notes", "android.permission.CAMERA"))
	assert.Contains(t, p.Notes(), "From a link")
	assert.Equal(t, "héllo", p.Clipboard())
	assert.Equal(t, []int{23, 276}, p.KeyLog()[len(p.KeyLog())-2:], "Maestro names map to DPAD_CENTER and SOFT_SLEEP")
	assert.False(t, p.Awake(), "Lock turned the screen off")

	// A step that fails on the device names the YAML line and the output.
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("name: bad\nsteps:\n  - key: Power\n  - open_link: https://example.com/nothing\n"), 0o644))
	code, stdout, _ = playMain(t, s.Serial(), "play", bad, "--output", t.TempDir())
	assert.Equal(t, ExitFailed, code)
	assert.Contains(t, stdout, "bad.yaml:4: open link https://example.com/nothing:")
	assert.Contains(t, stdout, "unable to resolve Intent")

	// A permission the app does not declare: named, with the app, in words.
	undeclared := filepath.Join(t.TempDir(), "perm.yaml")
	require.NoError(t, os.WriteFile(undeclared, []byte("name: perm\napp: com.openpocket.notes\nsteps:\n  - set_permissions: {permissions: {android.permission.READ_SMS: allow}}\n"), 0o644))
	code, stdout, _ = playMain(t, s.Serial(), "play", undeclared, "--output", t.TempDir())
	assert.Equal(t, ExitFailed, code)
	assert.Contains(t, stdout, "perm.yaml:4:")
	assert.Contains(t, stdout, "android.permission.READ_SMS is not requested by the app com.openpocket.notes")
	assert.NotContains(t, stdout, "SecurityException")

	// assert_visible with a size: the right size passes, a wrong one fails
	// naming the size seen.
	sized := filepath.Join(t.TempDir(), "sized.yaml")
	require.NoError(t, os.WriteFile(sized, []byte(`name: sized
steps:
  - launch: {app: com.openpocket.contacts, stop: true}
  - assert_visible: {text: Aaron Abbott, width: 990, height: 170, tolerance: 6}
  - scroll_until_visible: {text: Mia Morgan, speed: 90, visibility_percentage: 100, centered: true}
  - lua: |
      local el = ui.find("Mia Morgan")
      local _, h = device.size()
      if math.abs(el.center.y - h / 2) > h / 8 then error("not centered: y=" .. el.center.y .. " of " .. h) end
  - assert_visible: {text: Mia Morgan, width: 500, tolerance: 6, timeout: 300ms}
`), 0o644))
	code, stdout, _ = playMain(t, s.Serial(), "play", sized, "--output", t.TempDir())
	assert.Equal(t, ExitFailed, code)
	assert.Contains(t, stdout, "sized.yaml:10:")
	assert.Contains(t, stdout, "✓ scroll down until text=\"Mia Morgan\" is visible")
	assert.Contains(t, stdout, "is not 500xany (±6 px); saw 996x168")
}
