package android

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// UIDumpXML returns the uiautomator dump of the current screen in the real
// single-line format: one root <node> per window, app window first, then any
// dialog and the soft keyboard, the status bar, the navigation bar and the
// notification shade; under the keyguard only the system windows. The bytes are shared with
// the cache: callers must not modify them.
func (p *Phone) UIDumpXML() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.xmlLocked()
}

func (p *Phone) xmlLocked() []byte {
	if p.xml != nil && p.xmlVersion == p.version {
		return p.xml
	}
	tree := p.treeLocked()
	var buf bytes.Buffer
	buf.WriteString(`<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">`)
	for i, w := range tree.windows {
		writeNode(&buf, w.root, i)
	}
	buf.WriteString(`</hierarchy>`)
	p.xml, p.xmlVersion = buf.Bytes(), p.version
	return p.xml
}

func writeNode(buf *bytes.Buffer, v *view, index int) {
	buf.WriteString(`<node index="`)
	buf.WriteString(strconv.Itoa(index))
	buf.WriteString(`" text="`)
	writeEscaped(buf, v.text)
	buf.WriteString(`" resource-id="`)
	writeEscaped(buf, v.resID)
	buf.WriteString(`" class="`)
	writeEscaped(buf, v.class)
	buf.WriteString(`" package="`)
	writeEscaped(buf, v.pkg)
	buf.WriteString(`" content-desc="`)
	writeEscaped(buf, v.desc)
	writeBool(buf, "checkable", v.checkable)
	writeBool(buf, "checked", v.checked)
	writeBool(buf, "clickable", v.clickable)
	writeBool(buf, "enabled", v.enabled)
	writeBool(buf, "focusable", v.focusable)
	writeBool(buf, "focused", v.focused)
	writeBool(buf, "scrollable", v.scrollable)
	writeBool(buf, "long-clickable", v.longClickable)
	writeBool(buf, "password", v.password)
	writeBool(buf, "selected", false)
	if v.class == clsEdit {
		// Android 8+ exposes the hint separately; only editable fields carry one.
		buf.WriteString(`" hint="`)
		writeEscaped(buf, v.hint)
	}
	buf.WriteString(`" bounds="[`)
	b := v.bounds
	buf.WriteString(strconv.Itoa(b.Min.X))
	buf.WriteByte(',')
	buf.WriteString(strconv.Itoa(b.Min.Y))
	buf.WriteString("][")
	buf.WriteString(strconv.Itoa(b.Max.X))
	buf.WriteByte(',')
	buf.WriteString(strconv.Itoa(b.Max.Y))
	if len(v.children) == 0 {
		buf.WriteString(`]" />`)
		return
	}
	buf.WriteString(`]">`)
	for i, c := range v.children {
		writeNode(buf, c, i)
	}
	buf.WriteString(`</node>`)
}

func writeBool(buf *bytes.Buffer, name string, on bool) {
	buf.WriteString(`" `)
	buf.WriteString(name)
	if on {
		buf.WriteString(`="true`)
	} else {
		buf.WriteString(`="false`)
	}
}

// writeEscaped writes s as XML attribute content. Newlines and tabs become
// character references (as Android's serializer does) so they survive
// attribute-value normalization; characters XML 1.0 forbids become U+FFFD.
func writeEscaped(buf *bytes.Buffer, s string) {
	for _, r := range s {
		switch r {
		case '&':
			buf.WriteString("&amp;")
		case '<':
			buf.WriteString("&lt;")
		case '>':
			buf.WriteString("&gt;")
		case '"':
			buf.WriteString("&quot;")
		case '\'':
			buf.WriteString("&apos;")
		case '\n':
			buf.WriteString("&#10;")
		case '\r':
			buf.WriteString("&#13;")
		case '\t':
			buf.WriteString("&#9;")
		default:
			if r < 0x20 || r == 0xFFFE || r == 0xFFFF || r == utf8.RuneError {
				buf.WriteRune('\uFFFD')
				continue
			}
			buf.WriteRune(r)
		}
	}
}
