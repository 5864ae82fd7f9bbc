package screen

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// HierarchyClass is the Class of the root Node returned by ParseHierarchy.
const HierarchyClass = "hierarchy"

// ParseHierarchy parses a `uiautomator dump` into a tree. The returned root
// has Class "hierarchy", its attributes (rotation…) in Attrs, Bounds equal to
// the union of its children, and one child per top-level window root (status
// bar, app, keyboard, dialogs…). Every node keeps its whole subtree, its
// Parent link and its Index from the index attribute; attributes without a
// field of their own go to Attrs. A missing enabled attribute means enabled.
//
// Real-device noise is tolerated: junk before "<?xml" (or "<hierarchy"), a
// BOM, the trailing "UI hierchary dumped to: /dev/tty" line, any line
// endings, characters XML 1.0 forbids (replaced by a space) and malformed
// bounds (zero Rect). Empty input, invalid UTF-8, input holding no
// <hierarchy>/<node> element and a truncated dump are errors.
func ParseHierarchy(data []byte) (*Node, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("screen: empty uiautomator dump")
	}
	start := findStart(data)
	if start < 0 {
		return nil, fmt.Errorf("screen: not a uiautomator dump (no <hierarchy> or <node> element): %s", snippet(data))
	}
	body := data[start:]
	if !utf8.Valid(body) {
		off := invalidUTF8Offset(body)
		return nil, fmt.Errorf("screen: uiautomator dump is not valid UTF-8 (bad byte 0x%02x at offset %d)", body[off], start+off)
	}
	body = sanitizeXMLChars(body)
	root, err := parseTree(body, true)
	if err != nil {
		// Retry leniently (bare '&', unknown entities) before giving up, but
		// report the strict parser's error.
		if lenient, err2 := parseTree(body, false); err2 == nil {
			return lenient, nil
		}
		return nil, err
	}
	return root, nil
}

func findStart(data []byte) int {
	for _, tok := range []string{"<?xml", "<hierarchy", "<node"} {
		if i := bytes.Index(data, []byte(tok)); i >= 0 {
			return i
		}
	}
	return -1
}

func snippet(data []byte) string {
	s := string(bytes.TrimSpace(data))
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return strconv.Quote(strings.ToValidUTF8(s, "\uFFFD"))
}

func invalidUTF8Offset(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return 0
}

// sanitizeXMLChars replaces characters outside the XML 1.0 Char production
// (C0 controls other than tab/LF/CR, U+FFFE, U+FFFF) with a space. It copies
// only when something must change.
func sanitizeXMLChars(b []byte) []byte {
	bad := func(r rune) bool {
		return (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0xFFFE || r == 0xFFFF
	}
	clean := true
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if bad(rune(c)) {
				clean = false
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if bad(r) {
			clean = false
			break
		}
		i += size
	}
	if clean {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if bad(r) {
			out = append(out, ' ')
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

func parseTree(body []byte, strict bool) (*Node, error) {
	d := xml.NewDecoder(bytes.NewReader(body))
	d.Strict = strict
	// The bytes are already known to be UTF-8, whatever the declaration says.
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }

	var root *Node
	var stack []*Node
	var tags []string // element names of stack[done:]
	done := 0         // stack depth at which the document is complete
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			if root == nil {
				return nil, errors.New("screen: not a uiautomator dump: no <hierarchy> or <node> element")
			}
			return nil, fmt.Errorf("screen: truncated uiautomator dump: %d element(s) not closed at end of input", len(stack)-done)
		}
		if err != nil {
			return nil, fmt.Errorf("screen: malformed uiautomator dump: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if root == nil {
				root = &Node{Class: HierarchyClass, Enabled: true}
				stack = append(stack, root)
				if t.Name.Local == HierarchyClass {
					for _, a := range t.Attr {
						if root.Attrs == nil {
							root.Attrs = make(map[string]string, len(t.Attr))
						}
						root.Attrs[attrName(a.Name)] = a.Value
					}
					tags = append(tags, t.Name.Local)
					continue
				}
				// A bare <node> tree without <hierarchy>: the synthetic root
				// stays on the stack and the document ends with that node.
				done = 1
			}
			parent := stack[len(stack)-1]
			n := newNode(t)
			n.Parent = parent
			parent.Children = append(parent.Children, n)
			stack = append(stack, n)
			tags = append(tags, t.Name.Local)
		case xml.EndElement:
			if len(stack) <= done {
				continue
			}
			if open := tags[len(tags)-1]; open != t.Name.Local {
				line, _ := d.InputPos()
				return nil, fmt.Errorf("screen: malformed uiautomator dump: line %d: element <%s> closed by </%s>", line, open, t.Name.Local)
			}
			tags = tags[:len(tags)-1]
			stack = stack[:len(stack)-1]
			if len(stack) == done {
				for _, c := range root.Children {
					root.Bounds = root.Bounds.Union(c.Bounds)
				}
				return root, nil
			}
		}
	}
}

func attrName(n xml.Name) string {
	if n.Space != "" {
		return n.Space + ":" + n.Local
	}
	return n.Local
}

func newNode(t xml.StartElement) *Node {
	n := &Node{Enabled: true}
	for _, a := range t.Attr {
		v := a.Value
		switch attrName(a.Name) {
		case "index":
			n.Index, _ = strconv.Atoi(strings.TrimSpace(v))
		case "text":
			n.Text = v
		case "resource-id":
			n.ResourceID = v
		case "class":
			n.Class = v
		case "package":
			n.Package = v
		case "content-desc":
			n.ContentDesc = v
		case "checkable":
			n.Checkable = v == "true"
		case "checked":
			n.Checked = v == "true"
		case "clickable":
			n.Clickable = v == "true"
		case "enabled":
			n.Enabled = v != "false"
		case "focusable":
			n.Focusable = v == "true"
		case "focused":
			n.Focused = v == "true"
		case "scrollable":
			n.Scrollable = v == "true"
		case "long-clickable":
			n.LongClickable = v == "true"
		case "password":
			n.Password = v == "true"
		case "selected":
			n.Selected = v == "true"
		case "bounds":
			n.Bounds = parseBounds(v)
		default:
			if n.Attrs == nil {
				n.Attrs = make(map[string]string, 4)
			}
			n.Attrs[attrName(a.Name)] = v
		}
	}
	if n.Class == "" && t.Name.Local != "node" {
		n.Class = t.Name.Local
	}
	return n
}
