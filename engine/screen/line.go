package screen

import (
	"fmt"
	"strings"
)

// lineLabelRunes caps a label on an element line.
const lineLabelRunes = 80

// ElementLine is one element as the model reads it, in the scaled space:
//
//	mark 3: label="Search" clickable=true class=EditText center=(384,120) bounds=[40,90][728,150] focused
//
// An element without a label shows its resource id ("#send"). Flags follow
// the geometry: focused, password, checked or unchecked (checkable),
// selected, scrollable, disabled (greyed out), long-clickable (reacts only
// to a long press), empty (a text field showing its hint), and in="…"
// (the row of an element whose label others share).
func ElementLine(e UIElement) string {
	label := e.Text
	if label == "" {
		label = e.ContentDesc
	}
	if label == "" && e.ResourceID != "" {
		label = "#" + e.ResourceID[strings.LastIndex(e.ResourceID, "/")+1:]
	}
	var b strings.Builder
	b.Grow(128)
	sb := e.ScaledBounds
	fmt.Fprintf(&b, "mark %s: label=%q clickable=%t class=%s center=(%d,%d) bounds=[%d,%d][%d,%d]",
		e.ID, clip(label, lineLabelRunes), e.Clickable, simpleClass(e.ClassName), e.ScaledCenter.X, e.ScaledCenter.Y, sb.Left, sb.Top, sb.Right, sb.Bottom)
	if e.Context != "" {
		fmt.Fprintf(&b, " in=%q", clip(e.Context, 40))
	}
	flag := func(on bool, name string) {
		if on {
			b.WriteByte(' ')
			b.WriteString(name)
		}
	}
	flag(e.Focused, "focused")
	flag(e.Password, "password")
	flag(e.Checkable && e.Checked, "checked")
	flag(e.Checkable && !e.Checked, "unchecked")
	flag(e.Selected, "selected")
	flag(e.Scrollable, "scrollable")
	flag(e.Disabled, "disabled")
	flag(e.LongClickable && !e.Clickable, "long-clickable")
	flag(e.Editable && e.Node != nil && cleanLabel(e.Node.Text) == "", "empty")
	return b.String()
}

// WindowHeader is the line that opens a group of elements of another
// window than the focused app ("" for the app itself).
func WindowHeader(window string) string {
	switch window {
	case "":
		return ""
	case "system":
		return "[system bars]"
	case "behind":
		return "[window behind]"
	}
	return "[" + window + "]"
}

// ElementBlock renders a selection the way the model reads it: element
// lines with a header before each other window's group, then the notes.
func ElementBlock(els []UIElement, notes []string) string {
	var b strings.Builder
	cur := ""
	for _, e := range els {
		if e.Window != cur {
			cur = e.Window
			if h := WindowHeader(cur); h != "" {
				b.WriteString(h)
				b.WriteByte('\n')
			}
		}
		b.WriteString(ElementLine(e))
		b.WriteByte('\n')
	}
	for _, n := range notes {
		b.WriteString(n)
		b.WriteByte('\n')
	}
	return b.String()
}

// clip joins whitespace and cuts s to max runes, marking the cut with "…".
func clip(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}
