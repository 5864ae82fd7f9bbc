package screen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	return b
}

func parseFixture(t testing.TB, name string) *Node {
	t.Helper()
	root, err := ParseHierarchy(readFixture(t, name))
	if err != nil {
		t.Fatalf("ParseHierarchy(%s): %v", name, err)
	}
	return root
}

func countNodes(root *Node) int {
	n := 0
	root.Walk(func(*Node) bool { n++; return true })
	return n
}

// findNode returns the first node for which pred holds.
func findNode(root *Node, pred func(*Node) bool) *Node {
	var found *Node
	root.Walk(func(n *Node) bool {
		if found == nil && pred(n) {
			found = n
		}
		return found == nil
	})
	return found
}

func byText(text string) func(*Node) bool {
	return func(n *Node) bool { return n.Text == text }
}

func TestParseHierarchyMultiWindow(t *testing.T) {
	root := parseFixture(t, "multiwindow.xml")
	if root.Class != HierarchyClass || root.Parent != nil {
		t.Fatalf("root = %q parent %v, want hierarchy root", root.Class, root.Parent)
	}
	if got := root.Attrs["rotation"]; got != "0" {
		t.Errorf("rotation = %q, want 0", got)
	}
	if len(root.Children) != 3 {
		t.Fatalf("windows = %d, want 3 (status bar, app, keyboard)", len(root.Children))
	}
	wantPkgs := []string{"com.android.systemui", "com.example.notes", "com.google.android.inputmethod.latin"}
	for i, w := range root.Children {
		if w.Package != wantPkgs[i] {
			t.Errorf("window %d package = %q, want %q", i, w.Package, wantPkgs[i])
		}
		if w.Parent != root {
			t.Errorf("window %d parent not set", i)
		}
	}
	if root.Bounds != (Rect{0, 0, 1080, 2400}) {
		t.Errorf("root bounds = %+v, want union of windows", root.Bounds)
	}
	// Whole tree kept: containers with children are present.
	row := findNode(root, func(n *Node) bool { return n.ResourceID == "com.example.notes:id/row" })
	if row == nil || len(row.Children) != 2 || !row.Clickable {
		t.Fatalf("clickable row container with 2 children not kept: %+v", row)
	}
	if row.Children[1].Index != 1 || row.Children[1].Parent != row {
		t.Errorf("child index/parent wrong: index=%d", row.Children[1].Index)
	}
	sub := findNode(root, func(n *Node) bool { return strings.HasPrefix(n.Text, "Milk") })
	if sub == nil || sub.Text != "Milk, eggs & bread" {
		t.Errorf("entity &amp; not decoded: %+v", sub)
	}
	search := findNode(root, func(n *Node) bool { return n.ResourceID == "com.example.notes:id/search" })
	if search.Hint() != "Search notes" || search.Attrs["visible-to-user"] != "true" {
		t.Errorf("extra attributes not kept in Attrs: %v", search.Attrs)
	}
	win := root.Children[2]
	if win.Attrs["drawing-order"] != "3" || win.Bounds != (Rect{0, 1500, 1080, 2400}) {
		t.Errorf("keyboard window attrs=%v bounds=%+v", win.Attrs, win.Bounds)
	}
	clock := findNode(root, byText("12:30"))
	if clock.Attrs["display-id"] != "0" {
		t.Errorf("display-id not kept: %v", clock.Attrs)
	}
	save := findNode(root, byText("Save"))
	if save.Enabled || !save.Clickable || !save.Focusable {
		t.Errorf("save flags wrong: %+v", save)
	}
	naf := findNode(root, func(n *Node) bool { return n.Attrs["NAF"] == "true" })
	if naf == nil || !naf.Clickable {
		t.Errorf("NAF node not parsed: %+v", naf)
	}
	sw := findNode(root, byText("Sync"))
	if !sw.Checkable || !sw.Checked {
		t.Errorf("switch state: %+v", sw)
	}
	del := findNode(root, func(n *Node) bool { return n.ContentDesc == "Delete" })
	if !del.LongClickable {
		t.Errorf("long-clickable lost")
	}
}

func TestParseHierarchyDialog(t *testing.T) {
	root := parseFixture(t, "dialog.xml")
	if root.Attrs["rotation"] != "1" {
		t.Errorf("rotation = %q", root.Attrs["rotation"])
	}
	if len(root.Children) != 2 {
		t.Fatalf("windows = %d, want 2", len(root.Children))
	}
	dlg := root.Children[1]
	if dlg.Bounds != (Rect{63, 880, 1017, 1520}) {
		t.Errorf("dialog bounds = %+v (rotation must not transform bounds)", dlg.Bounds)
	}
	title := findNode(root, func(n *Node) bool { return n.ResourceID == "android:id/alertTitle" })
	if title.Text != "Delete \u201cGroceries\u201d & more?" {
		t.Errorf("title = %q", title.Text)
	}
	msg := findNode(root, func(n *Node) bool { return n.ResourceID == "android:id/message" })
	if !strings.Contains(msg.Text, "\n") || !strings.Contains(msg.Text, "\U0001F5D1") || !strings.Contains(msg.Text, "\ue000") || !strings.Contains(msg.Text, "\u00a0") {
		t.Errorf("message lost characters: %q", msg.Text)
	}
	// The text keeps every character; the label drops the icon-font glyph.
	if got, want := msg.Label(), "This note will be gone. No undo \U0001F5D1\ufe0f"; got != want {
		t.Errorf("Label() = %q, want %q", got, want)
	}
	broken := findNode(root, byText("broken"))
	if broken == nil || broken.Bounds != (Rect{}) {
		t.Errorf("malformed bounds should give zero Rect: %+v", broken)
	}
	del := findNode(root, func(n *Node) bool { return n.ResourceID == "android:id/button1" })
	if del.Text != "\ufeffDelete" || del.Label() != "Delete" {
		t.Errorf("BOM inside text: raw %q label %q", del.Text, del.Label())
	}
}

func TestParseHierarchyWebView(t *testing.T) {
	root := parseFixture(t, "webview.xml")
	if n := countNodes(root); n != 306 {
		t.Errorf("nodes = %d, want 306", n)
	}
	var webs []*Node
	root.Walk(func(n *Node) bool {
		if n.Class == "android.webkit.WebView" {
			webs = append(webs, n)
		}
		return true
	})
	if len(webs) != 2 || len(webs[0].Children) != 0 || countNodes(webs[1]) != 302 {
		t.Fatalf("webviews = %d (empty one has %d children)", len(webs), len(webs[0].Children))
	}
	if webs[1].Children[59].Children[0].Children[2].Text != "Item 59.2" {
		t.Errorf("deep node text wrong")
	}
}

func TestParseHierarchyVariants(t *testing.T) {
	const nodeXML = `<node index="0" text="Hi" class="android.widget.TextView" bounds="[0,0][10,10]"/>`
	tests := []struct {
		name    string
		in      string
		wantErr string // substring; "" means success
		check   func(t *testing.T, root *Node)
	}{
		{name: "empty", in: "", wantErr: "empty uiautomator dump"},
		{name: "blank", in: " \r\n", wantErr: "empty uiautomator dump"},
		{name: "not xml", in: "ERROR: could not get idle state.\n", wantErr: "not a uiautomator dump"},
		{name: "invalid utf8", in: "<hierarchy><node text=\"\xff\xfe\"/></hierarchy>", wantErr: "not valid UTF-8"},
		{name: "truncated", in: `<?xml version="1.0"?><hierarchy rotation="0"><node index="0">`, wantErr: "truncated"},
		{name: "mismatched", in: `<hierarchy><node></nod></hierarchy>`, wantErr: "malformed"},
		{name: "no decl", in: `<hierarchy rotation="3">` + nodeXML + `</hierarchy>`, check: func(t *testing.T, r *Node) {
			if r.Attrs["rotation"] != "3" || r.Children[0].Text != "Hi" {
				t.Errorf("got %+v", r.Children[0])
			}
		}},
		{name: "bom and junk before decl", in: "junk line\n\ufeff<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\r\n<hierarchy rotation=\"0\">" + nodeXML + "</hierarchy>UI hierchary dumped to: /dev/tty\n", check: func(t *testing.T, r *Node) {
			if len(r.Children) != 1 {
				t.Errorf("children = %d", len(r.Children))
			}
		}},
		{name: "bare node tree", in: nodeXML + "\ntrailing", check: func(t *testing.T, r *Node) {
			if !r.IsRoot() || len(r.Children) != 1 || r.Children[0].Text != "Hi" {
				t.Errorf("bare node not wrapped: %+v", r)
			}
		}},
		{name: "empty hierarchy", in: `<hierarchy rotation="0"/>`, check: func(t *testing.T, r *Node) {
			if len(r.Children) != 0 {
				t.Errorf("children = %d", len(r.Children))
			}
		}},
		{name: "control char replaced", in: "<hierarchy><node text=\"a\x01b\" bounds=\"[0,0][1,1]\"/></hierarchy>", check: func(t *testing.T, r *Node) {
			if r.Children[0].Text != "a b" {
				t.Errorf("text = %q", r.Children[0].Text)
			}
		}},
		{name: "bare ampersand leniency", in: `<hierarchy><node text="Q&A" bounds="[0,0][1,1]"/></hierarchy>`, check: func(t *testing.T, r *Node) {
			if r.Children[0].Text != "Q&A" {
				t.Errorf("text = %q", r.Children[0].Text)
			}
		}},
		{name: "entities and newline", in: `<hierarchy><node text="a&#10;b &lt;c&gt; &quot;d&quot; &apos;e&apos; &#x1F600;" bounds="[0,0][1,1]"/></hierarchy>`, check: func(t *testing.T, r *Node) {
			if got := r.Children[0].Text; got != "a\nb <c> \"d\" 'e' \U0001F600" {
				t.Errorf("text = %q", got)
			}
		}},
		{name: "bounds variants", in: `<hierarchy><node bounds="[-5,10][20,30]"/><node bounds="[1,2][3]"/><node bounds=""/><node bounds=" [1, 2] [3, 4] "/><node/></hierarchy>`, check: func(t *testing.T, r *Node) {
			want := []Rect{{-5, 10, 20, 30}, {}, {}, {1, 2, 3, 4}, {}}
			for i, w := range want {
				if r.Children[i].Bounds != w {
					t.Errorf("node %d bounds = %+v, want %+v", i, r.Children[i].Bounds, w)
				}
			}
			if !r.Children[4].Enabled {
				t.Errorf("missing enabled attribute must mean enabled")
			}
		}},
		{name: "crcrlf pretty", in: "<?xml version='1.0' ?>\r\r\n<hierarchy rotation=\"0\">\r\r\n  <node index=\"2\" text=\"x\" bounds=\"[0,0][5,5]\">\r\r\n    <node index=\"0\" text=\"y\" bounds=\"[0,0][5,5]\" />\r\r\n  </node>\r\r\n</hierarchy>\r\r\n", check: func(t *testing.T, r *Node) {
			if r.Children[0].Index != 2 || r.Children[0].Children[0].Text != "y" {
				t.Errorf("tree wrong: %+v", r.Children[0])
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, err := ParseHierarchy([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tt.wantErr)
				}
				if !strings.HasPrefix(err.Error(), "screen: ") {
					t.Errorf("error %q lacks the package prefix", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			tt.check(t, root)
		})
	}
}

func TestParseHierarchyNotADumpFixture(t *testing.T) {
	_, err := ParseHierarchy(readFixture(t, "not_a_dump.txt"))
	if err == nil || !strings.Contains(err.Error(), "UiTestAutomationBridge") {
		t.Fatalf("err = %v, want one quoting the device output", err)
	}
}

func TestNodeLabelAndWalk(t *testing.T) {
	root := parseFixture(t, "multiwindow.xml")
	row := findNode(root, func(n *Node) bool { return n.ResourceID == "com.example.notes:id/row" })
	if got := row.Label(); got != "Groceries" {
		t.Errorf("row label = %q, want first child's text", got)
	}
	search := findNode(root, func(n *Node) bool { return n.ResourceID == "com.example.notes:id/search" })
	if got := search.Label(); got != "Search notes" {
		t.Errorf("edit label = %q, want hint", got)
	}
	up := findNode(root, func(n *Node) bool { return n.ContentDesc == "Navigate up" })
	if got := up.Label(); got != "Navigate up" {
		t.Errorf("desc label = %q", got)
	}
	if c := row.Center(); c != (Point{540, 500}) {
		t.Errorf("center = %+v", c)
	}
	// Returning false skips a subtree but not its siblings.
	var seen []string
	root.Walk(func(n *Node) bool {
		if n.Package == "com.android.systemui" {
			return false
		}
		if n.Text != "" {
			seen = append(seen, n.Text)
		}
		return true
	})
	if len(seen) == 0 || seen[0] != "Notes" {
		t.Errorf("walk order/skip wrong: %v", seen)
	}
	for _, s := range seen {
		if s == "12:30" {
			t.Errorf("skipped subtree was visited")
		}
	}
	var nilNode *Node
	nilNode.Walk(func(*Node) bool { t.Fatal("walked nil"); return true })
	if nilNode.Label() != "" {
		t.Error("nil label")
	}
}

func TestNormalize(t *testing.T) {
	tests := map[string]string{
		"Save":                    "Save",
		"  Save  ":                "Save",
		"\ufeffSave\u200e":        "Save",
		"New\u00a0note":           "New note",
		"10\u202fkm":              "10 km",
		"two\n\nlines\r\n":        "two lines",
		"a  b":                    "a b",
		"\u200b":                  "",
		"\U0001F600 smile \ue000": "\U0001F600 smile \ue000",
		"caf\u00e9":               "caf\u00e9",
	}
	for in, want := range tests {
		if got := normalize(in); got != want {
			t.Errorf("normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseHierarchy(f *testing.F) {
	for _, name := range []string{"multiwindow.xml", "dialog.xml", "not_a_dump.txt"} {
		f.Add(readFixture(f, name))
	}
	f.Add([]byte(`<hierarchy><node bounds="[0,0][1,1]"><node/></node></hierarchy>`))
	f.Add([]byte(`<node text="&#10;" bounds="[-1,-1][2,2]">`))
	f.Add([]byte("\ufeff<?xml?><hierarchy/>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		root, err := ParseHierarchy(data)
		if err != nil {
			if root != nil {
				t.Fatalf("non-nil root with error %v", err)
			}
			return
		}
		if !root.IsRoot() {
			t.Fatalf("root class %q", root.Class)
		}
		// Everything downstream must cope with whatever parsed.
		root.Walk(func(n *Node) bool {
			if n != root && n.Parent == nil {
				t.Fatalf("missing parent link")
			}
			_ = n.Label()
			return true
		})
		_ = Elements(root, ElementOptions{Width: 100, Height: 100, ScaleX: 2, ScaleY: 2})
		m := Selector{TextContains: "a", Below: &Selector{Clickable: Bool(true)}}.MustCompile()
		_ = m.FindAll(root)
	})
}
