package android

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestANRDialog(t *testing.T) {
	p := New(Options{})
	launch(t, p, PkgNotes)
	tapNode(t, p, "allow", byText("Allow"))
	p.ShowANRDialog("Notes")
	assert.Equal(t, PkgAndroid, p.CurrentPackage())
	h := dump(t, p)
	title := h.find(t, "title", byID("android:id/alertTitle"))
	assert.Equal(t, "Notes isn't responding", title.Text)
	assert.Equal(t, PkgAndroid, title.Package)
	assert.Equal(t, "Wait", h.find(t, "wait", byID("android:id/aerr_wait")).Text)
	assert.Equal(t, "Close app", h.find(t, "close", byID("android:id/aerr_close")).Text)
	assert.True(t, h.has(byText("Save")), "the app stays visible below the dialog")
	mustRun(t, p, "dumpsys activity activities")
	mustRun(t, p, "dumpsys window windows")

	tapNode(t, p, "wait", byText("Wait"))
	assert.Equal(t, PkgNotes, p.CurrentPackage(), "Wait leaves the app running")

	p.ShowANRDialog("Notes")
	tapNode(t, p, "close", byText("Close app"))
	assert.Equal(t, PkgLauncher, p.CurrentPackage(), "Close app stops the app")
}

func TestInputMethodPicker(t *testing.T) {
	p := New(Options{})
	launch(t, p, PkgSettings)
	p.ShowInputMethodPicker()
	assert.Equal(t, PkgAndroid, p.CurrentPackage())
	h := dump(t, p)
	assert.Equal(t, "Choose input method", h.find(t, "title", byID("android:id/alertTitle")).Text)
	item := h.find(t, "gboard", byText("Gboard"))
	assert.Equal(t, "android.widget.CheckedTextView", item.Class)
	assert.Equal(t, "true", item.Checked)
	mustRun(t, p, "input keyevent BACK")
	assert.Equal(t, PkgSettings, p.CurrentPackage(), "BACK closes the picker")
}

// With a field focused (the soft keyboard up) the picker holds input focus:
// BACK dismisses the picker, not the keyboard beneath it.
func TestBackOverTheKeyboardClosesThePickerFirst(t *testing.T) {
	p := New(Options{})
	launch(t, p, PkgNotes)
	tapNode(t, p, "allow", byText("Allow"))
	tapNode(t, p, "note input", byID(fieldNote))
	p.ShowInputMethodPicker()
	mustRun(t, p, "input keyevent BACK")
	assert.Equal(t, PkgNotes, p.CurrentPackage(), "BACK closes the picker")
	assert.Equal(t, "true", dump(t, p).find(t, "note input", byID(fieldNote)).Focused, "the field keeps focus")
	mustRun(t, p, "input keyevent BACK")
	assert.Equal(t, "false", dump(t, p).find(t, "note input", byID(fieldNote)).Focused, "the next BACK closes the keyboard")
}
