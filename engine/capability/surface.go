package capability

import (
	"fmt"
	"strings"

	"github.com/openpocket/openpocket/engine/screen"
)

// Kinds of surfaces the probe recognises.
const (
	KindCamera     = "camera"
	KindMicrophone = "microphone"
	KindLocation   = "location"
	KindPhotos     = "photos"
	KindPayment    = "payment"
	KindSecure     = "secure"
)

// Surface is a screen where a person should act.
type Surface struct {
	Kind   string
	App    string // the current app's package
	Reason string // what gave it away, for the session and the person
}

// Key identifies the surface within a run: the probe escalates each once.
func (s Surface) Key() string { return s.Kind + " " + s.App }

// Capability is request_human_auth's capability for the surface.
func (s Surface) Capability() string {
	switch s.Kind {
	case KindPhotos:
		return "files"
	case KindSecure:
		return "unknown"
	}
	return s.Kind
}

// Instruction tells the person what the agent reached and what to do.
func (s Surface) Instruction() string {
	switch s.Kind {
	case KindCamera:
		return fmt.Sprintf("The agent opened a camera (%s). Send the photo it needs from this page, or take it on the phone, then approve.", s.App)
	case KindMicrophone:
		return fmt.Sprintf("The agent reached a recorder (%s). Send the recording it needs, or record on the phone, then approve.", s.App)
	case KindLocation:
		return fmt.Sprintf("The agent reached a location request (%s). Send the location to use, then approve.", s.App)
	case KindPhotos:
		return fmt.Sprintf("The agent reached a photo picker (%s). Send the photo to use, then approve.", s.App)
	case KindPayment:
		return fmt.Sprintf("The agent reached a payment screen (%s). Check the payment and confirm it on the phone, then approve.", s.App)
	}
	return fmt.Sprintf("The phone shows a protected screen the agent cannot see (%s, FLAG_SECURE). Complete this step on the phone, then approve.", s.App)
}

// Packages that are cameras, recorders, pickers, wallets wherever they
// appear (the current app).
var appKinds = map[string]string{
	"com.android.camera": KindCamera, "com.android.camera2": KindCamera, "com.google.android.GoogleCamera": KindCamera,
	"com.sec.android.app.camera": KindCamera, "org.codeaurora.snapcam": KindCamera, "com.openpocket.camera": KindCamera,
	"com.android.soundrecorder": KindMicrophone, "com.google.android.apps.recorder": KindMicrophone,
	"com.sec.android.app.voicenote":      KindMicrophone,
	"com.android.providers.media.module": KindPhotos, "com.google.android.providers.media.module": KindPhotos,
	"com.android.documentsui": KindPhotos, "com.google.android.documentsui": KindPhotos,
	"com.google.android.apps.photos": KindPhotos, "com.android.gallery3d": KindPhotos,
	"com.google.android.apps.walletnfcrel": KindPayment,
}

// Resource id words of surfaces inside any app.
var idWords = []struct{ kind, words string }{
	{KindCamera, "shutter_button|camera_preview|viewfinder|capture_button"},
	{KindMicrophone, "record_button|recordbutton|recording_button|mic_button"},
	{KindPayment, "card_number|cardnumber|cvc|cvv|card_expiry|payment_sheet|pay_button"},
	{KindPhotos, "photopicker|icon_thumbnail"},
}

// Detect looks at a snapshot (its UI tree and current app) for a surface
// where a person should act. Permission dialogs name their own group
// (location prompts are surfaces; the policy answers them first when one
// is configured). A FLAG_SECURE window without elements is a secure
// surface: the agent sees nothing there.
func Detect(snap *screen.Snapshot) (Surface, bool) {
	if snap == nil {
		return Surface{}, false
	}
	app := snap.CurrentApp
	if snap.Tree != nil {
		if d, ok := FindDialog(snap.Tree); ok {
			switch d.Group {
			case KindCamera, KindMicrophone, KindLocation, KindPhotos:
				return Surface{Kind: d.Group, App: orApp(d.Package, app), Reason: "permission dialog: " + d.Message}, true
			}
		}
	}
	if snap.SecureSurface && appElements(snap) == 0 {
		return Surface{Kind: KindSecure, App: app, Reason: "FLAG_SECURE window without elements"}, true
	}
	if k, ok := appKinds[app]; ok {
		return Surface{Kind: k, App: app, Reason: "current app " + app}, true
	}
	if snap.Tree == nil {
		return Surface{}, false
	}
	var found Surface
	snap.Tree.Walk(func(n *screen.Node) bool {
		if found.Kind != "" {
			return false
		}
		if k, ok := appKinds[n.Package]; ok && n.Parent != nil && n.Parent.IsRoot() {
			found = Surface{Kind: k, App: n.Package, Reason: "window of " + n.Package}
			return false
		}
		id := strings.ToLower(n.ResourceID[strings.LastIndex(n.ResourceID, "/")+1:])
		if id == "" {
			return true
		}
		for _, iw := range idWords {
			for _, w := range strings.Split(iw.words, "|") {
				if strings.Contains(id, w) {
					found = Surface{Kind: iw.kind, App: orApp(n.Package, app), Reason: "element " + n.ResourceID}
					return false
				}
			}
		}
		return true
	})
	return found, found.Kind != ""
}

// appElements counts the elements of the current app (the system bars
// stay visible around a secure window and have their own).
func appElements(snap *screen.Snapshot) int {
	n := 0
	for _, e := range snap.UIElements {
		pkg := ""
		if e.Node != nil {
			pkg = e.Node.Package
		}
		if pkg == snap.CurrentApp || pkg == "" && !strings.HasPrefix(e.ResourceID, "com.android.systemui:") {
			n++
		}
	}
	return n
}

func orApp(pkg, app string) string {
	if pkg != "" {
		return pkg
	}
	return app
}

// ProbeMode is humanAuth.probe.
type ProbeMode string

// Probe modes: off does nothing; ask offers the person to take over (a
// "no" lets the agent go on); auto opens the human-auth request at once
// (a "no" ends the run, as when the model asks).
const (
	ProbeOff  ProbeMode = "off"
	ProbeAsk  ProbeMode = "ask"
	ProbeAuto ProbeMode = "auto"
)

// ParseProbeMode reads off, ask or auto ("" is off).
func ParseProbeMode(s string) (ProbeMode, error) {
	switch m := ProbeMode(strings.TrimSpace(s)); m {
	case "", ProbeOff:
		return ProbeOff, nil
	case ProbeAsk, ProbeAuto:
		return m, nil
	}
	return "", fmt.Errorf("expected one of off, ask, auto, got %q", s)
}
