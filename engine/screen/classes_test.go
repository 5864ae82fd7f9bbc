package screen

import (
	"fmt"
	"strings"
	"testing"
)

// classCases are one screen per kind of failure issue 29 measured on real
// screens (each modelled on the structure of real uiautomator dumps; our
// own fixtures). Each fails on the selection before the fix of its kind.
var classCases = []screenCase{
	{
		file: "class1_disabled_ancestor.xml", kind: "1 enabled controls under an ancestor with enabled=false",
		needed: []string{`label="Checkout" clickable=true class=Button`, `label="Remove" clickable=true`, `label="Increase quantity" clickable=true`,
			`label="Trail running shoes"`, `label="Navigate up" clickable=true`},
		noise: []string{` disabled`},
	},
	{
		file: "class2_noise_budget.xml", kind: "2 file names and repeated captions spend the budget",
		needed: []string{`label="Basic" clickable=true class=RadioButton`, `label="Standard" clickable=true class=RadioButton center=(57,1380) bounds=[28,1358][85,1401] checked`,
			`label="Flex" clickable=true class=RadioButton`, `label="Continue to payment" clickable=true`, `label="Choose your fare"`,
			`label="Basic fare"`, `label="Free changes, 2 bags"`},
		noise: []string{`.png`, `Version=`},
	},
	{
		file: "class3_video_feed.xml", kind: "3 a card labelled by its view count, a generic own description",
		needed: []string{`label="How to repot a monstera without killing it`, `label="Sourdough for beginners: the full guide`,
			`label="Upload a video, Share your first short" clickable=true`},
		noise: []string{`label="12:04`, `label="1.2M views`, `label="button"`},
	},
	{
		file: "class3_notifications.xml", kind: "3 a notification row read as its app header",
		needed: []string{`Are you coming to dinner tonight?" clickable=true`, `Your statement for March is ready" clickable=true`, `label="Clear all" clickable=true`},
		noise:  []string{`label="Messages, •`},
	},
	{
		file: "class3_rows.xml", kind: "3 radio rows read as #checkbox, small toggles folded into their row",
		needed: []string{`label="5 minutes" clickable=true class=RadioButton`, `label="10 minutes" clickable=true class=RadioButton center=`, `label="15 minutes" clickable=true class=RadioButton`,
			`label="Alarm 7:00 AM, Weekdays" clickable=true class=LinearLayout`, `clickable=true class=Switch center=(` /* the toggle of its own */},
		noise: []string{`#checkbox`},
	},
	{
		file: "class4_zero_size_captions.xml", kind: "4 captions with zero-size bounds",
		needed: []string{`label="Home" clickable=true class=FrameLayout`, `label="Explore" clickable=true`, `label="Saved" clickable=true`, `label="Profile" clickable=true`},
		noise:  []string{`#nav_`},
	},
	{
		file: "class5_floating_keyboard.xml", kind: "5 hidden under a keyboard that does not cover them",
		needed: []string{`label="Attach file" clickable=true`, `label="Schedule send" clickable=true`, `label="Quarterly report" clickable=true class=EditText`},
		noise:  []string{`hidden under the keyboard`},
		notes:  []string{KeyboardNote},
	},
	{
		file: "class6_disabled_buttons.xml", kind: "6 disabled controls dropped",
		needed: []string{`label="Just once" clickable=true class=Button center=`, `label="Always" clickable=true class=Button`, `label="Chrome" clickable=true`, `label="Firefox" clickable=true`},
	},
	{
		file: "class7_long_press.xml", kind: "7 long-press-only containers without a label",
		needed: []string{`label="Did you book the table?, 18:02" clickable=false class=LinearLayout`, `label="Yes, 8 pm at Rosa's, 18:05" clickable=false`, `long-clickable`,
			`label="Message" clickable=true class=EditText`},
		noise: []string{`label="" clickable=false`},
	},
	{
		file: "class8_icon_glyphs.xml", kind: "8 icon-font glyphs as labels",
		needed: []string{`label="Back" clickable=true class=TextView`, `label="Favourite" clickable=true`, `label="45 min · 6 servings"`, `label="Start cooking" clickable=true`},
	},
}

// TestSelectionClasses checks each kind's screen: every needed control in
// the list the model reads with the right label, none of the noise.
func TestSelectionClasses(t *testing.T) {
	for _, c := range classCases {
		t.Run(strings.TrimSuffix(c.file, ".xml"), func(t *testing.T) {
			sel := selectCase(t, c)
			if bad := verdict(c, sel); len(bad) > 0 {
				t.Errorf("kind %s: %d problem(s):\n  %s\nthe model read:\n%s", c.kind, len(bad), strings.Join(bad, "\n  "), ElementBlock(sel.Elements, sel.Notes))
			}
		})
	}
}

// When a list does not fit, the rows far from the focus are cut first: a
// TV list focused on its 25th row keeps that row and its neighbours.
func TestBudgetCutsRowsFarFromFocus(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<hierarchy><node class="android.widget.FrameLayout" package="tv.app" bounds="[0,0][1920,1080]">`)
	b.WriteString(`<node class="androidx.recyclerview.widget.RecyclerView" package="tv.app" resource-id="tv.app:id/channels" scrollable="true" bounds="[0,0][1920,1080]">`)
	for i := 0; i < 30; i++ {
		y := i * 36
		focused := "false"
		if i == 24 {
			focused = "true"
		}
		fmt.Fprintf(&b, `<node class="android.widget.LinearLayout" package="tv.app" text="Channel %d" clickable="true" focusable="true" focused="%s" bounds="[0,%d][1920,%d]"/>`, i+1, focused, y, y+36)
	}
	b.WriteString(`</node></node></hierarchy>`)
	root, err := ParseHierarchy([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	sel := Select(root, ElementOptions{Width: 1920, Height: 1080, Budget: 1200})
	block := ElementBlock(sel.Elements, sel.Notes)
	for _, want := range []string{`label="Channel 25"`, `label="Channel 24"`, `label="Channel 26"`, "more rows in list"} {
		if !strings.Contains(block, want) {
			t.Errorf("missing %s in:\n%s", want, block)
		}
	}
	if strings.Contains(block, `label="Channel 1"`) {
		t.Errorf("the row farthest from the focus survived:\n%s", block)
	}
}

// Icon-font glyphs are stripped on every path that names a node: a list's
// name in the "more rows" note and Node.Label (selectors, traces).
func TestGlyphsNeverInLabelsOnAnyPath(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<hierarchy><node class="android.widget.FrameLayout" package="p" bounds="[0,0][1080,2400]">`)
	b.WriteString(`<node class="androidx.recyclerview.widget.RecyclerView" package="p" content-desc="&#xE8B5; Recent" scrollable="true" bounds="[0,0][1080,2400]">`)
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, `<node class="android.widget.TextView" package="p" text="Row %d" clickable="true" bounds="[0,%d][1080,%d]"/>`, i, i*60, i*60+60)
	}
	b.WriteString(`</node></node></hierarchy>`)
	root, err := ParseHierarchy([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	sel := Select(root, ElementOptions{Width: 1080, Height: 2400, Budget: 800})
	block := ElementBlock(sel.Elements, sel.Notes)
	if !strings.Contains(block, `in list "Recent"`) || strings.IndexFunc(block, privateUse) >= 0 {
		t.Errorf("note names the list with a glyph:\n%s", block)
	}
	if l := root.Children[0].Label(); l != "Recent" {
		t.Errorf("Label = %q", l)
	}
}
