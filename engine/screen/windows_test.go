package screen

import (
	"strings"
	"testing"
)

func TestWindowsCoverAndOrder(t *testing.T) {
	// Document order: keyboard, dialog, status bar, app — the kinds decide
	// the order the model reads and what covers what, not the dump order.
	const dump = `<hierarchy rotation="0">
<node class="android.widget.FrameLayout" package="com.touchtype.swiftkey" bounds="[0,1600][1080,2400]">
  <node class="android.widget.FrameLayout" package="com.touchtype.swiftkey" content-desc="a" clickable="true" bounds="[0,1600][108,1800]"/>
</node>
<node class="android.widget.FrameLayout" package="com.example.app" bounds="[100,800][980,1200]">
  <node class="android.widget.TextView" package="com.example.app" text="Discard draft?" bounds="[140,820][940,900]"/>
  <node class="android.widget.Button" package="com.example.app" text="Discard" clickable="true" bounds="[600,1100][940,1180]"/>
</node>
<node class="android.widget.FrameLayout" package="com.android.systemui" bounds="[0,0][1080,100]">
  <node class="android.widget.TextView" package="com.android.systemui" text="12:00" bounds="[20,20][120,80]"/>
</node>
<node class="android.widget.FrameLayout" package="com.example.app" bounds="[0,0][1080,2400]">
  <node class="android.widget.Button" package="com.example.app" text="Top" clickable="true" bounds="[0,100][1080,300]"/>
  <node class="android.widget.Button" package="com.example.app" text="Under dialog" clickable="true" bounds="[0,900][1080,1100]"/>
  <node class="android.widget.Button" package="com.example.app" text="Under keyboard" clickable="true" bounds="[0,1650][1080,1750]"/>
  <node class="android.widget.EditText" package="com.example.app" text="" clickable="true" bounds="[0,1400][1080,1500]"/>
</node>
</hierarchy>`
	root, err := ParseHierarchy([]byte(dump))
	if err != nil {
		t.Fatal(err)
	}
	sel := Select(root, ElementOptions{Width: 1080, Height: 2400})
	got := ElementBlock(sel.Elements, sel.Notes)
	order := []string{`label="Top"`, `class=EditText`, "[dialog]", `label="Discard draft?"`, `label="Discard"`, "[system bars]", `label="12:00"`, KeyboardNote, "1 app element hidden under the keyboard"}
	at := 0
	for _, w := range order {
		i := strings.Index(got[at:], w)
		if i < 0 {
			t.Fatalf("%q missing or out of order in:\n%s", w, got)
		}
		at += i + len(w)
	}
	for _, gone := range []string{"Under dialog", "Under keyboard", `label="a"`} {
		if strings.Contains(got, gone) {
			t.Errorf("%s listed:\n%s", gone, got)
		}
	}
}

func TestWindowsFocusedOverlayAndShade(t *testing.T) {
	// The window holding focus is the top one: the bigger window behind
	// it does not cover it.
	const overlay = `<hierarchy>
<node class="android.widget.FrameLayout" package="tv.launcher" bounds="[0,0][1920,1080]">
  <node class="android.widget.FrameLayout" package="tv.launcher" text="Behind the menu" clickable="true" bounds="[1400,200][1900,400]"/>
  <node class="android.widget.FrameLayout" package="tv.launcher" text="Apps" clickable="true" bounds="[100,200][500,400]"/>
</node>
<node class="android.widget.FrameLayout" package="tv.menu" bounds="[1380,160][1900,820]">
  <node class="android.widget.LinearLayout" package="tv.menu" text="Picture" clickable="true" focused="true" bounds="[1400,180][1880,320]"/>
</node>
</hierarchy>`
	root, err := ParseHierarchy([]byte(overlay))
	if err != nil {
		t.Fatal(err)
	}
	got := labels(Elements(root, ElementOptions{Width: 1920, Height: 1080}))
	if strings.Join(got, "|") != "1:Picture|2:Apps" {
		t.Errorf("overlay = %q", got)
	}

	// A full-screen system window with controls (the shade) is what the
	// person deals with; the app under it is hidden.
	const shade = `<hierarchy>
<node class="android.widget.FrameLayout" package="com.example.app" bounds="[0,0][1080,2400]">
  <node class="android.widget.Button" package="com.example.app" text="Buy" clickable="true" bounds="[0,1000][1080,1200]"/>
</node>
<node class="android.widget.FrameLayout" package="com.android.systemui" bounds="[0,0][1080,2400]">
  <node class="android.widget.FrameLayout" package="com.android.systemui" bounds="[0,0][1080,2400]">
    <node class="android.widget.Switch" package="com.android.systemui" content-desc="Wi-Fi" checkable="true" clickable="true" bounds="[0,200][540,400]"/>
    <node class="android.widget.ScrollView" package="com.android.systemui" resource-id="com.android.systemui:id/notification_stack" scrollable="true" bounds="[0,400][1080,2400]"/>
  </node>
</node>
</hierarchy>`
	if root, err = ParseHierarchy([]byte(shade)); err != nil {
		t.Fatal(err)
	}
	sel := Select(root, ElementOptions{Width: 1080, Height: 2400})
	block := ElementBlock(sel.Elements, sel.Notes)
	if !strings.HasPrefix(block, `mark 1: label="Wi-Fi"`) || strings.Contains(block, "Buy") || strings.Contains(block, "[system bars]") {
		t.Errorf("shade:\n%s", block)
	}
}

func TestSystemBarsAndPanels(t *testing.T) {
	// A status bar whose window root spans the screen is still a bar; a
	// shade pulled halfway is a panel, read first; the app part it does
	// not cover is read after it, as the window behind.
	const dump = `<hierarchy>
<node class="android.widget.FrameLayout" package="com.example.app" bounds="[0,0][1080,2400]">
  <node class="android.widget.Button" package="com.example.app" text="Under the shade" clickable="true" bounds="[0,300][1080,500]"/>
  <node class="android.widget.Button" package="com.example.app" text="Below the shade" clickable="true" bounds="[0,1500][1080,1700]"/>
</node>
<node class="android.widget.FrameLayout" package="com.android.systemui" bounds="[0,0][1080,2400]">
  <node class="android.widget.TextView" package="com.android.systemui" text="12:00" bounds="[20,10][200,90]"/>
</node>
<node class="android.widget.FrameLayout" package="com.android.systemui" resource-id="com.android.systemui:id/notification_panel" bounds="[0,0][1080,820]">
  <node class="android.widget.Switch" package="com.android.systemui" content-desc="Internet, On" checkable="true" checked="true" clickable="true" bounds="[40,100][500,300]"/>
  <node class="android.widget.Button" package="com.android.systemui" text="Clear all" clickable="true" bounds="[700,700][1040,800]"/>
</node>
</hierarchy>`
	root, err := ParseHierarchy([]byte(dump))
	if err != nil {
		t.Fatal(err)
	}
	sel := Select(root, ElementOptions{Width: 1080, Height: 2400})
	got := strings.Join(labels(sel.Elements), "|")
	if got != "1:Internet, On|2:Clear all|3:Below the shade|4:12:00" {
		t.Errorf("elements = %s", got)
	}
	if w := []string{sel.Elements[0].Window, sel.Elements[2].Window, sel.Elements[3].Window}; strings.Join(w, ",") != ",behind,system" {
		t.Errorf("windows = %q", w)
	}
}
