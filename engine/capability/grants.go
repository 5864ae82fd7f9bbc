package capability

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine/device"
)

// permissionGroups maps Android's runtime permissions to the groups a
// policy names (the permission controller's grouping, Android 13).
var permissionGroups = map[string]string{
	"READ_CALENDAR": "calendar", "WRITE_CALENDAR": "calendar",
	"CAMERA":        "camera",
	"READ_CONTACTS": "contacts", "WRITE_CONTACTS": "contacts", "GET_ACCOUNTS": "contacts",
	"ACCESS_FINE_LOCATION": "location", "ACCESS_COARSE_LOCATION": "location", "ACCESS_BACKGROUND_LOCATION": "location",
	"RECORD_AUDIO":      "microphone",
	"BLUETOOTH_CONNECT": "nearby_devices", "BLUETOOTH_SCAN": "nearby_devices", "BLUETOOTH_ADVERTISE": "nearby_devices",
	"NEARBY_WIFI_DEVICES": "nearby_devices", "UWB_RANGING": "nearby_devices",
	"POST_NOTIFICATIONS": "notifications",
	"READ_PHONE_STATE":   "phone", "READ_PHONE_NUMBERS": "phone", "CALL_PHONE": "phone", "ANSWER_PHONE_CALLS": "phone",
	"ADD_VOICEMAIL": "phone", "USE_SIP": "phone", "READ_CALL_LOG": "phone", "WRITE_CALL_LOG": "phone", "PROCESS_OUTGOING_CALLS": "phone",
	"READ_MEDIA_IMAGES": "photos", "READ_MEDIA_VIDEO": "photos", "READ_MEDIA_VISUAL_USER_SELECTED": "photos",
	"READ_EXTERNAL_STORAGE": "photos", "WRITE_EXTERNAL_STORAGE": "photos",
	"ACTIVITY_RECOGNITION": "physical_activity",
	"BODY_SENSORS":         "sensors", "BODY_SENSORS_BACKGROUND": "sensors",
	"SEND_SMS": "sms", "RECEIVE_SMS": "sms", "READ_SMS": "sms", "RECEIVE_WAP_PUSH": "sms", "RECEIVE_MMS": "sms",
}

// PermissionGroup is the group of a runtime permission
// ("android.permission.CAMERA" → "camera"); "" for one no group names.
func PermissionGroup(perm string) string {
	return permissionGroups[strings.TrimPrefix(perm, "android.permission.")]
}

// Grant is one runtime permission granted to one app.
type Grant struct{ Package, Permission string }

// Grants are the runtime permissions granted on a phone.
type Grants map[Grant]bool

var (
	packageLine = regexp.MustCompile(`^\s*Package \[([^\]]+)\]`)
	grantLine   = regexp.MustCompile(`^\s+([\w.]+): granted=(true|false)`)
)

// ParseGrants reads the runtime permissions granted in `dumpsys package`
// output (all packages, or one): each package block's "runtime
// permissions:" lists, per user on current Android (the grant counts when
// any user holds it), directly under the package on older builds. Install
// permissions, granted at install and never asked for, are not read.
func ParseGrants(out string) Grants {
	g := Grants{}
	pkg, inRuntime := "", false
	for _, line := range strings.Split(out, "\n") {
		if m := packageLine.FindStringSubmatch(line); m != nil {
			pkg, inRuntime = m[1], false
			continue
		}
		if strings.TrimSpace(line) == "runtime permissions:" {
			inRuntime = pkg != ""
			continue
		}
		if !inRuntime {
			continue
		}
		m := grantLine.FindStringSubmatch(line)
		if m == nil {
			inRuntime = false
			continue
		}
		if m[2] == "true" {
			g[Grant{pkg, m[1]}] = true
		}
	}
	return g
}

// ReadGrants reads the phone's runtime permission grants (`dumpsys
// package`: every package, several MB and a second or two on a real
// phone, so only when a policy needs it).
func ReadGrants(ctx context.Context, p *device.Phone) (Grants, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := p.Shell(ctx, "dumpsys package")
	if err != nil {
		return nil, fmt.Errorf("read permission grants: %w", err)
	}
	if res.ExitCode != 0 {
		return nil, fmt.Errorf("read permission grants: dumpsys package exited %d: %s", res.ExitCode, strings.TrimSpace(string(res.Stderr)))
	}
	return ParseGrants(string(res.Stdout)), nil
}

// Held is a grant the policy took back.
type Held struct {
	Grant
	Group, Source string
}

// Line is the session's record of a grant taken back
// (docs/formats.md#session); by is the action that made it ("shell").
func (h Held) Line(by string) string {
	group := h.Group
	if group == "" {
		group = "unknown"
	}
	return fmt.Sprintf("local_vm_permission=revoked %s for %s: %s granted by a %s action, not a dialog; %s",
		group, h.Package, h.Permission, by, h.Source)
}

// Hold takes back what after grants beyond before that the policy does not
// allow: each new grant of a group it denies, or allows only once, for
// that app (a grant made outside a dialog outlives "once"), and of a
// permission no group names (as an unrecognised dialog is denied). The
// revoke runs even when ctx has ended: the command that granted may have
// been cut short by it. It returns what it took back, in order.
func (p *Policy) Hold(ctx context.Context, ph *device.Phone, before, after Grants) ([]Held, error) {
	var held []Held
	for g := range after {
		if before[g] {
			continue
		}
		group := PermissionGroup(g.Permission)
		want, src := Deny, "an unrecognised permission is denied"
		if group != "" {
			want, src = p.Decide(g.Package, group)
		}
		if want == Allow {
			continue
		}
		held = append(held, Held{Grant: g, Group: group, Source: src})
	}
	sort.Slice(held, func(i, j int) bool {
		if held[i].Package != held[j].Package {
			return held[i].Package < held[j].Package
		}
		return held[i].Permission < held[j].Permission
	})
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	for _, h := range held {
		res, err := ph.Shell(rctx, "pm revoke "+device.Quote(h.Package)+" "+device.Quote(h.Permission))
		if err == nil && res.ExitCode != 0 {
			err = fmt.Errorf("exit %d: %s", res.ExitCode, strings.TrimSpace(string(res.Stderr)))
		}
		if err != nil {
			return held, fmt.Errorf("revoke %s from %s: %w", h.Permission, h.Package, err)
		}
	}
	return held, nil
}
