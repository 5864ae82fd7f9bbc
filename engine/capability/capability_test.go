package capability

import (
	"strings"
	"testing"

	"github.com/openpocket/openpocket/engine/screen"
)

// dump parses a uiautomator dump written like a phone's.
func dump(t *testing.T, nodes string) *screen.Node {
	t.Helper()
	root, err := screen.ParseHierarchy([]byte(`<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">` + nodes + `</hierarchy>`))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

const mapsWindow = `<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.example.maps" content-desc="" clickable="false" enabled="true" bounds="[0,0][1080,2400]"/>`

func grantDialog(msg string, ids ...string) string {
	var b strings.Builder
	b.WriteString(`<node index="0" text="" resource-id="com.android.permissioncontroller:id/grant_singleton" class="android.widget.LinearLayout" package="com.android.permissioncontroller" content-desc="" clickable="false" enabled="true" bounds="[63,700][1017,1700]">`)
	b.WriteString(`<node index="0" text="` + msg + `" resource-id="com.android.permissioncontroller:id/permission_message" class="android.widget.TextView" package="com.android.permissioncontroller" content-desc="" clickable="false" enabled="true" bounds="[126,800][954,950]"/>`)
	for i, id := range ids {
		y := 1000 + i*140
		b.WriteString(`<node index="1" text="` + id + `" resource-id="com.android.permissioncontroller:id/` + id + `" class="android.widget.Button" package="com.android.permissioncontroller" content-desc="" clickable="true" enabled="true" bounds="[126,` + itoa(y) + `][954,` + itoa(y+126) + `]"/>`)
	}
	b.WriteString(`</node>`)
	return b.String()
}

func itoa(n int) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

func TestFindDialogAndButtons(t *testing.T) {
	three := []string{idForeground, idOnce, idDeny}
	cases := []struct {
		msg     string
		ids     []string
		group   string
		answer  Answer
		pressed string
		did     Answer
	}{
		{"Allow Maps to access this device's location?", three, "location", Allow, idForeground, Allow},
		{"Allow Maps to access this device's location?", three, "location", Once, idOnce, Once},
		{"Allow Camera to take pictures and record video?", three, "camera", Deny, idDeny, Deny},
		{"Allow Notes to send you notifications?", []string{idAllow, idDeny}, "notifications", Allow, idAllow, Allow},
		// No "Only this time": a lasting grant is never given for "once".
		{"Allow Notes to send you notifications?", []string{idAllow, idDeny}, "notifications", Once, idDeny, Deny},
		{"Allow Gallery to access photos and videos on this device?", []string{idAllow, idDeny}, "photos", Allow, idAllow, Allow},
	}
	for _, c := range cases {
		d, ok := FindDialog(dump(t, mapsWindow+grantDialog(c.msg, c.ids...)))
		if !ok {
			t.Fatalf("%q: no dialog found", c.msg)
		}
		if d.Group != c.group || d.Package != "com.example.maps" {
			t.Errorf("%q: group %q package %q", c.msg, d.Group, d.Package)
		}
		b, did := d.button(c.answer)
		if b.Text != c.pressed || did != c.did {
			t.Errorf("%q %s: pressed %s (%s), want %s (%s)", c.msg, c.answer, b.Text, did, c.pressed, c.did)
		}
	}
	if _, ok := FindDialog(dump(t, mapsWindow)); ok {
		t.Error("a dialog found on a plain app screen")
	}
}

func TestDetectSurfaces(t *testing.T) {
	cases := []struct {
		name, app, nodes, kind string
		secure                 bool
	}{
		{"camera app", "com.google.android.GoogleCamera", `<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.google.android.GoogleCamera" content-desc="" clickable="false" enabled="true" bounds="[0,0][1080,2400]"/>`, KindCamera, false},
		{"shutter in any app", "com.example.scan", `<node index="0" text="" resource-id="com.example.scan:id/shutter_button" class="android.widget.ImageButton" package="com.example.scan" content-desc="Take photo" clickable="true" enabled="true" bounds="[400,2000][680,2280]"/>`, KindCamera, false},
		{"recorder button (AOSP's camelCase id)", "com.example.voice", `<node index="0" text="" resource-id="com.example.voice:id/recordButton" class="android.widget.ImageButton" package="com.example.voice" content-desc="Record" clickable="true" enabled="true" bounds="[468,2000][612,2144]"/>`, KindMicrophone, false},
		{"card form", "com.example.shop", `<node index="0" text="" resource-id="com.example.shop:id/card_number" class="android.widget.EditText" package="com.example.shop" content-desc="" clickable="true" enabled="true" bounds="[40,400][1040,520]"/>`, KindPayment, false},
		{"location prompt", "com.android.permissioncontroller", mapsWindow + grantDialog("Allow Maps to access this device's location?", idForeground, idOnce, idDeny), KindLocation, false},
		{"secure, no elements", "com.example.bank", `<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.example.bank" content-desc="" clickable="false" enabled="true" bounds="[0,0][1080,2400]"/>`, KindSecure, true},
		{"plain screen", "com.example.notes", `<node index="0" text="Save" resource-id="com.example.notes:id/save" class="android.widget.Button" package="com.example.notes" content-desc="" clickable="true" enabled="true" bounds="[40,400][1040,520]"/>`, "", false},
	}
	for _, c := range cases {
		root := dump(t, c.nodes)
		snap := &screen.Snapshot{CurrentApp: c.app, Tree: root, SecureSurface: c.secure}
		s, ok := Detect(snap)
		if ok != (c.kind != "") || s.Kind != c.kind {
			t.Errorf("%s: got %+v %v, want kind %q", c.name, s, ok, c.kind)
		}
	}
}

func TestProbeModeAndLine(t *testing.T) {
	for in, want := range map[string]ProbeMode{"": ProbeOff, "off": ProbeOff, "ask": ProbeAsk, "auto": ProbeAuto} {
		if got, err := ParseProbeMode(in); err != nil || got != want {
			t.Errorf("ParseProbeMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseProbeMode("always"); err == nil {
		t.Error("ParseProbeMode(always) accepted")
	}
	d := Dialog{Group: "notifications", Package: "com.example.notes"}
	got := Line(d, Once, Deny, "Don't allow", "humanAuth.permissions.groups.notifications")
	want := `local_vm_permission=deny notifications for com.example.notes: pressed "Don't allow" (policy once; the dialog has no such choice) by humanAuth.permissions.groups.notifications`
	if got != want {
		t.Errorf("Line:\n got %s\nwant %s", got, want)
	}
}

func TestTaskPackageOfDumpsysActivityTop(t *testing.T) {
	out := "TASK com.android.launcher3 id=1 userId=0\n  ACTIVITY com.android.launcher3/.Launcher 1 pid=1\n" +
		"TASK 10111:com.example.maps id=14 userId=0\n  ACTIVITY com.android.permissioncontroller/.permission.ui.GrantPermissionsActivity 2 pid=9\n"
	if got := taskPackage(out); got != "com.example.maps" {
		t.Errorf("taskPackage = %q", got)
	}
	if got := taskPackage("ACTIVITY MANAGER TOP\n"); got != "" {
		t.Errorf("taskPackage without tasks = %q", got)
	}
}
