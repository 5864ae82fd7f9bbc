package android

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNotificationSettingsRepeatedToggles(t *testing.T) {
	p := New(Options{})
	launch(t, p, PkgSettings)
	tapNode(t, p, "notifications", byText("Notifications"))
	h := dump(t, p)
	var titles []string
	switches := 0
	for _, n := range h.all() {
		switch n.ResourceID {
		case "android:id/title":
			if n.Text != "App notifications" {
				titles = append(titles, n.Text)
			}
		case "android:id/switch_widget":
			switches++
			assert.Equal(t, "true", n.Checked)
		}
	}
	assert.Equal(t, []string{"Contacts", "Login", "Notes"}, titles, "no app used yet: by name")
	assert.Equal(t, 3, switches, "one switch_widget per row, all alike")
	tapNode(t, p, "notes row", byText("Notes"))
	assert.False(t, p.NotificationsOn(PkgNotes))
	assert.True(t, p.NotificationsOn(PkgLogin))

	// Most recently used first.
	launch(t, p, PkgNotes)
	launch(t, p, PkgSettings)
	h = dump(t, p)
	titles = nil
	for _, n := range h.all() {
		if n.ResourceID == "android:id/title" && n.Text != "App notifications" {
			titles = append(titles, n.Text)
		}
	}
	require.Equal(t, []string{"Notes", "Contacts", "Login"}, titles)
	p.Reset()
	assert.True(t, p.NotificationsOn(PkgNotes), "Reset turns notifications back on")
}
