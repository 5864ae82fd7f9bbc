package android

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const pc = PkgPermissionControl + ":id/"

// The capability apps are installed only on request: the default phone's
// package list stays as it was.
func TestCapabilityAppsOnlyWhenInstalled(t *testing.T) {
	p := New(Options{})
	assert.NotContains(t, mustRun(t, p, "pm list packages"), PkgCamera)
	p.InstallCapabilityApps()
	out := mustRun(t, p, "pm list packages")
	for _, pkg := range []string{PkgCamera, PkgMaps, PkgPay, PkgRecorder, PkgPhotoPicker, PkgGMS} {
		assert.Contains(t, out, "package:"+pkg+"\n")
	}
}

// Camera asks for the camera on its first launch with the three buttons of
// Android 14's dialog; the button pressed is what the app and dumpsys
// package see. "Only this time" ends with the app's task.
func TestPermissionDialogRecordsTheButton(t *testing.T) {
	for _, c := range []struct {
		button, answer string
		granted, asks  bool
	}{
		{"While using the app", AnswerForeground, true, false},
		{"Only this time", AnswerOnce, true, true},
		{"Don't allow", AnswerDeny, false, false},
	} {
		t.Run(c.answer, func(t *testing.T) {
			p := New(Options{})
			p.InstallCapabilityApps()
			launch(t, p, PkgCamera)
			h := dump(t, p)
			msg := h.find(t, "message", byID(pc+"permission_message"))
			assert.Equal(t, "Allow Camera to take pictures and record video?", msg.Text)
			for _, id := range []string{"permission_allow_foreground_only_button", "permission_allow_one_time_button", "permission_deny_button"} {
				h.find(t, id, byID(pc+id))
			}
			assert.False(t, h.has(byID(pc+"permission_allow_button")), "no plain Allow on a camera dialog")
			tapNode(t, p, c.button, byText(c.button))
			assert.Equal(t, []PermissionAnswer{{PkgCamera, GroupCamera, c.answer}}, p.PermissionAnswers())
			assert.Equal(t, c.granted, p.PermissionGranted(PkgCamera, "android.permission.CAMERA"))
			assert.Equal(t, c.granted, dump(t, p).has(byDesc("Take photo")), "the viewfinder needs the grant")
			pkgDump := mustRun(t, p, "dumpsys package "+PkgCamera)
			assert.Contains(t, pkgDump, "android.permission.CAMERA: granted="+map[bool]string{true: "true", false: "false"}[c.granted])
			assert.Equal(t, c.answer == AnswerOnce, strings.Contains(pkgDump, "ONE_TIME"))

			mustRun(t, p, "am force-stop "+PkgCamera)
			launch(t, p, PkgCamera)
			assert.Equal(t, c.asks, dump(t, p).has(byID(pc+"permission_message")), "asked again after the app stopped")
		})
	}
}

// BACK on a permission dialog denies, as on a phone; the Notes dialog
// keeps its two buttons and now grants what it asks for.
func TestPermissionDialogBackDeniesAndNotesGrants(t *testing.T) {
	p := New(Options{})
	p.InstallCapabilityApps()
	launch(t, p, PkgMaps)
	mustRun(t, p, "input keyevent KEYCODE_BACK")
	assert.Equal(t, []PermissionAnswer{{PkgMaps, GroupLocation, AnswerDeny}}, p.PermissionAnswers())
	launch(t, p, PkgMaps)
	status := dump(t, p).find(t, "status", byID(PkgMaps+":id/location_status"))
	assert.Contains(t, status.Text, "denied")

	launch(t, p, PkgNotes)
	h := dump(t, p)
	h.find(t, "Allow", byID(pc+"permission_allow_button"))
	tapNode(t, p, "Allow", byText("Allow"))
	assert.True(t, p.PermissionGranted(PkgNotes, "android.permission.POST_NOTIFICATIONS"))
}

// The Pay app's card form is FLAG_SECURE and draws into one SurfaceView:
// no element to read, a black screenshot, SECURE in dumpsys window.
func TestSecureCardFormHasNoElements(t *testing.T) {
	p := New(Options{})
	p.InstallCapabilityApps()
	launch(t, p, PkgPay)
	tapNode(t, p, "Pay by card", byText("Pay by card"))
	require.Equal(t, PkgPay+"/"+clsCardEntry, p.CurrentActivity())
	for _, n := range dump(t, p).all() {
		if n.Package == PkgPay {
			assert.Empty(t, n.Text+n.Desc+n.ResourceID, "the card form shows nothing to uiautomator")
			assert.NotEqual(t, "true", n.Clickable)
		}
	}
	assert.Contains(t, mustRun(t, p, "dumpsys window windows"), " SECURE ")
	img := p.Screenshot()
	r, g, b, _ := img.At(img.Bounds().Dx()/2, img.Bounds().Dy()/2).RGBA()
	assert.Equal(t, [3]uint32{0, 0, 0}, [3]uint32{r, g, b}, "the screenshot is black")
}

// The card form shows no element, yet focus moves through its fields as on
// a phone: TAB focuses the first field and then the next, ENTER is Next and
// on the last field Pay; the payment records the card that was typed.
func TestCardFormTabsThroughFieldsAndPays(t *testing.T) {
	p := New(Options{})
	p.InstallCapabilityApps()
	launch(t, p, PkgPay)
	tapNode(t, p, "Pay by card", byText("Pay by card"))
	mustRun(t, p, "input text 4242")            // nothing focused yet: lost
	mustRun(t, p, "input keyevent KEYCODE_TAB") // touch mode → first field
	mustRun(t, p, "input text 4242%s4242%s4242%s4242")
	mustRun(t, p, "input keyevent KEYCODE_TAB")
	mustRun(t, p, "input text 12/34")
	mustRun(t, p, "input keyevent KEYCODE_ENTER") // IME Next
	mustRun(t, p, "input text 123")
	mustRun(t, p, "input keyevent KEYCODE_TAB")
	mustRun(t, p, "input text Ada%sLovelace")
	_, paid := p.CardPaid()
	require.False(t, paid, "typing alone pays nothing")
	mustRun(t, p, "input keyevent KEYCODE_ENTER") // IME Pay
	card, paid := p.CardPaid()
	require.True(t, paid)
	assert.Equal(t, CardPayment{"4242424242424242", "12/34", "123", "Ada Lovelace"}, card)
	status := dump(t, p).find(t, "status", byID(PkgPay+":id/payment_status"))
	assert.Equal(t, "Paid 19.90 EUR with card •••• 4242 — thank you!", status.Text)
}

// A card failing the Luhn check is refused: no payment, the form stays.
func TestCardFormRefusesAnInvalidCard(t *testing.T) {
	p := New(Options{})
	p.InstallCapabilityApps()
	launch(t, p, PkgPay)
	tapNode(t, p, "Pay by card", byText("Pay by card"))
	for _, s := range []string{"4242424242424241", "12/34", "123", "Ada"} {
		mustRun(t, p, "input keyevent KEYCODE_TAB")
		mustRun(t, p, "input text "+s)
	}
	mustRun(t, p, "input keyevent KEYCODE_ENTER")
	_, paid := p.CardPaid()
	assert.False(t, paid)
	assert.Equal(t, PkgPay+"/"+clsCardEntry, p.CurrentActivity())
}

// Recorder's record button asks for the microphone first; with the grant
// it records, and Stop saves the recording.
func TestRecorderAsksForTheMicrophoneThenRecords(t *testing.T) {
	p := New(Options{})
	p.InstallCapabilityApps()
	launch(t, p, PkgRecorder)
	h := dump(t, p)
	h.find(t, "timer", byID(PkgRecorder+":id/timerView"))
	assert.False(t, h.has(byID(pc+"permission_message")), "no prompt before the button is pressed")
	tapNode(t, p, "Record", byDesc("Record"))
	msg := dump(t, p).find(t, "message", byID(pc+"permission_message"))
	assert.Equal(t, "Allow Recorder to record audio?", msg.Text)
	assert.False(t, p.Recording())
	tapNode(t, p, "While using the app", byText("While using the app"))
	assert.Equal(t, []PermissionAnswer{{PkgRecorder, GroupMicrophone, AnswerForeground}}, p.PermissionAnswers())
	tapNode(t, p, "Record", byDesc("Record"))
	assert.True(t, p.Recording())
	tapNode(t, p, "Stop", byDesc("Stop"))
	assert.False(t, p.Recording())
	assert.Equal(t, 1, p.Recordings())
}

// A denial is final: pressing Record again shows no second dialog.
func TestRecorderDeniedDoesNotAskAgain(t *testing.T) {
	p := New(Options{})
	p.InstallCapabilityApps()
	launch(t, p, PkgRecorder)
	tapNode(t, p, "Record", byDesc("Record"))
	tapNode(t, p, "Don't allow", byText("Don't allow"))
	tapNode(t, p, "Record", byDesc("Record"))
	assert.False(t, dump(t, p).has(byID(pc+"permission_message")))
	assert.False(t, p.Recording())
	assert.Equal(t, 0, p.Recordings())
}
