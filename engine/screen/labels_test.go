package screen

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCleanLabel(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Save", "Save"},
		{"\ue68c Bathroom", "Bathroom"},
		{"Locked \U000f033e", "Locked"},
		{"\U000f01f0", ""},
		{"&#983536;", ""},                                // a glyph escaped twice
		{"&#983536; Lights", "Lights"},                   // the rest is kept
		{"Tom &amp; Jerry", "Tom & Jerry"},               // an entity escaped twice
		{"&#x48;i &#233;t&#xE9;", "Hi été"},              // numeric references
		{"AT&T & co; ok", "AT&T & co; ok"},               // a bare & stays
		{"&#xD800; &#99999999;", "&#xD800; &#99999999;"}, // not characters
		{"a\u00a0\u00a0b\u200e", "a b"},
		{"\uf8ff\ue000", ""},
		{"🗑️ Trash", "🗑️ Trash"}, // emoji are not private use
	} {
		if got := cleanLabel(tc.in); got != tc.want {
			t.Errorf("cleanLabel(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestDescendantLabel(t *testing.T) {
	const dump = `<hierarchy>
<node class="android.widget.FrameLayout" package="p" clickable="true" bounds="[0,0][200,100]">
  <node class="android.widget.FrameLayout" package="p" content-desc="Matches, 2 new, tab 2 of 4" bounds="[0,0][200,100]">
    <node class="android.widget.TextView" package="p" text="2" bounds="[150,0][200,40]"/>
  </node>
</node>
<node class="android.widget.LinearLayout" package="p" clickable="true" bounds="[0,100][1080,300]">
  <node class="android.widget.ImageView" package="p" content-desc="open photo" clickable="true" bounds="[0,100][100,200]"/>
  <node class="android.widget.TextView" package="p" text="Ann" bounds="[120,100][600,150]"/>
  <node class="android.widget.TextView" package="p" text="Ann" bounds="[120,150][600,200]"/>
  <node class="android.widget.TextView" package="p" text="hidden" visible-to-user="false" bounds="[120,150][600,200]"/>
  <node class="android.widget.LinearLayout" package="p" bounds="[120,200][600,300]">
    <node class="android.widget.TextView" package="p" text="hi there" bounds="[120,200][600,250]"/>
    <node class="android.widget.TextView" package="p" text="9:00" bounds="[120,250][600,300]"/>
    <node class="android.widget.TextView" package="p" text="4th" bounds="[120,250][600,300]"/>
  </node>
</node>
</hierarchy>`
	root, err := ParseHierarchy([]byte(dump))
	if err != nil {
		t.Fatal(err)
	}
	// A child's description stands for its subtree: the badge is not the label.
	if got := descendantLabel(root.Children[0]); got != "Matches, 2 new, tab 2 of 4" {
		t.Errorf("tab label = %q", got)
	}
	// Row: the separate avatar button and invisible text are skipped,
	// repeats are dropped, three parts at most.
	if got := descendantLabel(root.Children[1]); got != "Ann, hi there, 9:00" {
		t.Errorf("row label = %q", got)
	}
}

func TestCaptionFor(t *testing.T) {
	const dump = `<hierarchy>
<node class="android.widget.LinearLayout" package="p" bounds="[0,0][1080,300]">
  <node class="android.widget.LinearLayout" package="p" bounds="[0,0][270,300]">
    <node class="android.widget.FrameLayout" package="p" resource-id="p:id/circle" clickable="true" bounds="[70,10][200,140]"/>
    <node class="android.widget.TextView" package="p" text="Transfer" bounds="[10,150][260,200]"/>
  </node>
  <node class="android.widget.LinearLayout" package="p" bounds="[270,0][1080,100]">
    <node class="android.widget.TextView" package="p" text="Far caption" bounds="[300,20][700,80]"/>
    <node class="android.widget.Switch" package="p" clickable="true" checkable="true" bounds="[900,10][1060,90]"/>
  </node>
  <node class="android.widget.LinearLayout" package="p" bounds="[270,100][1080,200]">
    <node class="android.widget.TextView" package="p" text="Title" bounds="[300,110][700,190]"/>
    <node class="android.widget.TextView" package="p" text="Subtitle" bounds="[300,110][700,190]"/>
    <node class="android.widget.ImageView" package="p" clickable="true" bounds="[900,110][1060,190]"/>
  </node>
  <node class="android.widget.LinearLayout" package="p" bounds="[270,200][1080,300]">
    <node class="android.widget.Button" package="p" text="Save" enabled="false" clickable="true" bounds="[300,210][700,290]"/>
    <node class="android.widget.ImageView" package="p" clickable="true" bounds="[900,210][1060,290]"/>
  </node>
  <node class="android.widget.LinearLayout" package="p" bounds="[0,300][270,600]">
    <node class="android.widget.TextView" package="p" text="Heading above" bounds="[10,300][260,350]"/>
    <node class="android.widget.ImageView" package="p" clickable="true" bounds="[70,360][200,490]"/>
  </node>
</node>
</hierarchy>`
	root, err := ParseHierarchy([]byte(dump))
	if err != nil {
		t.Fatal(err)
	}
	rows := root.Children[0].Children
	icon := func(row int) *Node {
		for _, k := range rows[row].Children {
			if k.Clickable && k.Enabled {
				return k
			}
		}
		t.Fatalf("row %d has no icon", row)
		return nil
	}
	want := []string{"Transfer", "Far caption", "", "", ""}
	for i, w := range want {
		got := ""
		if c := captionFor(icon(i), map[*Node]bool{}); c != nil {
			got = c.Text
		}
		if got != w {
			t.Errorf("row %d: caption %q, want %q", i, got, w)
		}
	}
	// A caption already taken is not lent twice.
	taken := map[*Node]bool{rows[0].Children[1]: true}
	if c := captionFor(icon(0), taken); c != nil {
		t.Errorf("taken caption lent again: %q", c.Text)
	}
}

func TestTaskNeedsKeys(t *testing.T) {
	for task, want := range map[string]bool{
		"Send Ada an email saying hi":          false,
		"press the search key on the keyboard": true,
		"Switch the Keyboard to French":        true,
		"type 1234 on the keypad":              true,
		"open the keys app":                    true,
		"book a hotel in Keystone":             false,
		"":                                     false,
	} {
		if got := TaskNeedsKeys(task); got != want {
			t.Errorf("TaskNeedsKeys(%q) = %t", task, got)
		}
	}
}

func TestElementLineFlags(t *testing.T) {
	field := &Node{Class: "android.widget.EditText"}
	e := UIElement{ID: "7", Text: "Password", ClassName: "android.widget.EditText", Clickable: true,
		ScaledBounds: Rect{10, 20, 30, 40}, ScaledCenter: Point{20, 30}, Focused: true, Password: true, Editable: true, Node: field}
	want := `mark 7: label="Password" clickable=true class=EditText center=(20,30) bounds=[10,20][30,40] focused password empty`
	if got := ElementLine(e); got != want {
		t.Errorf("line:\n got %s\nwant %s", got, want)
	}
	sw := UIElement{ID: "2", ResourceID: "p:id/wifi_switch", ClassName: "android.widget.Switch", Checkable: true, Selected: true, Context: "Home Wi-Fi"}
	if got := ElementLine(sw); !strings.Contains(got, `label="#wifi_switch"`) || !strings.HasSuffix(got, ` in="Home Wi-Fi" unchecked selected`) {
		t.Errorf("switch line = %s", got)
	}
	sw.Checked = true
	if got := ElementLine(sw); !strings.Contains(got, " checked selected") || strings.Contains(got, "unchecked") {
		t.Errorf("checked switch line = %s", got)
	}
	list := UIElement{ID: "3", Text: strings.Repeat("x", 200), ClassName: "RecyclerView", Scrollable: true}
	if got := ElementLine(list); !strings.Contains(got, strings.Repeat("x", 80)+`…"`) || !strings.HasSuffix(got, " scrollable") {
		t.Errorf("long label line = %s", got)
	}
}

func TestElementBlockHeaders(t *testing.T) {
	els := []UIElement{{ID: "1", Text: "A"}, {ID: "2", Text: "B", Window: "dialog"}, {ID: "3", Text: "C", Window: "dialog"}, {ID: "4", Text: "D", Window: "system"}}
	got := ElementBlock(els, []string{KeyboardNote})
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	want := []string{"mark 1", "[dialog]", "mark 2", "mark 3", "[system bars]", "mark 4", KeyboardNote}
	if len(lines) != len(want) {
		t.Fatalf("block:\n%s", got)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %q, want prefix %q", i, lines[i], w)
		}
	}
}

func TestPasswordTextIsMasked(t *testing.T) {
	const dump = `<hierarchy>
<node class="android.widget.FrameLayout" package="p" bounds="[0,0][1080,2400]">
  <node class="android.widget.EditText" package="p" text="hunter2" password="true" clickable="true" bounds="[0,100][1080,200]"/>
  <node class="android.widget.EditText" package="p" text="" hint="Password" password="true" clickable="true" bounds="[0,200][1080,300]"/>
</node>
</hierarchy>`
	root, err := ParseHierarchy([]byte(dump))
	if err != nil {
		t.Fatal(err)
	}
	sel := Select(root, ElementOptions{Width: 1080, Height: 2400})
	block := ElementBlock(sel.Elements, sel.Notes)
	if strings.Contains(block, "hunter2") || !strings.Contains(block, `label="••••" clickable=true class=EditText`) {
		t.Errorf("filled password field:\n%s", block)
	}
	if !strings.Contains(block, `label="Password" clickable=true class=EditText center=(540,250) bounds=[0,200][1080,300] password empty`) {
		t.Errorf("empty password field:\n%s", block)
	}
}

// FuzzCleanLabel: whatever the text, the label holds no private-use glyph,
// is valid UTF-8 when the input was, and is trimmed.
func FuzzCleanLabel(f *testing.F) {
	for _, s := range []string{"\ue68c Bathroom", "&#983536;", "&amp;#x41;", "a&b;c", "\U000f0000\u00a0x", "&#xD800;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := cleanLabel(s)
		if strings.IndexFunc(got, privateUse) >= 0 {
			t.Fatalf("cleanLabel(%q) = %q keeps a private-use glyph", s, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("cleanLabel(%q) = %q is not valid UTF-8", s, got)
		}
		if got != strings.TrimSpace(got) {
			t.Fatalf("cleanLabel(%q) = %q is not trimmed", s, got)
		}
	})
}
