package skills_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/skills"
	"github.com/openpocket/openpocket/stdlib/skillsmod"
)

const (
	launcher = "com.android.launcher3"
	settings = "com.android.settings"
	contacts = "com.openpocket.contacts"
	permctl  = "com.android.permissioncontroller"
)

// detourTrace: from home the model opens Contacts (wrong app) and presses
// BACK, taps a label that does nothing twice, then opens Settings by its
// icon, answers a permission dialog and toggles Bluetooth.
func detourTrace(t *testing.T) []engine.TraceStep {
	icon := func(name string) *engine.Target {
		return &engine.Target{ResourceID: launcher + ":id/icon", ContentDesc: name, ClassName: "android.widget.FrameLayout"}
	}
	return []engine.TraceStep{
		{Step: 1, Action: act(t, "tap_element", map[string]any{"elementId": "4"}), Target: icon("Contacts"),
			AppBefore: launcher, AppAfter: contacts, HashBefore: "5500000000000000", HashAfter: "0f0f000000000000", Changed: true},
		{Step: 2, Action: act(t, "keyevent", map[string]any{"keycode": "KEYCODE_BACK"}),
			AppBefore: contacts, AppAfter: launcher, HashBefore: "0f0f000000000000", HashAfter: "5500000000000001", Changed: true},
		{Step: 3, Action: act(t, "tap_element", map[string]any{"elementId": "1"}), Target: &engine.Target{Text: "Apps", ClassName: "android.widget.TextView"},
			AppBefore: launcher, AppAfter: launcher, HashBefore: "5500000000000001", HashAfter: "5500000000000001"},
		{Step: 4, Action: act(t, "tap_element", map[string]any{"elementId": "1"}), Target: &engine.Target{Text: "Apps", ClassName: "android.widget.TextView"},
			AppBefore: launcher, AppAfter: launcher, HashBefore: "5500000000000001", HashAfter: "5500000000000001"},
		{Step: 5, Action: act(t, "tap_element", map[string]any{"elementId": "2"}), Target: icon("Settings"),
			AppBefore: launcher, AppAfter: permctl, HashBefore: "5500000000000001", HashAfter: "7700000000000000", Changed: true},
		{Step: 6, Action: act(t, "tap_element", map[string]any{"elementId": "3"}),
			Target:    &engine.Target{Text: "Allow", ResourceID: permctl + ":id/permission_allow_button", ClassName: "android.widget.Button", Near: "Allow Settings to send you notifications?"},
			AppBefore: permctl, AppAfter: settings, HashBefore: "7700000000000000", HashAfter: "0383800000000000", Changed: true},
		{Step: 7, Action: act(t, "tap_element", map[string]any{"elementId": "5"}),
			Target:    &engine.Target{ResourceID: "android:id/switch_widget", ClassName: "android.widget.Switch", Index: 1, Near: "Bluetooth"},
			AppBefore: settings, AppAfter: settings, HashBefore: "0383800000000000", HashAfter: "0383800000000000", Changed: true},
		{Step: 8, Action: act(t, "finish", map[string]any{"message": "Bluetooth is on"}), AppBefore: settings},
	}
}

func TestLearnDropsDetoursAndKeepsDialogsAsHandlers(t *testing.T) {
	steps := detourTrace(t)
	p := skills.Learn(steps)
	if p.Start != settings {
		t.Errorf("start app = %q, want %s (the first app the task used)", p.Start, settings)
	}
	if got, want := p.Kept, []int{4, 6, 7}; !equalInts(got, want) {
		t.Errorf("kept = %v, want %v", got, want)
	}
	why := map[int]string{}
	for _, d := range p.Dropped {
		why[d.Step] = d.Why
	}
	for step, want := range map[int]string{1: "detour", 2: "detour", 3: "no effect", 4: "no effect"} {
		if !strings.Contains(why[step], want) {
			t.Errorf("step %d dropped because %q, want %q", step, why[step], want)
		}
	}
	if len(p.Handlers) != 1 || p.Handlers[0].Step != 6 || p.Handlers[0].Kind != skills.DialogPermission ||
		p.Handlers[0].Message != "Allow Settings to send you notifications?" || p.Handlers[0].Label != "Allow" {
		t.Fatalf("handlers = %+v", p.Handlers)
	}
	if p.IconLaunch[4] != settings {
		t.Errorf("the Settings icon tap (a dialog popped up over Settings) launches %q, want %s", p.IconLaunch[4], settings)
	}

	src, _ := skills.GenerateReplay(steps, skills.ReplayOptions{Name: "bt"})
	if err := skillsmod.Check("bt.lua", []byte(src)); err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	for _, want := range []string{
		"-- Step 1 dropped: Tap \"Contacts\" FrameLayout — detour: after step 2 the screen was back where step 1 started.",
		"-- Step 4 dropped: Tap \"Apps\" TextView — had no effect (state_delta changed=false).",
		`{step = 6, kind = "permission", pkg = "com.android.permissioncontroller", message = "Allow Settings to send you notifications?", answer = {id = "com.android.permissioncontroller:id/permission_allow_button", text = "Allow", class = "android.widget.Button"}, label = "Allow"},`,
		"-- Step 6: Tap \"Allow\" Button — answered a permission dialog",
		`return start_app("com.android.settings", {id = "android:id/switch_widget", class = "android.widget.Switch"})`,
		`near = "Bluetooth",`,
	} {
		if !strings.Contains(src, want) {
			t.Errorf("replay lacks %q\n%s", want, src)
		}
	}
	if strings.Contains(src, `index = 1`) {
		t.Errorf("a same-looking target is picked by index instead of its neighbouring label\n%s", src)
	}
	if n := strings.Count(src, "step({id = "); n != 3 {
		t.Errorf("%d steps in the replay, want 3 (start/launch, toggle, finish)\n%s", n, src)
	}

	md := skills.RenderSkill(steps, skills.SkillDoc{Name: "bt", Task: "Turn on Bluetooth"})
	for _, want := range []string{
		"- Start app: com.android.settings, the first app the task used.",
		"answered with Allow whenever it does, never required): the permission dialog com.android.permissioncontroller \"Allow Settings to send you notifications?\"",
		"1. Tap \"Settings\" FrameLayout (replayed as: launch ",
		"## Left out",
		"- step 2: Press BACK — detour",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("skill markdown lacks %q\n%s", want, md)
		}
	}
	if strings.Contains(md, "1. Tap \"Contacts\"") || strings.Contains(md, "Start in: "+launcher) {
		t.Errorf("the markdown's procedure still holds the detour\n%s", md)
	}
}

// TestLearnKeepsWorkThatEndsWhereItStarted: a run that toggles a setting
// and goes back where it started looks like a detour on screen; it is not.
func TestLearnKeepsWorkThatEndsWhereItStarted(t *testing.T) {
	row := &engine.Target{Text: "Wi-Fi", ClassName: "android.widget.LinearLayout"}
	steps := []engine.TraceStep{
		{Step: 1, Action: act(t, "launch_app", map[string]any{"packageName": settings}), AppBefore: launcher, AppAfter: settings,
			HashBefore: "5500000000000000", HashAfter: "0383800000000000", Changed: true},
		{Step: 2, Action: act(t, "tap_element", map[string]any{"elementId": "2"}), Target: row, AppBefore: settings, AppAfter: settings,
			HashBefore: "0383800000000000", HashAfter: "0383800000000000", Changed: true},
		{Step: 3, Action: act(t, "keyevent", map[string]any{"keycode": "KEYCODE_BACK"}), AppBefore: settings, AppAfter: launcher,
			HashBefore: "0383800000000000", HashAfter: "5500000000000000", Changed: true},
		{Step: 4, Action: act(t, "finish", map[string]any{"message": "Wi-Fi is off"}), AppBefore: launcher},
	}
	if p := skills.Learn(steps); len(p.Dropped) != 0 || len(p.Kept) != 4 {
		t.Fatalf("the task was dropped as a detour: %+v", p)
	}
	// Followed by more work, launch + toggle + BACK still is no detour:
	// two steps forward, one back.
	more := append(steps[:3:3], engine.TraceStep{Step: 4, Action: act(t, "launch_app", map[string]any{"packageName": contacts}),
		AppBefore: launcher, AppAfter: contacts, HashBefore: "5500000000000000", HashAfter: "0f0f000000000000", Changed: true})
	if p := skills.Learn(more); len(p.Dropped) != 0 {
		t.Fatalf("toggling a setting was dropped as a detour: %+v", p.Dropped)
	}
	// A toggle tapped on its switch is never part of a detour.
	sw := append([]engine.TraceStep(nil), more...)
	sw[1].Target = &engine.Target{ResourceID: "android:id/switch_widget", ClassName: "android.widget.Switch"}
	sw = append(sw[:2], append([]engine.TraceStep{{Step: 9, Action: act(t, "tap_element", map[string]any{"elementId": "7"}),
		Target: &engine.Target{Text: "About phone", ClassName: "android.widget.LinearLayout"}, AppBefore: settings, AppAfter: settings,
		HashBefore: "0383800000000000", HashAfter: "0383800000000000", Changed: true}}, sw[2:]...)...)
	if p := skills.Learn(sw); len(p.Dropped) != 0 {
		t.Fatalf("a switch toggle was dropped as a detour: %+v", p.Dropped)
	}
}

// TestLearnStartOverUnansweredDialog: the run began over a dialog it never
// answered and launched Settings; the start is Settings, not the dialog.
func TestLearnStartOverUnansweredDialog(t *testing.T) {
	steps := wifiSteps(t)[:2]
	steps[0].AppBefore = permctl
	p := skills.Learn(steps)
	if p.Start != settings || len(p.Handlers) != 0 || len(p.Kept) != 2 {
		t.Fatalf("plan = %+v", p)
	}
	src, _ := skills.GenerateReplay(steps, skills.ReplayOptions{Name: "wifi"})
	if strings.Contains(src, "dialog_shown") || !strings.Contains(src, `return start_app("com.android.settings"`) {
		t.Fatalf("the launch over the dialog is not an unconditional start\n%s", src)
	}
}

// A fixture modelled on AOSP Settings' notification list: every row's
// toggle is android:id/switch_widget, told apart only by the row's title.
const repeatedToggles = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
<hierarchy rotation="0">
  <node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.android.settings" content-desc="" clickable="false" enabled="true" bounds="[0,0][1080,2400]">
    <node index="0" text="" resource-id="com.android.settings:id/recycler_view" class="androidx.recyclerview.widget.RecyclerView" package="com.android.settings" content-desc="" clickable="false" enabled="true" scrollable="true" bounds="[0,200][1080,2200]">
      <node index="0" text="" resource-id="" class="android.widget.LinearLayout" package="com.android.settings" content-desc="" clickable="true" enabled="true" bounds="[0,200][1080,400]">
        <node index="0" text="Wi-Fi" resource-id="android:id/title" class="android.widget.TextView" package="com.android.settings" content-desc="" clickable="false" enabled="true" bounds="[48,250][700,350]" />
        <node index="1" text="" resource-id="android:id/switch_widget" class="android.widget.Switch" package="com.android.settings" content-desc="" checkable="true" checked="true" clickable="true" enabled="true" bounds="[900,250][1032,350]" />
      </node>
      <node index="1" text="" resource-id="" class="android.widget.LinearLayout" package="com.android.settings" content-desc="" clickable="true" enabled="true" bounds="[0,400][1080,600]">
        <node index="0" text="Bluetooth" resource-id="android:id/title" class="android.widget.TextView" package="com.android.settings" content-desc="" clickable="false" enabled="true" bounds="[48,450][700,550]" />
        <node index="1" text="" resource-id="android:id/switch_widget" class="android.widget.Switch" package="com.android.settings" content-desc="" checkable="true" checked="false" clickable="true" enabled="true" bounds="[900,450][1032,550]" />
      </node>
    </node>
  </node>
</hierarchy>`

func TestNearLabelTellsSameLookingTogglesApart(t *testing.T) {
	root, err := screen.ParseHierarchy([]byte(repeatedToggles))
	if err != nil {
		t.Fatal(err)
	}
	toggles := screen.Selector{ID: "android:id/switch_widget"}.MustCompile().FindAll(root)
	if len(toggles) != 2 {
		t.Fatalf("%d toggles in the fixture", len(toggles))
	}
	snap := &screen.Snapshot{Tree: root}
	for i, want := range []string{"Wi-Fi", "Bluetooth"} {
		tg := skills.TargetOfElement(snap, &screen.UIElement{Node: toggles[i]})
		if tg.Near != want || tg.Index != i {
			t.Errorf("toggle %d: near=%q index=%d, want near=%q", i, tg.Near, tg.Index, want)
		}
	}
	// A unique element needs no neighbour.
	title := screen.Selector{Text: "Bluetooth"}.MustCompile().Find(root)
	if tg := skills.TargetOfElement(snap, &screen.UIElement{Node: title}); tg.Near != "" {
		t.Errorf("unique label got near=%q", tg.Near)
	}
}

func TestRequirementsHideSkillsFromTheModel(t *testing.T) {
	ws := t.TempDir()
	dir := filepath.Join(ws, "skills")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pay.md", "---\nname: pay\ndescription: Pay for parking\nmetadata: {\"openclaw\":{\"requires\":{\"env\":[\"PAY_TOKEN\"],\"bins\":[\"paycli\"]}}}\n---\n# Pay\n")
	write("wifi.md", "---\nname: wifi\ndescription: Turn Wi-Fi off\nmetadata: {\"openclaw\":{\"triggers\":{\"any\":[\"wifi\",\"wireless\"]}}}\n---\n# Wi-Fi\n")
	env := map[string]string{}
	bins := map[string]bool{}
	l := &skills.Loader{WorkspaceDir: ws, NoBundled: true, Env: skills.Env{
		Getenv: func(k string) string { return env[k] },
		LookPath: func(b string) (string, error) {
			return "/bin/" + b, map[bool]error{true: nil, false: errors.New("no")}[bins[b]]
		},
	}}
	idx := l.Index(0)
	if len(idx) != 1 || idx[0].Name != "wifi" {
		t.Fatalf("index = %+v, want only wifi (pay misses PAY_TOKEN and paycli)", idx)
	}
	if !strings.Contains(idx[0].Description, `Use when the task mentions: "wifi", "wireless".`) {
		t.Errorf("triggers not shown to the model: %q", idx[0].Description)
	}
	long := strings.Repeat("A very long description. ", 20)
	write("wifi.md", "---\nname: wifi\ndescription: "+long+"\nmetadata: {\"openclaw\":{\"triggers\":{\"any\":[\"wifi\",\"wireless\"]}}}\n---\n# Wi-Fi\n")
	if d := l.Index(0)[0].Description; len([]rune(d)) > 200 || !strings.HasSuffix(d, `Use when the task mentions: "wifi", "wireless".`) {
		t.Errorf("a long description crowds the triggers out of what the prompt shows (200 characters): %q", d)
	}
	all, _ := l.Load()
	_, hidden := skills.Available(all, l.Env)
	if len(hidden) != 1 || strings.Join(hidden[0].Missing, "; ") != "env PAY_TOKEN not set; binary paycli not on PATH" {
		t.Fatalf("hidden = %+v", hidden)
	}
	env["PAY_TOKEN"], bins["paycli"] = "x", true
	if idx := l.Index(0); len(idx) != 2 {
		t.Fatalf("with the requirements met the index is %+v", idx)
	}
}

// TestLearnClassifiesSystemDialogs: answers in the system server's own
// dialogs become handlers of the right kind.
func TestLearnClassifiesSystemDialogs(t *testing.T) {
	for id, kind := range map[string]string{
		"android:id/aerr_wait":     skills.DialogANR,
		"android:id/button_once":   skills.DialogOpenWith,
		"android:id/button_always": skills.DialogOpenWith,
		"android:id/button1":       skills.DialogSystem,
	} {
		steps := []engine.TraceStep{
			{Step: 1, Action: act(t, "launch_app", map[string]any{"packageName": settings}), AppBefore: launcher, AppAfter: "android", Changed: true},
			{Step: 2, Action: act(t, "tap_element", map[string]any{"elementId": "2"}), AppBefore: "android", AppAfter: settings, Changed: true,
				Target: &engine.Target{ResourceID: id, Text: "X", ClassName: "android.widget.Button", Near: "Settings isn't responding"}},
		}
		p := skills.Learn(steps)
		if len(p.Handlers) != 1 || p.Handlers[0].Kind != kind || p.Handlers[0].Package != "android" {
			t.Errorf("%s: handlers %+v, want one %q", id, p.Handlers, kind)
		}
		if len(p.Kept) != 1 {
			t.Errorf("%s: the dialog answer is still a step: kept %v", id, p.Kept)
		}
	}
	back := []engine.TraceStep{{Step: 1, Action: act(t, "keyevent", map[string]any{"keycode": "KEYCODE_BACK"}), AppBefore: "android", AppAfter: settings, Changed: true}}
	if p := skills.Learn(back); len(p.Handlers) != 1 || !p.Handlers[0].Back {
		t.Errorf("BACK in a system dialog: %+v", p.Handlers)
	}
	// BACK on a permission prompt records no message: the replay does not
	// answer every permission prompt that way.
	back[0].AppBefore = permctl
	src, _ := skills.GenerateReplay(back, skills.ReplayOptions{})
	table := src[strings.Index(src, "HANDLERS = {\n"):]
	table = table[:strings.Index(table, "\n}\n")]
	if strings.Contains(table, "back = true") || !strings.Contains(table, "without a recorded message: not repeated") {
		t.Errorf("a message-less permission answer became a catch-all handler:\n%s", table)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
