package android

import (
	"fmt"
	"image"
	"strings"
)

// Runtime permission dialogs as Android 14's permission controller shows
// them (com.android.permissioncontroller/.permission.ui.GrantPermissionsActivity;
// uiautomator dumps of real phones: a LinearLayout :id/grant_singleton
// holding :id/grant_dialog, :id/permission_icon, the TextView
// :id/permission_message and, in :id/button_group, the Buttons
// :id/permission_allow_foreground_only_button "While using the app",
// :id/permission_allow_one_time_button "Only this time" and
// :id/permission_deny_button "Don't allow" for camera, microphone and
// location, or :id/permission_allow_button "Allow" and "Don't allow" for
// the other groups). The button pressed is what the app and `dumpsys
// package` see: a grant, a one-time grant, or a denial.

// Permission groups the dialogs ask for.
const (
	GroupCamera        = "camera"
	GroupMicrophone    = "microphone"
	GroupLocation      = "location"
	GroupPhotos        = "photos"
	GroupNotifications = "notifications"
	GroupContacts      = "contacts"
)

// Answers of a permission dialog: the button pressed.
const (
	AnswerAllow      = "allow"      // permission_allow_button
	AnswerForeground = "foreground" // permission_allow_foreground_only_button
	AnswerOnce       = "once"       // permission_allow_one_time_button
	AnswerDeny       = "deny"       // permission_deny_button (also BACK)
)

// groupPermissions are the runtime permissions a group's dialog grants.
var groupPermissions = map[string][]string{
	GroupCamera:        {"android.permission.CAMERA"},
	GroupMicrophone:    {"android.permission.RECORD_AUDIO"},
	GroupLocation:      {"android.permission.ACCESS_FINE_LOCATION", "android.permission.ACCESS_COARSE_LOCATION"},
	GroupPhotos:        {"android.permission.READ_MEDIA_IMAGES"},
	GroupNotifications: {"android.permission.POST_NOTIFICATIONS"},
	GroupContacts:      {"android.permission.READ_CONTACTS"},
}

// groupPhrases finish "Allow <app> to …?" as the permission controller
// words it.
var groupPhrases = map[string]string{
	GroupCamera:        "take pictures and record video",
	GroupMicrophone:    "record audio",
	GroupLocation:      "access this device's location",
	GroupPhotos:        "access photos and videos on this device",
	GroupNotifications: "send you notifications",
	GroupContacts:      "access your contacts",
}

// permRequest is what one permission dialog asks for.
type permRequest struct {
	pkg, group string
	answered   bool
}

// foreground reports whether the dialog offers "While using the app" and
// "Only this time" instead of "Allow".
func (r *permRequest) foreground() bool {
	return r.group == GroupCamera || r.group == GroupMicrophone || r.group == GroupLocation
}

// PermissionAnswer is one permission dialog answered on the phone.
type PermissionAnswer struct {
	Package, Group, Answer string
}

// permState is what the phone's permission dialogs remember.
type permState struct {
	oneTime map[string]bool // "pkg perm" → granted only this time
	decided map[string]bool // "pkg group" → not asked again
	answers []PermissionAnswer
}

// PermissionAnswers lists the permission dialogs answered since boot, in
// order: which app, which group, which button (AnswerDeny for BACK too).
func (p *Phone) PermissionAnswers() (out []PermissionAnswer) {
	p.locked(func() { out = append(out, p.st.perm.answers...) })
	return
}

// PermissionOneTime reports whether pkg holds perm only this time.
func (p *Phone) PermissionOneTime(pkg, perm string) (ok bool) {
	p.locked(func() { ok = p.st.perm.oneTime[pkg+" "+perm] })
	return
}

// RequestPermission brings pkg to the front (starting it when needed) and
// pops up the permission controller's dialog for group over it, as pkg's
// requestPermissions would.
func (p *Phone) RequestPermission(pkg, group string) {
	p.locked(func() {
		// The app asks from its own screen and the dialog runs in its
		// task, as on a phone (a launch may raise the same dialog).
		if i := p.findTaskLocked(pkg); i >= 0 {
			p.bringToFrontLocked(i)
		} else if !p.launchLocked(pkg) {
			return
		}
		if r := p.topLocked().perm; r != nil && r.pkg == pkg && r.group == group {
			return
		}
		front := p.frontLocked()
		front.acts = append(front.acts, p.permDialogLocked(pkg, group))
		p.st.focused = ""
		p.changed()
	})
}

// permDialogLocked is the dialog activity asking for pkg's group.
func (p *Phone) permDialogLocked(pkg, group string) *activity {
	return &activity{pkg: PkgPermissionControl, cls: ".permission.ui.GrantPermissionsActivity",
		message: fmt.Sprintf("Allow %s to %s?", appLabel(pkg), groupPhrases[group]),
		perm:    &permRequest{pkg: pkg, group: group}}
}

// needsPermissionLocked reports whether launching pkg asks for group: not
// granted (a one-time grant ends with the app's task) and not denied yet.
func (p *Phone) needsPermissionLocked(pkg, group string) bool {
	return !p.st.perm.decided[pkg+" "+group] && !p.st.x.granted[pkg+" "+groupPermissions[group][0]]
}

// grantedLocked reports whether pkg holds group's first permission.
func (p *Phone) grantedLocked(pkg, group string) bool {
	return p.st.x.granted[pkg+" "+groupPermissions[group][0]]
}

// answerPermissionLocked applies the button pressed on r's dialog and
// closes it.
func (p *Phone) answerPermissionLocked(r *permRequest, answer string) {
	p.recordPermissionLocked(r, answer)
	p.backLocked()
}

// recordPermissionLocked applies an answer to r: grants, one-time grants,
// what is asked again.
func (p *Phone) recordPermissionLocked(r *permRequest, answer string) {
	r.answered = true
	if p.st.x.granted == nil {
		p.st.x.granted = map[string]bool{}
	}
	if p.st.perm.oneTime == nil {
		p.st.perm.oneTime, p.st.perm.decided = map[string]bool{}, map[string]bool{}
	}
	for _, perm := range groupPermissions[r.group] {
		key := r.pkg + " " + perm
		p.st.x.granted[key] = answer != AnswerDeny
		p.st.perm.oneTime[key] = answer == AnswerOnce
	}
	// Only this time asks again on the next launch; a grant or a denial
	// is remembered.
	p.st.perm.decided[r.pkg+" "+r.group] = answer != AnswerOnce
	if r.pkg == PkgNotes {
		p.st.notesPermissionAnswered = true
	}
	p.st.perm.answers = append(p.st.perm.answers, PermissionAnswer{Package: r.pkg, Group: r.group, Answer: answer})
}

// endOneTimeLocked revokes pkg's one-time grants: its task is gone.
func (p *Phone) endOneTimeLocked(pkg string) {
	for key, once := range p.st.perm.oneTime {
		if once && strings.HasPrefix(key, pkg+" ") {
			p.st.x.granted[key] = false
			delete(p.st.perm.oneTime, key)
		}
	}
}

// permissionDialog draws a permission controller dialog. Dialogs without
// a request (ShowPermissionDialog) only close.
func (b *builder) permissionDialog(a *activity) *view {
	p := b.p
	r := a.perm
	margin, pad, btnH := b.dp(24), b.dp(24), b.dp(48)
	buttons := []struct{ text, id, answer string }{
		{"Allow", "permission_allow_button", AnswerAllow},
		{"Don't allow", "permission_deny_button", AnswerDeny},
	}
	if r != nil && r.foreground() {
		buttons = []struct{ text, id, answer string }{
			{"While using the app", "permission_allow_foreground_only_button", AnswerForeground},
			{"Only this time", "permission_allow_one_time_button", AnswerOnce},
			{"Don't allow", "permission_deny_button", AnswerDeny},
		}
	}
	height := pad + b.dp(48) + b.dp(72) + len(buttons)*(btnH+b.dp(8)) + pad
	top := (b.h - height) / 2
	id := func(s string) string { return PkgPermissionControl + ":id/" + s }
	card := newView(clsLinear, PkgPermissionControl, image.Rect(margin, top, b.w-margin, top+height))
	card.resID, card.look.bg = id("grant_singleton"), colWhite
	dialog := newView(clsLinear, PkgPermissionControl, card.full)
	dialog.resID = id("grant_dialog")
	icon := newView(clsImage, PkgPermissionControl, image.Rect(b.w/2-b.dp(18), top+pad, b.w/2+b.dp(18), top+pad+b.dp(36)))
	icon.resID, icon.look.bg = id("permission_icon"), colAccent
	y := top + pad + b.dp(48)
	msg := b.text(image.Rect(margin+pad, y, b.w-margin-pad, y+b.dp(56)), a.message, id("permission_message"))
	msg.look.center = true
	y += b.dp(72)
	group := newView(clsLinear, PkgPermissionControl, image.Rect(margin+pad, y, b.w-margin-pad, y+len(buttons)*(btnH+b.dp(8))))
	group.resID = id("button_group")
	for _, bt := range buttons {
		answer := bt.answer
		tap := func() {
			if r != nil {
				p.answerPermissionLocked(r, answer)
				return
			}
			if a.answersNotes {
				p.st.notesPermissionAnswered = true
			}
			p.backLocked()
		}
		group.add(b.button(image.Rect(margin+pad, y, b.w-margin-pad, y+btnH), bt.text, id(bt.id), true, tap))
		y += btnH + b.dp(8)
	}
	return card.add(dialog.add(icon, msg, group))
}

// dumpPackageLocked is `dumpsys package PKG`: the runtime permissions
// with their grant state, as the app sees them.
func (p *Phone) dumpPackageLocked(pkg string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Packages:\n  Package [%s] (%s):\n    runtime permissions:\n", pkg, objectID("pkg", pkg))
	for _, perm := range requestedPermissions(pkg) {
		fmt.Fprintf(&b, "      %s: granted=%t, flags=[ %s ]\n", perm, p.st.x.granted[pkg+" "+perm], p.grantFlagsLocked(pkg, perm))
	}
	return b.String()
}

// requestedPermissions are pkg's runtime permissions (devicecmds.go's
// table plus the capability apps').
func requestedPermissions(pkg string) []string {
	return runtimePermissions[pkg]
}

func groupOf(perm string) string {
	for g, perms := range groupPermissions {
		for _, q := range perms {
			if q == perm {
				return g
			}
		}
	}
	return ""
}
