package skills

import (
	"strings"
	"testing"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/screen"
)

func repairTrace(t *testing.T) []engine.TraceStep {
	t.Helper()
	launch, err := action.New("launch_app", map[string]any{"packageName": "com.android.settings"})
	if err != nil {
		t.Fatal(err)
	}
	tap, err := action.New("tap_element", map[string]any{"elementId": "3"})
	if err != nil {
		t.Fatal(err)
	}
	fin, _ := action.New("finish", map[string]any{"message": "done"})
	old := &engine.Target{Text: "Wi-Fi", ResourceID: "com.android.settings:id/wifi_switch", ClassName: "android.widget.Switch",
		Bounds: screen.Rect{Left: 900, Top: 260, Right: 1038, Bottom: 340}}
	return []engine.TraceStep{
		{Step: 1, Action: launch, DeviceAction: launch, AppBefore: "com.android.launcher3", AppAfter: "com.android.settings", Changed: true},
		{Step: 2, Action: tap, DeviceAction: tap, Target: old, AppBefore: "com.android.settings", AppAfter: "com.android.settings", Changed: true},
		{Step: 3, Action: fin, DeviceAction: fin, AppBefore: "com.android.settings", AppAfter: "com.android.settings"},
	}
}

// RepairScript swaps the repaired step's target (and the start anchor
// naming the same element) and leaves every other line as it was.
func TestRepairScriptReplacesOnlyTheRepairedTarget(t *testing.T) {
	src, _ := GenerateReplay(repairTrace(t), ReplayOptions{Name: "wifi"})
	if !strings.Contains(src, `"com.android.settings:id/wifi_switch"`) {
		t.Fatalf("fixture: the script does not select the recorded switch:\n%s", src)
	}
	nt := &engine.Target{Text: "WLAN", ResourceID: "com.android.settings:id/wlan_switch", ClassName: "android.widget.Switch",
		Bounds: screen.Rect{Left: 900, Top: 260, Right: 1038, Bottom: 340}}
	step := 0
	for _, ln := range strings.Split(src, "\n") {
		if strings.HasPrefix(ln, "step({id = ") && strings.Contains(ln, "Tap") {
			step = int(ln[len("step({id = ")] - '0')
		}
	}
	out, err := RepairScript([]byte(src), step, nt)
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	if strings.Contains(got, "wifi_switch\"") || !strings.Contains(got, `id = "com.android.settings:id/wlan_switch"`) {
		t.Fatalf("not repaired:\n%s", got)
	}
	if strings.Count(got, "\n") != strings.Count(src, "\n") {
		t.Fatalf("the rest of the script changed shape: %d lines, was %d", strings.Count(got, "\n"), strings.Count(src, "\n"))
	}
	if _, err := RepairScript([]byte(src), 42, nt); err == nil {
		t.Fatal("a step that is not in the script is an error")
	}
}

func TestNoteRepairAddsADatedSection(t *testing.T) {
	md := NoteRepair([]byte("---\nname: wifi\n---\n\n# Wi-Fi\n"), "2026-11-28: step 2 repaired")
	md = NoteRepair(md, "2026-11-29: step 3 repaired")
	want := "# Wi-Fi\n\n## Repairs\n\n- 2026-11-28: step 2 repaired\n- 2026-11-29: step 3 repaired\n"
	if !strings.HasSuffix(string(md), want) {
		t.Fatalf("got:\n%s", md)
	}
	md = NoteRepair([]byte("# X\n\n## Repairs\n\n- a\n\n## Notes\n\ntext\n"), "b")
	if !strings.Contains(string(md), "- a\n- b\n\n## Notes") {
		t.Fatalf("the line goes at the end of the section:\n%s", md)
	}
}
