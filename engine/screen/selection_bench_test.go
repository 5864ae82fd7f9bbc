package screen

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// dumpNode writes one <node> with the attributes a real dump carries.
func dumpNode(b *strings.Builder, pkg, class, id, text, desc string, clickable bool, r Rect, children func()) {
	fmt.Fprintf(b, `<node index="0" text=%q resource-id=%q class=%q package=%q content-desc=%q checkable="false" checked="false" clickable="%t" enabled="true" focusable="%t" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[%d,%d][%d,%d]"`,
		text, id, class, pkg, desc, clickable, clickable, r.Left, r.Top, r.Right, r.Bottom)
	if children == nil {
		b.WriteString(" />\n")
		return
	}
	b.WriteString(">\n")
	children()
	b.WriteString("</node>\n")
}

// keyboardDump500 is a 1080x2400 screen of about 500 nodes: a status bar,
// a chat app with a long list of rows (container, avatar, name, message,
// time), and a Gboard-like keyboard of 33 keys.
func keyboardDump500() []byte {
	var b strings.Builder
	b.WriteString("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n<hierarchy rotation=\"0\">\n")
	const sys, app, ime = "com.android.systemui", "com.example.chat", "com.google.android.inputmethod.latin"
	dumpNode(&b, sys, "android.widget.FrameLayout", sys+":id/status_bar", "", "", false, Rect{0, 0, 1080, 136}, func() {
		dumpNode(&b, sys, "android.widget.TextView", sys+":id/clock", "9:41", "", false, Rect{42, 40, 150, 100}, nil)
		for i := 0; i < 6; i++ {
			dumpNode(&b, sys, "android.widget.ImageView", "", "", fmt.Sprintf("App %d notification", i), false, Rect{170 + i*56, 46, 218 + i*56, 94}, nil)
		}
	})
	dumpNode(&b, app, "android.widget.FrameLayout", "", "", "", false, Rect{0, 0, 1080, 2400}, func() {
		dumpNode(&b, app, "android.widget.EditText", app+":id/search", "", "", true, Rect{32, 150, 1048, 270}, nil)
		dumpNode(&b, app, "androidx.recyclerview.widget.RecyclerView", app+":id/list", "", "", false, Rect{0, 280, 1080, 2274}, func() {
			for i := 0; i < 92; i++ {
				y := 280 + i*150
				dumpNode(&b, app, "android.widget.RelativeLayout", app+":id/row", "", "", true, Rect{0, y, 1080, y + 150}, func() {
					dumpNode(&b, app, "android.widget.ImageView", app+":id/avatar", "", "open photo", true, Rect{32, y + 15, 152, y + 135}, nil)
					dumpNode(&b, app, "android.widget.TextView", app+":id/name", fmt.Sprintf("Contact %d", i), "", false, Rect{180, y + 15, 800, y + 75}, nil)
					dumpNode(&b, app, "android.widget.TextView", app+":id/message", fmt.Sprintf("Message number %d", i), "", false, Rect{180, y + 75, 1000, y + 135}, nil)
					dumpNode(&b, app, "android.widget.TextView", app+":id/time", "10:42", "", false, Rect{850, y + 15, 1048, y + 75}, nil)
				})
			}
		})
	})
	dumpNode(&b, ime, "android.widget.FrameLayout", ime+":id/keyboard_holder", "", "", false, Rect{0, 1500, 1080, 2274}, func() {
		for i, k := range "qwertyuiopasdfghjklzxcvbnm,.-'?!@" {
			x, y := (i%10)*108, 1520+(i/10)*180
			dumpNode(&b, ime, "android.widget.FrameLayout", fmt.Sprintf("%s:id/key_pos_%d_%d", ime, i/10, i%10), "", string(k), true, Rect{x, y, x + 108, y + 170}, func() {
				dumpNode(&b, ime, "android.widget.TextView", "", string(k), "", false, Rect{x + 20, y + 20, x + 88, y + 150}, nil)
			})
		}
	})
	b.WriteString("</hierarchy>\n")
	return []byte(b.String())
}

// BenchmarkSelect500Keyboard measures element selection on a 500-node dump
// with a keyboard window against parsing the same dump in the same loop:
// select/parse is the ratio the target bounds (selection must not cost
// more than parsing, ≤ 1).
func BenchmarkSelect500Keyboard(b *testing.B) {
	data := keyboardDump500()
	first, err := ParseHierarchy(data)
	if err != nil {
		b.Fatal(err)
	}
	o := ElementOptions{Width: 1080, Height: 2400, ScaleX: 1080.0 / 768, ScaleY: 2400.0 / 1707}
	b.ReportAllocs()
	var parse, sel time.Duration
	var kept int
	for b.Loop() {
		t0 := time.Now()
		root, err := ParseHierarchy(data)
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		kept = len(Select(root, o).Elements)
		parse += t1.Sub(t0)
		sel += time.Since(t1)
	}
	b.ReportMetric(float64(countNodes(first)-1), "nodes")
	b.ReportMetric(float64(kept), "elements")
	b.ReportMetric(float64(sel)/float64(parse), "select/parse")
}

func TestKeyboardDump500(t *testing.T) {
	root, err := ParseHierarchy(keyboardDump500())
	if err != nil {
		t.Fatal(err)
	}
	if n := countNodes(root) - 1; n < 480 || n > 560 {
		t.Errorf("benchmark dump has %d nodes, want about 500", n)
	}
	sel := Select(root, ElementOptions{Width: 1080, Height: 2400})
	if len(sel.Notes) == 0 || sel.Notes[0] != KeyboardNote {
		t.Errorf("notes = %q, want the keyboard folded", sel.Notes)
	}
}
