package screen

import (
	"encoding/json"
	"strings"
	"testing"
)

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
	// The focused app first, in reading order; the row is labelled from
	// its children; the disabled Save button is listed (flagged) and does
	// not lend its text to the icon beside it; the keyboard is one note;
	// the status bar comes last.
	want := []string{
		"1:Navigate up", "2:Notes", "3:Search notes", "4:<RecyclerView>",
		"5:Groceries, Milk, eggs & bread", "6:Work, Quarterly report", "7:Sync", "8:Save", "9:<ImageView>",
		"10:12:30", "11:Battery 80 percent.",
	}
	sel := Select(root, ElementOptions{Width: 1080, Height: 2400, ScaleX: scale, ScaleY: scale})
	if got := labels(sel.Elements); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("selection:\n got %q\nwant %q", got, want)
	}
	if strings.Join(sel.Notes, "|") != KeyboardNote {
		t.Errorf("notes = %q, want the keyboard note", sel.Notes)
	}
	if sel.Elements[9].Window != "system" || sel.Elements[0].Window != "" {
		t.Errorf("windows = %q %q", sel.Elements[9].Window, sel.Elements[0].Window)
	}
	// A task about keys lists them, under their window's header.
	keys := Select(root, ElementOptions{Width: 1080, Height: 2400, KeyboardKeys: true})
	block := ElementBlock(keys.Elements, keys.Notes)
	for _, k := range []string{"[keyboard]\n", `label="q"`, `label="Space"`, `label="Delete"`} {
		if !strings.Contains(block, k) {
			t.Errorf("keys kept: block lacks %s:\n%s", k, block)
		}
	}
	if strings.Contains(block, KeyboardNote) {
		t.Error("keyboard note with the keys listed")
	}
	els := sel.Elements
	// The clickable row is kept with its child's label; the child itself is
	// not listed twice.
	row := els[4]
	if !row.Clickable || row.ClassName != "android.widget.LinearLayout" || row.Node == nil || row.Node.ResourceID != "com.example.notes:id/row" {
		t.Errorf("row element = %+v", row)
	}
	// The disabled Save button is listed, flagged: the person sees it
	// greyed out and knows it wakes up once the note has text.
	if save := els[7]; save.Text != "Save" || !save.Disabled || !strings.HasSuffix(ElementLine(save), " disabled") {
		t.Errorf("disabled Save = %s", ElementLine(save))
	}
	up := els[0]
	if up.Bounds != (Rect{0, 147, 126, 273}) || up.Center != (Point{63, 210}) {
		t.Errorf("device geometry = %+v %+v", up.Bounds, up.Center)
	}
	if up.ScaledBounds != (Rect{0, 105, 90, 194}) || up.ScaledCenter != (Point{45, 149}) {
		t.Errorf("scaled geometry = %+v %+v", up.ScaledBounds, up.ScaledCenter)
	}
	// JSON follows docs/formats.md#screen-snapshot and leaves the tree node out.
	b, err := json.Marshal(up)
	if err != nil {
		t.Fatal(err)
	}
	const wantJSON = `{"id":"1","text":"","contentDesc":"Navigate up","resourceId":"","className":"android.widget.ImageButton","clickable":true,"enabled":true,"bounds":{"left":0,"top":147,"right":126,"bottom":273},"center":{"x":63,"y":210},"scaledBounds":{"left":0,"top":105,"right":90,"bottom":194},"scaledCenter":{"x":45,"y":149}}`
	if string(b) != wantJSON {
		t.Errorf("json = %s", b)
	}
}

func TestElementsBudgetAndCap(t *testing.T) {
	root := parseFixture(t, "multiwindow.xml")
	// A count cap keeps what is needed most: labelled controls outside the
	// list, then its rows, before plain text, the unlabeled icon and the
	// status bar; what is cut is said.
	sel := Select(root, ElementOptions{Width: 1080, Height: 2400, MaxElements: 5})
	want := "1:Navigate up|2:Search notes|3:Groceries, Milk, eggs & bread|4:Work, Quarterly report|5:Sync"
	if got := strings.Join(labels(sel.Elements), "|"); got != want {
		t.Errorf("best 5 = %s, want %s", got, want)
	}
	if sel.Elements[0].ScaledBounds != sel.Elements[0].Bounds {
		t.Errorf("scale 0 must mean 1: %+v", sel.Elements[0].ScaledBounds)
	}
	wantNotes := []string{KeyboardNote, "+4 more elements in the app not listed (element budget)", "+2 more elements in the system bars not listed (element budget)"}
	if strings.Join(sel.Notes, "|") != strings.Join(wantNotes, "|") {
		t.Errorf("notes:\n got %q\nwant %q", sel.Notes, wantNotes)
	}
	// The character budget bounds the block the model reads.
	full := Select(root, ElementOptions{Width: 1080, Height: 2400})
	fullBlock := ElementBlock(full.Elements, full.Notes)
	for _, budget := range []int{200, 400, 700} {
		sel := Select(root, ElementOptions{Width: 1080, Height: 2400, Budget: budget})
		els := ElementBlock(sel.Elements, nil)
		if len(els) > budget {
			t.Errorf("budget %d: element block is %d chars", budget, len(els))
		}
		if len(sel.Elements) == 0 || len(sel.Elements) >= len(full.Elements) {
			t.Errorf("budget %d: %d elements of %d", budget, len(sel.Elements), len(full.Elements))
		}
		if !strings.Contains(strings.Join(sel.Notes, "|"), "not listed") && !strings.Contains(strings.Join(sel.Notes, "|"), "scroll to see") {
			t.Errorf("budget %d: cut not said: %q", budget, sel.Notes)
		}
	}
	if len(fullBlock) > DefaultElementBudget {
		t.Errorf("default block %d chars", len(fullBlock))
	}
}

func TestElementsDialogAndUnicode(t *testing.T) {
	root := parseFixture(t, "dialog.xml")
	els := Elements(root, ElementOptions{Width: 1080, Height: 2400})
	want := []string{"1:Notes", "2:Delete \u201cGroceries\u201d & more?", "3:This note will be gone. No undo \U0001F5D1\ufe0f", "4:<ImageView>", "5:CANCEL", "6:Delete"}
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
	sel := Select(root, ElementOptions{Width: 1080, Height: 2400})
	els := sel.Elements
	if block := ElementBlock(els, nil); len(block) > DefaultElementBudget || len(els) < 20 {
		t.Fatalf("%d elements in %d chars, budget %d", len(els), len(block), DefaultElementBudget)
	}
	// The only control is kept although it is last in the document and
	// the page's text fills the budget; the rest of the page is announced.
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
	if len(sel.Notes) != 1 || !strings.HasSuffix(sel.Notes[0], `more rows in list "Example Domain"; scroll to see`) {
		t.Errorf("notes = %q", sel.Notes)
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
