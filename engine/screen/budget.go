package screen

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// budget keeps the most needed elements whose lines fit the character
// budget, numbers them in reading order and says what it cut.
func (s *selector) budget() Selection {
	var live []*cand
	for _, c := range s.cands {
		if !c.drop {
			live = append(live, c)
		}
	}
	width := len(strconv.Itoa(len(live)))
	placeholder := strings.Repeat("9", width)
	for _, c := range live {
		c.tier = tierOf(c)
		c.line = len(ElementLine(s.element(c, placeholder))) + 1
	}
	s.sortByValue(live)

	notes := s.preNotes()
	used := 0
	for _, n := range notes {
		used += len(n) + 1
	}
	headers := map[int]bool{}
	cutList := map[*Node]int{}
	var listOrder []*Node
	cutWin := map[string]int{} // by window name
	var kept []*cand
	for _, c := range live {
		cost := c.line
		g := groupOf(c)
		h := WindowHeader(c.win.name())
		if h != "" && !headers[g] {
			cost += len(h) + 1
		}
		cut := used+cost > s.o.Budget || (s.o.MaxElements > 0 && len(kept) >= s.o.MaxElements)
		if c.list != nil && cutList[c.list] > 0 {
			cut = true // a list is cut from its first dropped row on
		}
		if !cut {
			used += cost
			headers[g] = true
			kept = append(kept, c)
			continue
		}
		if c.list != nil {
			if cutList[c.list] == 0 {
				listOrder = append(listOrder, c.list)
			}
			cutList[c.list]++
		} else {
			cutWin[c.win.name()]++
		}
	}
	sort.SliceStable(kept, func(i, j int) bool { return readingLess(kept[i], kept[j]) })
	out := make([]UIElement, len(kept))
	for i, c := range kept {
		out[i] = s.element(c, strconv.Itoa(i+1))
	}
	for _, l := range listOrder {
		notes = append(notes, fmt.Sprintf("+%d more %s in list %s; scroll to see", cutList[l], plural(cutList[l], "row"), listName(l)))
	}
	for _, w := range windowWords {
		if n := cutWin[w.name]; n > 0 {
			notes = append(notes, fmt.Sprintf("+%d more %s in the %s not listed (element budget)", n, plural(n, "element"), w.words))
		}
	}
	sel := Selection{Elements: out, Notes: notes}
	maskSecrets(&sel, s.o)
	return sel
}

// sortByValue orders candidates by what the budget keeps first: tier, then
// rows of one list nearest the focus (the far ones are cut), then reading
// order.
func (s *selector) sortByValue(live []*cand) {
	sort.SliceStable(live, func(i, j int) bool {
		a, b := live[i], live[j]
		if a.tier != b.tier {
			return a.tier < b.tier
		}
		if s.focus != nil && a.list != nil && a.list == b.list {
			if da, db := s.focusDistance(a), s.focusDistance(b); da != db {
				return da < db
			}
		}
		return readingLess(a, b)
	})
}

// focusDistance is how far a candidate's centre lies from the focus,
// vertically (rows of a list stack up and down).
func (s *selector) focusDistance(c *cand) int {
	d := c.vis.Center().Y - s.focus.Y
	if d < 0 {
		d = -d
	}
	return d
}

// passwordMask stands for the text of a filled password field, whatever
// its length (some builds report the typed characters, not dots).
const passwordMask = SecretMask

// windowWords name the windows in the notes, in reading order.
var windowWords = []struct{ name, words string }{
	{"", "app"}, {"dialog", "dialog"}, {"behind", "window behind"}, {"keyboard", "keyboard"}, {"system", "system bars"},
}

// preNotes are the notes known before the budget: the folded keyboard and
// what other windows hide.
func (s *selector) preNotes() []string {
	var notes []string
	if s.imeShown && !s.o.KeyboardKeys {
		notes = append(notes, KeyboardNote)
	}
	if n := s.covered[kindIME]; n > 0 {
		notes = append(notes, fmt.Sprintf("%d app %s hidden under the keyboard (back closes it)", n, plural(n, "element")))
	}
	if n := s.covered[kindSystem]; n > 0 {
		notes = append(notes, fmt.Sprintf("%d app %s hidden under a system window", n, plural(n, "element")))
	}
	return notes
}

// element builds the UIElement of a candidate.
func (s *selector) element(c *cand, id string) UIElement {
	n := c.n
	text := nodeText(n)
	desc := nodeDesc(n)
	switch {
	case n.Password && text != "":
		text = passwordMask // what was typed is the user's, not the model's
	case text == "" && desc == "":
		text = c.label
	}
	sb := Rect{
		Left:   scaleCoord(c.vis.Left, s.o.ScaleX),
		Top:    scaleCoord(c.vis.Top, s.o.ScaleY),
		Right:  scaleCoord(c.vis.Right, s.o.ScaleX),
		Bottom: scaleCoord(c.vis.Bottom, s.o.ScaleY),
	}
	center := c.vis.Center()
	e := UIElement{
		ID:            id,
		Text:          text,
		ContentDesc:   desc,
		ResourceID:    n.ResourceID,
		ClassName:     n.Class,
		Clickable:     n.Clickable,
		Enabled:       n.Enabled,
		Bounds:        c.vis,
		Center:        center,
		ScaledBounds:  sb,
		ScaledCenter:  Point{X: scaleCoord(center.X, s.o.ScaleX), Y: scaleCoord(center.Y, s.o.ScaleY)},
		Node:          n,
		Checkable:     n.Checkable,
		Checked:       n.Checked,
		Focused:       n.Focused,
		Password:      n.Password,
		Scrollable:    n.Scrollable,
		Selected:      n.Selected,
		Editable:      editable(n),
		Disabled:      !n.Enabled && interactive(n),
		LongClickable: n.LongClickable && !n.Clickable && c.target,
		Window:        c.win.name(),
		Context:       c.context,
	}
	for _, w := range c.merged {
		e.Clickable = e.Clickable || w.Clickable
		e.Checkable = e.Checkable || w.Checkable
		e.Checked = e.Checked || w.Checked
		e.Selected = e.Selected || w.Selected
		if e.ResourceID == "" {
			e.ResourceID = w.ResourceID
		}
	}
	return e
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
