package screen

import (
	"strings"
	"testing"
)

// key names a node in test expectations: "shortid:text", or the class and
// label for anonymous containers.
func key(n *Node) string {
	id, text := shortID(n.ResourceID), normalize(n.Text)
	if id == "" && text == "" {
		return simpleClass(n.Class) + "(" + n.Label() + ")"
	}
	return id + ":" + text
}

func keys(ns []*Node) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = key(n)
	}
	return out
}

func TestSelectorFindAll(t *testing.T) {
	root := parseFixture(t, "form.xml")
	T, F := Bool(true), Bool(false)
	tests := []struct {
		name string
		sel  Selector
		want []string
	}{
		// Text: exact, normalized, against text, content-desc or hint.
		{"text nbsp normalized, invisible skipped", Selector{Text: "Save"}, []string{"save:Save"}},
		{"text unicode hyphen", Selector{Text: "Wi-Fi calling"}, []string{"title:Wi-Fi calling"}},
		{"text selector normalized too", Selector{Text: " Wi\u2011Fi\u00a0calling "}, []string{"title:Wi-Fi calling"}},
		{"text is exact", Selector{Text: "Wi-Fi"}, []string{}},
		{"text matches desc", Selector{Text: "Help"}, []string{"help:"}},
		{"text matches hint", Selector{Text: "Your name"}, []string{"name_input:"}},
		{"text is case sensitive", Selector{Text: "save"}, []string{}},
		{"textContains case-insensitive", Selector{TextContains: "BLUE"}, []string{"title:Bluetooth"}},
		{"textContains on desc", Selector{TextContains: "changes"}, []string{"save:Save"}},
		{"textContains on hint", Selector{TextContains: "address"}, []string{"email_input:ada@example.com"}},
		{"textRegex full match", Selector{TextRegex: `Wi.Fi\s\w+`}, []string{"title:Wi-Fi calling"}},
		{"textRegex anchored", Selector{TextRegex: `Sav`}, []string{}},
		{"textRegex alternation anchored", Selector{TextRegex: `Save|Cancel`}, []string{"cancel:Cancel", "save:Save"}},
		{"textRegex case flag", Selector{TextRegex: `(?i)general`}, []string{":General"}},
		// ID, Desc, Class, Package.
		{"id short", Selector{ID: "save"}, []string{"save:Save"}},
		{"id full", Selector{ID: "com.android.settings:id/save"}, []string{"save:Save"}},
		{"id wrong package", Selector{ID: "com.other:id/save"}, []string{}},
		{"idRegex on the short id", Selector{IDRegex: `.*_input`}, []string{"name_input:", "email_input:ada@example.com"}},
		{"idRegex on the full id", Selector{IDRegex: `com\.android\.settings:id/(save|cancel)`}, []string{"cancel:Cancel", "save:Save"}},
		{"idRegex anchored", Selector{IDRegex: `inp`}, []string{}},
		{"id shared", Selector{ID: "title"}, []string{"title:Wi-Fi calling", "title:Bluetooth", "title:NFC"}},
		{"desc exact", Selector{Desc: "Save changes"}, []string{"save:Save"}},
		{"desc does not match text", Selector{Desc: "Save"}, []string{}},
		{"descContains", Selector{DescContains: "CHANGE"}, []string{"save:Save"}},
		{"class simple", Selector{Class: "Button"}, []string{"cancel:Cancel", "save:Save"}},
		{"class full", Selector{Class: "android.widget.Switch"}, []string{"switch_widget:", "switch_widget:"}},
		{"class partial path no", Selector{Class: "widget.Switch"}, []string{}},
		{"class simple is exact", Selector{Class: "Butto"}, []string{}},
		{"package", Selector{Package: "com.android.systemui"}, []string{"FrameLayout()"}},
		// States.
		{"clickable textviews", Selector{Class: "TextView", Clickable: T}, []string{":General", ":Advanced"}},
		{"not clickable buttons", Selector{Class: "Button", Clickable: F}, []string{}},
		{"disabled", Selector{Enabled: F}, []string{"LinearLayout(NFC)", "title:NFC"}},
		{"checked", Selector{Checked: T}, []string{"switch_widget:"}},
		{"checkable unchecked", Selector{Checkable: T, Checked: F}, []string{"switch_widget:"}},
		{"focused", Selector{Focused: T}, []string{"name_input:"}},
		{"selected", Selector{Selected: T}, []string{":General"}},
		{"scrollable", Selector{Scrollable: T}, []string{"list:"}},
		// Index.
		{"index", Selector{Class: "Button", Index: Int(1)}, []string{"save:Save"}},
		{"index out of range", Selector{Class: "Button", Index: Int(2)}, []string{}},
		// Relations.
		{"below nearest first", Selector{Class: "EditText", Below: &Selector{Text: "Name"}}, []string{"name_input:", "email_input:ada@example.com"}},
		{"below index", Selector{Class: "EditText", Below: &Selector{Text: "Email"}, Index: Int(0)}, []string{"email_input:ada@example.com"}},
		{"above", Selector{Class: "TextView", Above: &Selector{ID: "email_input"}}, []string{"email_label:Email", "name_label:Name", ":General", ":Advanced"}},
		{"right of same row first", Selector{Clickable: T, RightOf: &Selector{Text: "Name"}}, []string{"help:", ":Advanced", "save:Save"}},
		{"left of", Selector{Class: "TextView", LeftOf: &Selector{ID: "help"}, Index: Int(0)}, []string{"name_label:Name"}},
		{"below and above", Selector{Class: "TextView", Below: &Selector{Text: "Name"}, Above: &Selector{Text: "Bluetooth"}}, []string{"title:Wi-Fi calling", "email_label:Email", "summary:On"}},
		{"reference missing", Selector{Class: "EditText", Below: &Selector{Text: "Nope"}}, []string{}},
		{"reference invisible", Selector{Class: "Button", Below: &Selector{ID: "hidden_save"}}, []string{}},
		{"childOf nearest level first", Selector{ID: "title", ChildOf: &Selector{ID: "list"}}, []string{"title:Bluetooth", "title:NFC", "title:Wi-Fi calling"}},
		{"childOf strict", Selector{ID: "list", ChildOf: &Selector{ID: "list"}}, []string{}},
		{"childOf any match", Selector{Class: "Switch", ChildOf: &Selector{Class: "LinearLayout", Clickable: T}}, []string{"switch_widget:", "switch_widget:"}},
		{"contains innermost first", Selector{Contains: &Selector{Text: "Bluetooth"}}, []string{"LinearLayout(Bluetooth)", "list:", "FrameLayout(Name)"}},
		{"contains clickable row", Selector{Clickable: T, Contains: &Selector{Text: "Wi-Fi calling"}}, []string{"LinearLayout(Wi-Fi calling)"}},
		{"contains checked switch", Selector{Clickable: T, Contains: &Selector{Class: "Switch", Checked: F}}, []string{"LinearLayout(Bluetooth)"}},
		{"containsChild only the direct parent", Selector{ContainsChild: &Selector{Text: "Bluetooth"}}, []string{"LinearLayout(Bluetooth)"}},
		{"containsChild is not any descendant", Selector{Clickable: T, ContainsChild: &Selector{Text: "Wi-Fi calling"}}, []string{}},
		{"containsAll needs every one", Selector{Clickable: T, ContainsAll: []*Selector{{Text: "Bluetooth"}, {Class: "Switch"}}}, []string{"LinearLayout(Bluetooth)"}},
		{"containsAll none when one is missing", Selector{Clickable: T, ContainsAll: []*Selector{{Text: "Bluetooth"}, {Text: "NFC"}}}, []string{}},
		{"nested relations", Selector{Class: "Switch", ChildOf: &Selector{Clickable: T, Contains: &Selector{TextContains: "wi-fi"}}}, []string{"switch_widget:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := tt.sel.Compile()
			if err != nil {
				t.Fatalf("Compile(%s): %v", tt.sel, err)
			}
			got := keys(m.FindAll(root))
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("%s:\n got %q\nwant %q", tt.sel, got, tt.want)
			}
			first := m.Find(root)
			if (first == nil) != (len(tt.want) == 0) || (first != nil && key(first) != tt.want[0]) {
				t.Errorf("Find = %v, want first of %q", first, tt.want)
			}
		})
	}
}

func TestSelectorMultiWindowFixture(t *testing.T) {
	root := parseFixture(t, "multiwindow.xml")
	// The keyboard's "Delete" key and the dialog-free app: keys right of "q".
	m := Selector{Desc: "w", RightOf: &Selector{Desc: "q"}, Package: "com.google.android.inputmethod.latin"}.MustCompile()
	if n := m.Find(root); n == nil || n.ContentDesc != "w" {
		t.Fatalf("w key not found: %v", n)
	}
	keysRight := Selector{Clickable: T(), RightOf: &Selector{Desc: "q"}}.MustCompile().FindAll(root)
	if len(keysRight) < 9 || keysRight[0].ContentDesc != "w" || keysRight[1].ContentDesc != "e" {
		t.Errorf("keys right of q, nearest first: %q", keys(keysRight))
	}
	// NAF node is found by class, disabled Save by state.
	if n := (Selector{Class: "ImageView", Clickable: T()}).MustCompile().Find(root); n == nil || n.Attr("NAF") != "true" {
		t.Errorf("NAF node: %v", n)
	}
	if n := (Selector{Text: "Save", Enabled: Bool(false)}).MustCompile().Find(root); n == nil {
		t.Error("disabled Save not found by state")
	}
}

func T() *bool { return Bool(true) }

func TestWebViewSelectors(t *testing.T) {
	root := parseFixture(t, "webview.xml")
	m := Selector{TextRegex: `Item 4\d\.1`, ChildOf: &Selector{Class: "WebView"}}.MustCompile()
	if got := len(m.FindAll(root)); got != 10 {
		t.Errorf("regex matches = %d, want 10", got)
	}
	n := Selector{Text: "Item 10.0"}.MustCompile().Find(root)
	if n == nil {
		t.Fatal("Item 10.0 not found")
	}
	if s := (Selector{Text: "Sign in", Clickable: T()}).MustCompile().Find(root); s == nil {
		t.Error("Sign in link not found")
	}
}

func TestActionTarget(t *testing.T) {
	root := parseFixture(t, "form.xml")
	find := func(s Selector) *Node {
		n := s.MustCompile().Find(root)
		if n == nil {
			t.Fatalf("%s not found", s)
		}
		return n
	}
	bt := find(Selector{Text: "Bluetooth"})
	if got := ActionTarget(bt); got == bt || key(got) != "LinearLayout(Bluetooth)" {
		t.Errorf("label target = %s, want its clickable row", key(got))
	}
	wifi := find(Selector{Text: "Wi-Fi calling"}) // two levels below the row
	if got := ActionTarget(wifi); !got.Clickable || got.Label() != "Wi-Fi calling" {
		t.Errorf("nested label target = %s", key(got))
	}
	save := find(Selector{Text: "Save"})
	if ActionTarget(save) != save {
		t.Error("clickable node must be its own target")
	}
	name := find(Selector{Text: "Name"})
	if ActionTarget(name) != name {
		t.Errorf("label without clickable ancestor must target itself, got %s", key(ActionTarget(name)))
	}
	if ActionTarget(nil) != nil {
		t.Error("nil")
	}
}

func TestSelectorCompileErrors(t *testing.T) {
	cyc := Selector{Text: "a"}
	cyc.Below = &cyc
	tests := []struct {
		name string
		sel  Selector
		want string
	}{
		{"empty", Selector{}, "screen: empty selector: set at least one of"},
		{"index only", Selector{Index: Int(0)}, "empty selector"},
		{"bad regex", Selector{TextRegex: "(unclosed"}, `selector textRegex: invalid regular expression "(unclosed": missing closing )`},
		{"nested bad regex", Selector{Text: "x", ChildOf: &Selector{Contains: &Selector{TextRegex: "a**"}}}, "selector childOf.contains.textRegex: invalid regular expression"},
		{"nested empty", Selector{Text: "x", Below: &Selector{}}, "empty selector below"},
		{"negative index", Selector{Text: "x", Index: Int(-1)}, "selector index: must be >= 0, got -1"},
		{"blank text", Selector{Text: "\u00a0 "}, `selector text: "\u00a0 " is blank`},
		{"blank descContains", Selector{DescContains: "\u200e"}, "selector descContains:"},
		{"cycle", cyc, "nested more than 16 deep"},
	}
	for _, tt := range tests {
		_, err := tt.sel.Compile()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want containing %q", tt.name, err, tt.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("MustCompile did not panic")
		}
	}()
	Selector{}.MustCompile()
}

func TestSelectorString(t *testing.T) {
	tests := []struct {
		sel  Selector
		want string
	}{
		{Selector{}, "<empty selector>"},
		{Selector{Text: "Save", Below: &Selector{ID: "title"}}, `text="Save" below(id="title")`},
		{
			Selector{TextContains: "a", TextRegex: `\d+`, Desc: "d", DescContains: "e", Class: "Button", Package: "p",
				Clickable: Bool(true), Enabled: Bool(false), Checked: Bool(true), Focused: Bool(true), Selected: Bool(false),
				Scrollable: Bool(true), Checkable: Bool(true), Index: Int(2),
				Above: &Selector{Text: "x"}, LeftOf: &Selector{Text: "y"}, RightOf: &Selector{Text: "z"},
				ChildOf: &Selector{ID: "list"}, Contains: &Selector{Class: "Switch", Checked: Bool(false)}},
			`textContains="a" textRegex="\\d+" desc="d" descContains="e" class="Button" package="p" clickable=true enabled=false checked=true focused=true selected=false scrollable=true checkable=true index=2 above(text="x") leftOf(text="y") rightOf(text="z") childOf(id="list") contains(class="Switch" checked=false)`,
		},
		{Selector{Text: "say \"hi\"\n"}, `text="say \"hi\"\n"`},
	}
	for _, tt := range tests {
		if got := tt.sel.String(); got != tt.want {
			t.Errorf("String() =\n %s\nwant\n %s", got, tt.want)
		}
	}
	m := Selector{ID: "x"}.MustCompile()
	if m.String() != `id="x"` || m.Selector().ID != "x" {
		t.Error("matcher string/selector")
	}
	cyc := Selector{Text: "a"}
	cyc.ChildOf = &cyc
	if s := cyc.String(); !strings.Contains(s, "…") {
		t.Errorf("cyclic selector string not bounded: %.80s", s)
	}
	var nilM *Matcher
	if nilM.FindAll(nil) != nil || m.FindAll(nil) != nil {
		t.Error("nil matcher/root")
	}
}
