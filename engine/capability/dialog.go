package capability

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
)

// PermissionController is the package of Android's runtime permission
// dialogs (GrantPermissionsActivity).
const PermissionController = "com.android.permissioncontroller"

// Button resource ids of the permission controller (Android 10+; older
// phones call the package com.android.packageinstaller with the same ids).
const (
	idAllow      = "permission_allow_button"
	idForeground = "permission_allow_foreground_only_button"
	idOnce       = "permission_allow_one_time_button"
	idDeny       = "permission_deny_button"
	idMessage    = "permission_message"
)

// Dialog is a permission dialog found in a UI tree.
type Dialog struct {
	Message string // "Allow Maps to access this device's location?"
	Group   string // "location"; "" when the wording is unknown
	Package string // the requesting app: the window under the dialog
	buttons map[string]*screen.Node
}

// groupWords map the dialog's wording to its group, most specific first.
var groupWords = []struct{ group, words string }{
	{"camera", "take pictures|record video"},
	{"microphone", "record audio"},
	{"location", "location"},
	{"photos", "photos|videos|media|images|music and audio"},
	{"notifications", "notifications"},
	{"contacts", "contacts"},
	{"calendar", "calendar"},
	{"sms", "sms"},
	{"phone", "phone calls"},
	{"nearby_devices", "nearby devices"},
	{"physical_activity", "physical activity"},
	{"sensors", "sensor"},
}

// groupOfMessage names the group a dialog's message asks for.
func groupOfMessage(msg string) string {
	low := strings.ToLower(msg)
	for _, gw := range groupWords {
		for _, w := range strings.Split(gw.words, "|") {
			if strings.Contains(low, w) {
				return gw.group
			}
		}
	}
	return ""
}

// isController reports the permission controller's packages.
func isController(pkg string) bool {
	return pkg == PermissionController || pkg == "com.google.android.permissioncontroller" ||
		pkg == "com.android.packageinstaller"
}

// systemPackages draw over apps and are never the requesting app.
var systemPackages = map[string]bool{"com.android.systemui": true, "android": true,
	"com.google.android.inputmethod.latin": true}

// FindDialog finds a permission dialog in root.
func FindDialog(root *screen.Node) (Dialog, bool) {
	d := Dialog{buttons: map[string]*screen.Node{}}
	found := false
	root.Walk(func(n *screen.Node) bool {
		if isController(n.Package) {
			id := n.ResourceID[strings.LastIndex(n.ResourceID, "/")+1:]
			switch id {
			case idMessage:
				d.Message, found = n.Text, true
			case idAllow, idForeground, idOnce, idDeny:
				d.buttons[id] = n
			}
		} else if d.Package == "" && n.Package != "" && !systemPackages[n.Package] && n.Parent != nil && n.Parent.IsRoot() {
			d.Package = n.Package
		}
		return true
	})
	if !found || d.buttons[idDeny] == nil {
		return Dialog{}, false
	}
	d.Group = groupOfMessage(d.Message)
	return d, true
}

// button picks the node the answer presses and says what it did.
func (d Dialog) button(a Answer) (*screen.Node, Answer) {
	switch a {
	case Allow:
		if b := d.buttons[idForeground]; b != nil {
			return b, Allow
		}
		if b := d.buttons[idAllow]; b != nil {
			return b, Allow
		}
	case Once:
		if b := d.buttons[idOnce]; b != nil {
			return b, Once
		}
	}
	// Deny, and "once" on a dialog without "Only this time": a grant that
	// would outlive the answer is never given.
	return d.buttons[idDeny], Deny
}

// Guard is the device.Guard that answers permission dialogs by Policy and
// hands a local_vm_permission= line to Note for each.
type Guard struct {
	Policy *Policy
	Note   func(line string)
}

var _ device.Guard = (*Guard)(nil)

// Screen answers the permission dialog in root, if any.
func (g *Guard) Screen(ctx context.Context, p *device.Phone, root *screen.Node) (bool, error) {
	if root == nil || g.Policy == nil {
		return false, nil
	}
	d, ok := FindDialog(root)
	if !ok {
		return false, nil
	}
	if d.Package == "" {
		// Phones that dump only the focused window: the dialog runs in the
		// requesting app's task.
		d.Package = requesterTask(ctx, p)
	}
	want, src := g.Policy.Decide(d.Package, d.Group)
	if d.Group == "" {
		want, src = Deny, "an unrecognised permission dialog is denied"
	}
	btn, did := d.button(want)
	c := btn.Center()
	ictx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := p.Shell(ictx, fmt.Sprintf("input tap %d %d", c.X, c.Y)); err != nil {
		return false, fmt.Errorf("answer permission dialog: %w", err)
	}
	if g.Note != nil {
		g.Note(Line(d, want, did, btn.Text, src))
	}
	return true, nil
}

// requesterTask names the app whose task holds the dialog ("" when the
// phone does not say).
func requesterTask(ctx context.Context, p *device.Phone) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	res, err := p.Shell(ctx, "dumpsys activity top")
	if err != nil {
		return ""
	}
	return taskPackage(string(res.Stdout))
}

// taskPackage reads the last "TASK <pkg> id=…" line of `dumpsys activity
// top` (Android 10+; some builds write "TASK 10123:<pkg>").
func taskPackage(out string) string {
	pkg := ""
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "TASK" {
			continue
		}
		name := f[1][strings.Index(f[1], ":")+1:]
		if !isController(name) && strings.Contains(name, ".") {
			pkg = name
		}
	}
	return pkg
}

// Line is the session's record of one answered dialog (docs/formats.md).
func Line(d Dialog, want, did Answer, button, source string) string {
	app := d.Package
	if app == "" {
		app = "unknown app"
	}
	group := d.Group
	if group == "" {
		group = "unknown"
	}
	note := ""
	if want != did {
		note = fmt.Sprintf(" (policy %s; the dialog has no such choice)", want)
	}
	return fmt.Sprintf("local_vm_permission=%s %s for %s: pressed %q%s by %s", did, group, app, button, note, source)
}
