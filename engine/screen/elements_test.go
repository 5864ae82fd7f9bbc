package screen

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestScore(t *testing.T) {
	tests := []struct {
		name string
		n    Node
		want int
	}{
		{"plain", Node{Enabled: true}, 0},
		{"clickable", Node{Enabled: true, Clickable: true}, 5},
		{"focusable", Node{Enabled: true, Focusable: true}, 2},
		{"text", Node{Enabled: true, Text: "Hi"}, 4},
		{"blank text", Node{Enabled: true, Text: " \u00a0\u200e"}, 0},
		{"desc", Node{Enabled: true, ContentDesc: "Hi"}, 4},
		{"resource id", Node{Enabled: true, ResourceID: "a:id/b"}, 2},
		{"button", Node{Enabled: true, Class: "android.widget.Button"}, 6},
		{"image button", Node{Enabled: true, Class: "android.widget.ImageButton"}, 10},
		{"edit text", Node{Enabled: true, Class: "android.widget.EditText"}, 3},
		{"everything", Node{Enabled: true, Clickable: true, Focusable: true, Text: "a", ContentDesc: "b", ResourceID: "c", Class: "android.widget.ImageButton"}, 27},
		{"disabled", Node{Enabled: false, Clickable: true, Text: "Save", Class: "android.widget.Button"}, 0},
	}
	for _, tt := range tests {
		if got := Score(&tt.n); got != tt.want {
			t.Errorf("%s: Score = %d, want %d", tt.name, got, tt.want)
		}
	}
	if Score(nil) != 0 {
		t.Error("Score(nil) != 0")
	}
}

func labels(els []UIElement) []string {
	out := make([]string, len(els))
	for i, e := range els {
		l := e.Text
		if l == "" {
			l = e.ContentDesc
		}
		if l == "" {
			l = "<" + simpleClass(e.ClassName) + ">"
		}
		out[i] = e.ID + ":" + l
	}
	return out
}

func TestElementsMultiWindow(t *testing.T) {
	root := parseFixture(t, "multiwindow.xml")
	scale := 1080.0 / 768.0
	els := Elements(root, ElementOptions{Width: 1080, Height: 2400, ScaleX: scale, ScaleY: scale})
	want := []string{
		"1:12:30", "2:Battery 80 percent.", "3:Navigate up", "4:Notes", "5:Search notes",
		"6:<RecyclerView>", "7:Groceries", "8:Milk, eggs & bread", "9:Work", "10:Quarterly report",
		"11:Sync", "12:<ImageView>",
		"13:q", "14:w", "15:e", "16:r", "17:t", "18:y", "19:u", "20:i", "21:o", "22:p",
		"23:Delete", "24:Space",
	}
	got := labels(els)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("elements:\n got %q\nwant %q", got, want)
	}
	// The clickable row is kept with its child's label; the child itself is
	// not listed twice.
	row := els[6]
	if !row.Clickable || row.ClassName != "android.widget.LinearLayout" || row.Node == nil || row.Node.ResourceID != "com.example.notes:id/row" {
		t.Errorf("row element = %+v", row)
	}
	// Disabled Save button dropped.
	for _, e := range els {
		if e.Text == "Save" {
			t.Errorf("disabled element kept: %+v", e)
		}
	}
	up := els[2]
	if up.Bounds != (Rect{0, 147, 126, 273}) || up.Center != (Point{63, 210}) {
		t.Errorf("device geometry = %+v %+v", up.Bounds, up.Center)
	}
	if up.ScaledBounds != (Rect{0, 105, 90, 194}) || up.ScaledCenter != (Point{45, 149}) {
		t.Errorf("scaled geometry = %+v %+v", up.ScaledBounds, up.ScaledCenter)
	}
	// JSON follows seed 000 and leaves the tree node out.
	b, err := json.Marshal(up)
	if err != nil {
		t.Fatal(err)
	}
	const wantJSON = `{"id":"3","text":"","contentDesc":"Navigate up","resourceId":"","className":"android.widget.ImageButton","clickable":true,"enabled":true,"bounds":{"left":0,"top":147,"right":126,"bottom":273},"center":{"x":63,"y":210},"scaledBounds":{"left":0,"top":105,"right":90,"bottom":194},"scaledCenter":{"x":45,"y":149}}`
	if string(b) != wantJSON {
		t.Errorf("json = %s", b)
	}
}

func TestElementsMaxAndMinScore(t *testing.T) {
	root := parseFixture(t, "multiwindow.xml")
	els := Elements(root, ElementOptions{Width: 1080, Height: 2400, MaxElements: 5})
	want := "1:Navigate up|2:Search notes|3:Groceries|4:Work|5:Sync"
	if got := strings.Join(labels(els), "|"); got != want {
		t.Errorf("best 5 = %s, want %s", got, want)
	}
	if els[0].ScaledBounds != els[0].Bounds {
		t.Errorf("scale 0 must mean 1: %+v", els[0].ScaledBounds)
	}
	els = Elements(root, ElementOptions{Width: 1080, Height: 2400, MinScore: 12})
	want = "1:Navigate up|2:Search notes|3:Sync"
	if got := strings.Join(labels(els), "|"); got != want {
		t.Errorf("min score 12 = %s, want %s", got, want)
	}
}

func TestElementsDialogAndUnicode(t *testing.T) {
	root := parseFixture(t, "dialog.xml")
	els := Elements(root, ElementOptions{Width: 1080, Height: 2400})
	want := []string{"1:Notes", "2:Delete \u201cGroceries\u201d & more?", "3:This note will be gone. No undo \U0001F5D1\ufe0f \ue000", "4:<ImageView>", "5:CANCEL", "6:Delete"}
	if got := labels(els); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("elements:\n got %q\nwant %q", got, want)
	}
}

func TestElementsSurfacesAndClipping(t *testing.T) {
	const dump = `<hierarchy rotation="0">
<node class="android.widget.FrameLayout" package="p" clickable="true" focusable="true" bounds="[0,0][1080,2400]">
  <node class="android.view.SurfaceView" package="p" clickable="true" resource-id="p:id/surface" bounds="[0,80][1080,2300]"/>
  <node class="android.view.View" package="p" clickable="true" content-desc="Map" bounds="[0,0][1080,2400]"/>
  <node class="android.widget.Button" package="p" clickable="true" text="Go" bounds="[900,2350][1200,2500]"/>
  <node class="android.widget.Button" package="p" clickable="true" text="Off" bounds="[1200,0][1300,100]"/>
  <node class="android.widget.Button" package="p" clickable="true" text="Hidden" visible-to-user="false" bounds="[0,0][100,100]"/>
  <node class="android.widget.LinearLayout" package="p" bounds="[0,0][0,0]">
    <node class="android.widget.Button" package="p" clickable="true" text="Inner" bounds="[10,10][110,60]"/>
  </node>
</node>
</hierarchy>`
	root, err := ParseHierarchy([]byte(dump))
	if err != nil {
		t.Fatal(err)
	}
	els := Elements(root, ElementOptions{Width: 1080, Height: 2400})
	if got, want := strings.Join(labels(els), "|"), "1:Map|2:Inner|3:Go"; got != want {
		t.Fatalf("elements = %s, want %s", got, want)
	}
	if els[2].Bounds != (Rect{900, 2350, 1080, 2400}) || els[2].Center != (Point{990, 2375}) {
		t.Errorf("not clipped to screen: %+v %+v", els[2].Bounds, els[2].Center)
	}
	// Without a screen size the window bounds are used.
	if got := len(Elements(root, ElementOptions{})); got != 3 {
		t.Errorf("elements without size = %d, want 3", got)
	}
	if Elements(nil, ElementOptions{}) != nil {
		t.Error("nil root")
	}
}

func TestElementsWebView(t *testing.T) {
	root := parseFixture(t, "webview.xml")
	els := Elements(root, ElementOptions{Width: 1080, Height: 2400})
	if len(els) != DefaultMaxElements {
		t.Fatalf("elements = %d, want the cap %d", len(els), DefaultMaxElements)
	}
	// The best-scoring link is always kept, even last in the document.
	found := false
	for i, e := range els {
		if e.ID != itoa(i+1) {
			t.Errorf("element %d has id %q", i, e.ID)
		}
		if e.Text == "Sign in" {
			found = true
		}
		if i > 0 && (e.Bounds.Top < els[i-1].Bounds.Top || (e.Bounds.Top == els[i-1].Bounds.Top && e.Bounds.Left < els[i-1].Bounds.Left)) {
			t.Errorf("not in reading order at %d", i)
		}
	}
	if !found {
		t.Error("Sign in link not kept")
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
