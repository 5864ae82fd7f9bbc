package android

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/openpocket/openpocket/internal/sim/adbd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var _ adbd.Handler = (*Phone)(nil)

func TestBannerUsesModelWithUnderscores(t *testing.T) {
	p := New(Options{Model: "Pixel Test 8"})
	assert.Equal(t, "device::ro.product.name=openpocket_vphone;ro.product.model=Pixel_Test_8;ro.product.device=vphone;features=shell_v2,cmd,stat_v2", p.Banner())
}

func TestBootShowsLauncherWithIcons(t *testing.T) {
	p := New(Options{})
	assert.Equal(t, PkgLauncher, p.CurrentPackage())
	assert.Equal(t, PkgLauncher+"/.Launcher", p.CurrentActivity())
	h := dump(t, p)
	assert.Equal(t, "0", h.Rotation)
	for _, label := range []string{"Settings", "Notes", "Login", "Contacts"} {
		icon := h.find(t, label, byDesc(label))
		assert.Equal(t, "true", icon.Clickable, label)
		require.Len(t, icon.Children, 2, label)
		assert.Equal(t, label, icon.Children[1].Text)
	}
	assert.True(t, h.has(func(n xmlNode) bool { return n.Package == PkgSystemUI && n.Text == "12:00" }), "status bar clock")
	assert.True(t, h.has(func(n xmlNode) bool { return n.Package == PkgSystemUI && n.Desc == "Back" }), "nav bar")
}

func TestNotesFirstLaunchPermissionThenSave(t *testing.T) {
	p := New(Options{})
	tapNode(t, p, "Notes icon", byDesc("Notes"))
	assert.Equal(t, PkgPermissionControl, p.CurrentPackage())
	h := dump(t, p)
	msg := h.find(t, "permission message", byID(PkgPermissionControl+":id/permission_message"))
	assert.Equal(t, "Allow Notes to send you notifications?", msg.Text)
	h.find(t, "deny", byID(PkgPermissionControl+":id/permission_deny_button"))

	// The dialog is modal: tapping the Notes input beneath it does nothing.
	input := h.find(t, "note input", byID(fieldNote))
	x, y := center(t, input)
	mustRun(t, p, fmt.Sprintf("input tap %d %d", x, y))
	assert.Equal(t, PkgPermissionControl, p.CurrentPackage())

	tapNode(t, p, "allow", byText("Allow"))
	assert.Equal(t, PkgNotes+"/.MainActivity", p.CurrentActivity())

	tapNode(t, p, "note input", byID(fieldNote))
	assert.Equal(t, "true", dump(t, p).find(t, "note input", byID(fieldNote)).Focused)
	mustRun(t, p, `input text 'Buy%smilk'`)
	assert.Equal(t, "Buy milk", p.FocusedText())
	tapNode(t, p, "save", byID(PkgNotes+":id/save"))
	mustRun(t, p, "input text second")
	mustRun(t, p, "input keyevent KEYCODE_ENTER")
	assert.Equal(t, []string{"Buy milk", "second"}, p.Notes())
	assert.Equal(t, "", p.FocusedText(), "saving clears the field")

	var items []string
	for _, n := range dump(t, p).all() {
		if n.ResourceID == PkgNotes+":id/note_item" {
			items = append(items, n.Text)
		}
	}
	assert.Equal(t, []string{"Buy milk", "second"}, items)

	// An empty note is not saved.
	tapNode(t, p, "save", byID(PkgNotes+":id/save"))
	assert.Len(t, p.Notes(), 2)

	// Second launch: no dialog any more, the task comes back as it was.
	mustRun(t, p, "input keyevent KEYCODE_HOME")
	assert.Equal(t, PkgLauncher, p.CurrentPackage())
	launch(t, p, PkgNotes)
	assert.Equal(t, PkgNotes, p.CurrentPackage())

	// pm clear wipes notes and brings the dialog back.
	assert.Equal(t, "Success\n", mustRun(t, p, "pm clear "+PkgNotes))
	assert.Empty(t, p.Notes())
	launch(t, p, PkgNotes)
	assert.Equal(t, PkgPermissionControl, p.CurrentPackage())
}

func TestBackDismissesDialogThenLeavesApp(t *testing.T) {
	p := New(Options{})
	launch(t, p, PkgNotes)
	mustRun(t, p, "input keyevent 4")
	assert.Equal(t, PkgNotes, p.CurrentPackage())
	mustRun(t, p, "input keyevent BACK")
	assert.Equal(t, PkgLauncher, p.CurrentPackage())
	mustRun(t, p, "input keyevent KEYCODE_BACK") // back on home does nothing
	assert.Equal(t, PkgLauncher, p.CurrentPackage())
	launch(t, p, PkgSettings)
	mustRun(t, p, "input keyevent 3") // numeric KEYCODE_HOME
	assert.Equal(t, PkgLauncher, p.CurrentPackage())
	launch(t, p, PkgNotes)
	assert.Equal(t, PkgNotes, p.CurrentPackage(), "dismissing with BACK answers the dialog")
}

func TestNavBarButtonsAct(t *testing.T) {
	p := New(Options{})
	launch(t, p, PkgSettings)
	tapNode(t, p, "about", byText("About phone"))
	assert.Equal(t, PkgSettings+"/.AboutPhoneActivity", p.CurrentActivity())
	tapNode(t, p, "nav back", byDesc("Back"))
	assert.Equal(t, PkgSettings+"/.Settings", p.CurrentActivity())
	tapNode(t, p, "nav home", byDesc("Home"))
	assert.Equal(t, PkgLauncher, p.CurrentPackage())
}

func TestSettingsTogglesAndAbout(t *testing.T) {
	p := New(Options{Model: "Test Model"})
	tapNode(t, p, "Settings icon", byDesc("Settings"))
	assert.Equal(t, PkgSettings+"/.Settings", p.CurrentActivity())
	require.True(t, p.WifiOn())
	require.False(t, p.BluetoothOn())
	h := dump(t, p)
	assert.Equal(t, "true", h.find(t, "wifi switch", byID(PkgSettings+":id/wifi_switch")).Checked)
	assert.Equal(t, "false", h.find(t, "bt switch", byID(PkgSettings+":id/bluetooth_switch")).Checked)

	tapNode(t, p, "Wi-Fi row", byText("Wi-Fi"))
	assert.False(t, p.WifiOn())
	assert.Equal(t, "0\n", mustRun(t, p, "settings get global wifi_on"))
	assert.Equal(t, "false", dump(t, p).find(t, "wifi switch", byID(PkgSettings+":id/wifi_switch")).Checked)

	tapNode(t, p, "bt switch", byID(PkgSettings+":id/bluetooth_switch"))
	assert.True(t, p.BluetoothOn())
	assert.Equal(t, "1\n", mustRun(t, p, "settings get global bluetooth_on"))

	mustRun(t, p, "settings put global wifi_on 1")
	assert.True(t, p.WifiOn())
	assert.Equal(t, "true", dump(t, p).find(t, "wifi switch", byID(PkgSettings+":id/wifi_switch")).Checked)

	assert.Equal(t, "null\n", mustRun(t, p, "settings get system no_such_key"))
	mustRun(t, p, "settings put system font_scale 1.5")
	assert.Equal(t, "1.5\n", mustRun(t, p, "settings get system font_scale"))
	assert.NotEqual(t, 0, run(t, p, "settings put global wifi_on maybe").code)

	tapNode(t, p, "about", byText("About phone"))
	h = dump(t, p)
	assert.True(t, h.has(byText("Test Model")))
	assert.True(t, h.has(byText("Android version")))
	assert.True(t, h.has(byText("14")))
	assert.True(t, h.has(byText("Build number")))
}

func TestLoginFlowWithOTP(t *testing.T) {
	p := New(Options{})
	launch(t, p, PkgLogin)
	assert.Equal(t, PkgLogin+"/.LoginActivity", p.CurrentActivity())
	h := dump(t, p)
	login := h.find(t, "login button", byID(PkgLogin+":id/login"))
	assert.Equal(t, "false", login.Enabled, "disabled until a user name is typed")
	assert.Equal(t, "Password", h.find(t, "password", byID(fieldPassword)).Hint)
	assert.Equal(t, "true", h.find(t, "password", byID(fieldPassword)).Password)

	// Disabled elements ignore taps.
	tapNode(t, p, "login button", byID(PkgLogin+":id/login"))
	assert.Equal(t, PkgLogin+"/.LoginActivity", p.CurrentActivity())

	tapNode(t, p, "username", byID(fieldUsername))
	mustRun(t, p, "input text alice")
	tapNode(t, p, "password", byID(fieldPassword))
	mustRun(t, p, "input text wrong")
	assert.Equal(t, "•••••", dump(t, p).find(t, "password", byID(fieldPassword)).Text)
	tapNode(t, p, "login button", byID(PkgLogin+":id/login"))
	assert.Equal(t, "Wrong password", dump(t, p).find(t, "error", byID(PkgLogin+":id/error")).Text)
	assert.Equal(t, PkgLogin+"/.LoginActivity", p.CurrentActivity())

	for range 5 {
		mustRun(t, p, "input keyevent KEYCODE_DEL")
	}
	mustRun(t, p, "input text "+LoginPassword)
	tapNode(t, p, "login button", byID(PkgLogin+":id/login"))
	assert.Equal(t, PkgLogin+"/.OtpActivity", p.CurrentActivity())
	assert.True(t, dump(t, p).has(byText("Enter the 6-digit code")))

	p.SetOTP("654321")
	tapNode(t, p, "otp", byID(fieldOTP))
	mustRun(t, p, "input text 123456")
	tapNode(t, p, "verify", byID(PkgLogin+":id/verify"))
	assert.False(t, p.LoggedIn())
	assert.Equal(t, "Wrong code", dump(t, p).find(t, "error", byID(PkgLogin+":id/error")).Text)

	for range 6 {
		mustRun(t, p, "input keyevent 67")
	}
	mustRun(t, p, "input keyevent KEYCODE_6 KEYCODE_5 KEYCODE_4 KEYCODE_3 KEYCODE_2 KEYCODE_1")
	assert.Equal(t, "654321", p.FocusedText())
	tapNode(t, p, "verify", byID(PkgLogin+":id/verify"))

	assert.True(t, p.LoggedIn())
	assert.Equal(t, "alice", p.LoggedInUser())
	assert.Equal(t, PkgLogin+"/.HomeActivity", p.CurrentActivity())
	assert.Equal(t, "Welcome, alice", dump(t, p).find(t, "welcome", byID(PkgLogin+":id/welcome")).Text)

	// Back from home leaves the app; relaunching stays logged in.
	mustRun(t, p, "input keyevent KEYCODE_BACK")
	assert.Equal(t, PkgLauncher, p.CurrentPackage())
	launch(t, p, PkgLogin)
	assert.Equal(t, PkgLogin+"/.HomeActivity", p.CurrentActivity())

	tapNode(t, p, "logout", byID(PkgLogin+":id/logout"))
	assert.False(t, p.LoggedIn())
	assert.Equal(t, PkgLogin+"/.LoginActivity", p.CurrentActivity())
}

func TestContactsScrollReachesZoeAndOpensDetail(t *testing.T) {
	p := New(Options{})
	launch(t, p, PkgContacts)
	h := dump(t, p)
	list := h.find(t, "list", byID(PkgContacts+":id/list"))
	assert.Equal(t, "true", list.Scrollable)
	assert.True(t, h.has(byText("Aaron Abbott")))
	assert.False(t, h.has(byText("Zoe Zimmerman")), "only visible rows are dumped")
	visible := len(list.Children)
	assert.Greater(t, visible, 5)
	assert.Less(t, visible, len(contactNames))

	lb := parseBounds(t, list.Bounds)
	x := (lb[0] + lb[2]) / 2
	swipeUp := fmt.Sprintf("input swipe %d %d %d %d 300", x, lb[3]-50, x, lb[1]+50)
	// Swipe until the list stops moving: the end is clamped.
	clamped := false
	for i := 0; i < 30 && !clamped; i++ {
		before := p.ScreenPNG()
		mustRun(t, p, swipeUp)
		clamped = bytes.Equal(before, p.ScreenPNG())
	}
	require.True(t, clamped, "the list never stopped scrolling")
	last := dump(t, p).find(t, "list", byID(PkgContacts+":id/list")).Children
	require.NotEmpty(t, last)
	assert.Equal(t, "Zoe Zimmerman", last[len(last)-1].Children[0].Text, "the end of the list is the last contact")

	// Row bounds stay inside the list viewport.
	for _, row := range dump(t, p).find(t, "list", byID(PkgContacts+":id/list")).Children {
		b := parseBounds(t, row.Bounds)
		assert.GreaterOrEqual(t, b[1], lb[1])
		assert.LessOrEqual(t, b[3], lb[3])
	}

	tapNode(t, p, "zoe", byText("Zoe Zimmerman"))
	assert.Equal(t, PkgContacts+"/.ContactDetailActivity", p.CurrentActivity())
	d := dump(t, p)
	assert.Equal(t, "Zoe Zimmerman", d.find(t, "name", byID(PkgContacts+":id/contact_name")).Text)
	assert.Equal(t, contactPhone(len(contactNames)-1), d.find(t, "phone", byID(PkgContacts+":id/contact_phone")).Text)

	mustRun(t, p, "input keyevent KEYCODE_BACK")
	assert.Equal(t, PkgContacts+"/.ContactsActivity", p.CurrentActivity())
	assert.True(t, dump(t, p).has(byText("Zoe Zimmerman")), "scroll position survives back")

	swipeDown := fmt.Sprintf("input swipe %d %d %d %d", x, lb[1]+50, x, lb[3]-50)
	for range 20 {
		mustRun(t, p, swipeDown)
	}
	assert.True(t, dump(t, p).has(byText("Aaron Abbott")))
}

func TestContactNamesAreSortedAndBounded(t *testing.T) {
	require.Len(t, contactNames, 60)
	assert.Equal(t, "Aaron Abbott", contactNames[0])
	assert.Equal(t, "Zoe Zimmerman", contactNames[59])
	for i := 1; i < len(contactNames); i++ {
		assert.Less(t, contactNames[i-1], contactNames[i])
	}
}

func TestNonASCIIRoundTripsThroughClipboardPaste(t *testing.T) {
	const text = "日本語 ✓ café"
	p := New(Options{})
	launch(t, p, PkgNotes)
	mustRun(t, p, "input keyevent KEYCODE_BACK") // dismiss the permission dialog
	tapNode(t, p, "note input", byID(fieldNote))

	r := run(t, p, "input text 'café'")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "Exception occurred while executing 'text'")
	assert.Equal(t, "", p.FocusedText(), "a failed input text types nothing")

	mustRun(t, p, "cmd clipboard set text '"+text+"'")
	assert.Equal(t, text, p.Clipboard())
	assert.Equal(t, text+"\n", mustRun(t, p, "cmd clipboard get text"))
	mustRun(t, p, "input keyevent KEYCODE_PASTE")
	assert.Equal(t, text, p.FocusedText())
	assert.Equal(t, text, dump(t, p).find(t, "note input", byID(fieldNote)).Text)
	tapNode(t, p, "save", byID(PkgNotes+":id/save"))
	assert.Equal(t, []string{text}, p.Notes())
	// Unknown glyphs still render (as boxes) without breaking the PNG.
	assert.NotEmpty(t, p.ScreenPNG())
}

func TestXMLEscapingRoundTrips(t *testing.T) {
	const tricky = `a<b>&"c" 'd'`
	p := New(Options{})
	launch(t, p, PkgLogin)
	tapNode(t, p, "username", byID(fieldUsername))
	mustRun(t, p, `cmd clipboard set text "`+"a<b>&\\\"c\\\" 'd'"+`"`)
	require.Equal(t, tricky, p.Clipboard())
	mustRun(t, p, "input keyevent KEYCODE_PASTE")
	assert.Equal(t, tricky, dump(t, p).find(t, "username", byID(fieldUsername)).Text)
}
