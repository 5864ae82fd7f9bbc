package android

import (
	"slices"
	"sort"
)

// clsNotificationSettings is Settings' "App notifications" page.
const clsNotificationSettings = ".NotificationSettingsActivity"

// notificationsRow is the Settings row opening the "App notifications" page.
func (b *builder) notificationsRow(y int) *view {
	p := b.p
	rowH := b.dp(72)
	row := b.node(clsLinear, b.rect(0, y, b.w, y+rowH))
	row.clickable, row.focusable = true, true
	row.onTap = func() { p.pushLocked(&activity{pkg: PkgSettings, cls: clsNotificationSettings}) }
	return row.add(b.text(b.rect(b.dp(16), y, b.w-b.dp(16), y+rowH), "Notifications", "android:id/title"))
}

// notificationSettings is the "App notifications" page, modelled on AOSP
// Settings: one row per app sorted by most recent use (then by name), each
// a clickable LinearLayout with a TextView android:id/title and a Switch
// android:id/switch_widget — every toggle has the same id and class, only
// the row's title tells them apart. Tapping the row or the switch toggles
// the app's notifications.
func (b *builder) notificationSettings() *view {
	p := b.p
	root := b.root(colPage)
	y := b.toolbar(root, "App notifications")
	for _, pkg := range p.notificationOrderLocked() {
		row, next := b.switchRow(y, appLabel(pkg), "android:id/switch_widget", !p.st.notifOff[pkg], func() {
			if p.st.notifOff == nil {
				p.st.notifOff = map[string]bool{}
			}
			p.st.notifOff[pkg] = !p.st.notifOff[pkg]
			p.changed()
		})
		root.add(row)
		y = next
	}
	return root
}

// notificationOrderLocked lists the apps that post notifications (the
// launcher's apps but Settings), most recently used first, then by name.
func (p *Phone) notificationOrderLocked() []string {
	var recent, rest []string
	for i := len(p.st.tasks) - 1; i >= 0; i-- {
		pkg := p.st.tasks[i].pkg
		if pkg != PkgSettings && slices.Contains(launcherApps, pkg) && !slices.Contains(recent, pkg) {
			recent = append(recent, pkg)
		}
	}
	for _, pkg := range launcherApps {
		if pkg != PkgSettings && !slices.Contains(recent, pkg) {
			rest = append(rest, pkg)
		}
	}
	sort.Slice(rest, func(i, j int) bool { return appLabel(rest[i]) < appLabel(rest[j]) })
	return append(recent, rest...)
}

// NotificationsOn reports whether pkg's notifications are on (the "App
// notifications" page's toggle).
func (p *Phone) NotificationsOn(pkg string) (on bool) {
	p.locked(func() { on = !p.st.notifOff[pkg] })
	return
}
