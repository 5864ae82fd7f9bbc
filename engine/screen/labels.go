package screen

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// cleanLabel is a label as the model should read it: XML character
// references that survived a double escape ("&#983536;", "&amp;") decoded,
// private-use glyphs of icon fonts (U+E000–U+F8FF, planes 15–16) removed,
// then normalize. The rest of the text is kept: "\ue68c Bathroom" becomes
// "Bathroom", a label made only of glyphs becomes "".
func cleanLabel(s string) string {
	if isClean(s) && !strings.Contains(s, "&") {
		return s
	}
	if strings.Contains(s, "&") {
		s = decodeRefs(s)
	}
	if strings.IndexFunc(s, privateUse) >= 0 {
		s = strings.Map(func(r rune) rune {
			if privateUse(r) {
				return ' ' // a glyph often stands between words
			}
			return r
		}, s)
	}
	return normalize(s)
}

// privateUse reports code points of the Private Use Areas, where icon fonts
// (Material Icons, Font Awesome…) put their glyphs.
func privateUse(r rune) bool {
	return (r >= 0xE000 && r <= 0xF8FF) || r >= 0xF0000
}

// xmlEntities are the five predefined XML entities.
var xmlEntities = map[string]string{"amp": "&", "lt": "<", "gt": ">", "quot": `"`, "apos": "'"}

// decodeRefs decodes numeric character references ("&#983536;",
// "&#xF0270;") and the five XML entities left in a value that was escaped
// twice. Anything else (a bare "&", "AT&T") is kept as it is.
func decodeRefs(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '&')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], ';')
		if j < 0 {
			break
		}
		ref := s[i+1 : i+j]
		dec, ok := decodeRef(ref)
		b.WriteString(s[:i])
		if ok {
			b.WriteString(dec)
		} else {
			b.WriteString(s[i : i+j+1])
		}
		s = s[i+j+1:]
	}
	if b.Len() == 0 {
		return s
	}
	b.WriteString(s)
	return b.String()
}

func decodeRef(ref string) (string, bool) {
	if v, ok := xmlEntities[ref]; ok {
		return v, true
	}
	if len(ref) < 2 || ref[0] != '#' {
		return "", false
	}
	base, digits := 10, ref[1:]
	if digits[0] == 'x' || digits[0] == 'X' {
		base, digits = 16, digits[1:]
	}
	n, err := strconv.ParseUint(digits, base, 32)
	if err != nil || n > 0x10FFFF || (n >= 0xD800 && n <= 0xDFFF) {
		return "", false
	}
	return string(rune(n)), true
}

// nodeText and nodeDesc are the node's cleaned text and content-desc. A
// description that names nothing is no label: a generic word ("button",
// "touch") or an image's file name ("BPOVO.png?Version=…").
func nodeText(n *Node) string { return cleanLabel(n.Text) }
func nodeDesc(n *Node) string {
	d := cleanLabel(n.ContentDesc)
	if genericDesc[strings.ToLower(d)] || imageFileName.MatchString(d) {
		return ""
	}
	return d
}

// genericDesc are descriptions apps set on every view of a kind.
var genericDesc = map[string]bool{
	"button": true, "touch": true, "image": true, "icon": true, "view": true, "tap": true, "click": true,
	"item": true, "layout": true, "container": true, "null": true, "imageview": true, "double tap to activate": true,
}

// imageFileName matches an image's file name or URL used as its
// description.
var imageFileName = regexp.MustCompile(`(?i)\.(png|jpe?g|webp|gif|svg|bmp)(\?\S*)?$|\.(png|jpe?g|webp|gif|svg)\?|^https?://\S+$`)

// maxLabelParts and maxLabelChars bound a label gathered from descendants;
// maxGathered bounds what is gathered before the parts are chosen.
const (
	maxLabelParts = 3
	maxLabelChars = 100
	maxGathered   = 8
)

// descendantLabel is the label a target without its own borrows from what
// it contains: the texts and descriptions of its descendants, up to three,
// joined by ", " ("Alice, See you at 5, 10:42" for a chat row). Words come
// before metadata (a video card's title before its duration and view
// count, a notification's message before its time); punctuation alone
// ("•") is no part. A descendant with a content-desc stands for its whole
// subtree, so a tab's "Matches, 2 new messages, tab 2 of 4" wins over the
// badge "2" below it. Separate targets inside (a row's own buttons) and
// hidden nodes are skipped; a caption with zero-size bounds (bottom
// navigation labels) still names its control.
func descendantLabel(n *Node) string {
	var all, words, meta []string
	var visit func(*Node)
	add := func(s string) {
		if separator(s) || slices.Contains(all, s) {
			return
		}
		all = append(all, s)
		if metadata(s) {
			meta = append(meta, s)
		} else {
			words = append(words, s)
		}
	}
	visit = func(p *Node) {
		for _, k := range p.Children {
			if len(all) >= maxGathered {
				return
			}
			if k.Attr("visible-to-user") == "false" || interactive(k) {
				continue
			}
			if d := nodeDesc(k); d != "" {
				add(d)
				continue
			}
			if t := nodeText(k); t != "" {
				add(t)
			}
			visit(k)
		}
	}
	visit(n)
	if !slices.ContainsFunc(words, substantial) {
		words, meta = all, nil // a key's "5, JKL": no name to put first
	}
	var parts []string
	size := 0
	for _, p := range append(words, meta...) {
		if len(parts) == maxLabelParts || size >= maxLabelChars {
			break
		}
		parts, size = append(parts, p), size+len(p)
	}
	return strings.Join(parts, ", ")
}

// substantial reports a part that can name a control on its own: two
// words or more, or one long word.
func substantial(s string) bool {
	return len(strings.Fields(s)) >= 2 || len([]rune(s)) >= 8
}

// separator reports a part made only of the dots and dashes layouts put
// between texts ("•", " · ").
func separator(s string) bool {
	return strings.Trim(s, "•·|-–—,:/ ") == ""
}

// metadata reports a part that qualifies rather than names: a short text
// with a digit ("12:04", "1.2M views · 2 days ago", "3") or a very short
// lower-case word ("now", "5m").
func metadata(s string) bool {
	if len([]rune(s)) <= 3 && strings.ToLower(s) == s {
		return true
	}
	return len(strings.Fields(s)) <= 6 && strings.IndexFunc(s, unicode.IsDigit) >= 0
}

// editable reports a text field.
func editable(n *Node) bool {
	c := n.Class
	return strings.HasSuffix(c, "EditText") || strings.HasSuffix(c, "AutoCompleteTextView")
}

// interactive reports a node a tap or typing acts on: clickable, long-
// clickable, checkable, or a text field.
func interactive(n *Node) bool {
	return n.Clickable || n.LongClickable || n.Checkable || editable(n)
}

// captionFor finds the caption of an unlabeled target: the one labelled,
// non-interactive sibling of the node (or of one of its two nearest
// non-interactive ancestors) in a container that pairs an icon with its
// name — directly below the icon (launcher and bank menus) or beside it in
// the same row (a head unit's toggle and its name). A container holding
// several texts is a layout, not a pair, and lends no caption (a toolbar
// title is not its icons' name). It returns the caption node, or nil.
func captionFor(n *Node, taken map[*Node]bool) *Node {
	box := n.Bounds
	tol := max(min(box.Width(), box.Height()), 24)
	cur := n
	for up := 0; up < 3 && cur.Parent != nil && !cur.Parent.IsRoot(); up++ {
		var only *Node
		labelled := 0
		for _, s := range cur.Parent.Children {
			if s == cur || !s.Visible() {
				continue
			}
			if hasLabelledNode(s) {
				labelled++
				only = s
			}
		}
		if labelled > 1 {
			return nil
		}
		if labelled == 1 {
			// The one text of this container is the caption, or there is none.
			if interactive(only) || !only.Enabled || taken[only] || (nodeText(only) == "" && nodeDesc(only) == "") || containsRect(only.Bounds, box) {
				return nil
			}
			if rank, _ := captionPlace(box, only.Bounds, tol); rank != notAdjacent {
				return only
			}
			return nil
		}
		cur = cur.Parent
		if interactive(cur) {
			break
		}
	}
	return nil
}

// hasLabelledNode reports a visible node with text or a description in the
// subtree.
func hasLabelledNode(r *Node) bool {
	found := false
	r.Walk(func(n *Node) bool {
		found = found || (n.Visible() && (nodeText(n) != "" || nodeDesc(n) != ""))
		return !found
	})
	return found
}

// captionPlace ranks where a caption lies relative to an icon: 0 below
// (within the icon's size), 1 right or 2 left in the same row (any gap: the
// container pairs them), notAdjacent otherwise (text above an icon is a
// heading more often than its name); gap is the distance in pixels.
func captionPlace(icon, c Rect, tol int) (rank, gap int) {
	hOverlap := min(icon.Right, c.Right) - max(icon.Left, c.Left)
	vOverlap := min(icon.Bottom, c.Bottom) - max(icon.Top, c.Top)
	cx := (c.Left + c.Right) / 2
	cy := (c.Top + c.Bottom) / 2
	switch {
	case c.Top >= icon.Bottom-tol/4 && c.Top-icon.Bottom <= tol && hOverlap > 0 && cx >= icon.Left-tol && cx <= icon.Right+tol:
		return 0, c.Top - icon.Bottom
	case c.Left >= icon.Right-tol/4 && vOverlap > 0 && cy >= icon.Top-tol/2 && cy <= icon.Bottom+tol/2:
		return 1, c.Left - icon.Right
	case c.Right <= icon.Left+tol/4 && vOverlap > 0 && cy >= icon.Top-tol/2 && cy <= icon.Bottom+tol/2:
		return 2, icon.Left - c.Right
	}
	return notAdjacent, 0
}

const notAdjacent = 99

func containsRect(outer, inner Rect) bool {
	return inner.Left >= outer.Left && inner.Top >= outer.Top && inner.Right <= outer.Right && inner.Bottom <= outer.Bottom
}

// glyphNames are the Material Icons glyphs whose meaning is certain enough
// to name a control drawn with nothing else.
var glyphNames = map[rune]string{
	0xE5C4: "Back", 0xE5CB: "Back", 0xE5E0: "Back", 0xE2EA: "Back", // arrow_back, chevron_left, arrow_back_ios(_new)
	0xE5CD: "Close", 0xE8B6: "Search", 0xE5D2: "Menu", 0xE5D4: "More options", 0xE80D: "Share",
}

// backID matches the resource ids of back and up buttons.
var backID = regexp.MustCompile(`(?i)(^|[_.])(back|up|navigate_?up|nav_?back|go_?back)([_.]|btn|button|$)`)

// glyphName names a control whose text is only icon-font glyphs (which are
// never a label): a known glyph's meaning, or "Back" for a back button by
// its resource id; "" otherwise.
func glyphName(n *Node) string {
	t := strings.TrimSpace(n.Text)
	if t == "" || nodeText(n) != "" {
		return ""
	}
	for _, r := range t {
		if name, ok := glyphNames[r]; ok {
			return name
		}
	}
	if backID.MatchString(shortID(n.ResourceID)) {
		return "Back"
	}
	return ""
}
