package android

import (
	"fmt"
	"image"
	"image/color"
	"strings"
)

// PkgKeyboard is the input method's package, Gboard's, so dumps look like
// a phone's with the keyboard up.
const PkgKeyboard = "com.google.android.inputmethod.latin"

var (
	colKeyboard = color.RGBA{232, 234, 237, 255}
	colKey      = color.RGBA{255, 255, 255, 255}
	colShade    = color.RGBA{48, 48, 52, 255}
)

// keyboardRows are Gboard's QWERTY rows; "" entries are special keys laid
// out by keyboardKey.
var keyboardRows = [][]string{
	{"q", "w", "e", "r", "t", "y", "u", "i", "o", "p"},
	{"a", "s", "d", "f", "g", "h", "j", "k", "l"},
	{"shift", "z", "x", "c", "v", "b", "n", "m", "del"},
	{"symbols", "emoji", ",", "space", ".", "ime_action"},
}

// imeWindow is the soft keyboard, shown while a text field has focus: a
// header (features menu, voice typing) and four rows of keys. Like Gboard's
// in a uiautomator dump, every key is a clickable, focusable FrameLayout
// with a content-desc and a resource-id key_pos_ROW_COL (key_pos_del,
// key_pos_ime_action, … for the special keys), a TextView inside.
func (b *builder) imeWindow() *window {
	p := b.p
	if p.st.focused == "" || !p.st.ext.softKeyboard || p.st.ext.locked || !p.st.awake {
		return nil
	}
	b.pkg = PkgKeyboard
	kbH := min(b.dp(268), (b.h-b.navH)*45/100)
	top := b.h - b.navH - kbH
	root := newView(clsFrame, PkgKeyboard, image.Rect(0, top, b.w, b.h))
	root.look.bg = colKeyboard
	id := func(s string) string { return PkgKeyboard + ":id/" + s }
	headerH := kbH * 44 / 268
	rowH := (kbH - headerH) / len(keyboardRows)
	header := newView(clsFrame, PkgKeyboard, image.Rect(0, top, b.w, top+headerH))
	header.resID = id("keyboard_header_view_holder")
	for i, h := range []struct{ id, desc, glyph string }{
		{"key_pos_header_access_points_menu", "Open features menu", "#"},
		{"key_pos_header_voice", "Voice typing", "v"},
	} {
		x0 := i * b.w / 8
		if i == 1 {
			x0 = b.w - b.w/8
		}
		k := b.node(clsFrame, image.Rect(x0, top, x0+b.w/8, top+headerH))
		k.resID, k.desc, k.clickable, k.focusable = id(h.id), h.desc, true, true
		k.onTap = func() {}
		k.look.glyph, k.look.center, k.look.fg = h.glyph, true, colInk
		header.add(k)
	}
	root.add(header)
	keyboard := newView(clsLinear, PkgKeyboard, image.Rect(0, top+headerH, b.w, b.h-b.navH))
	keyboard.resID = id("keyboard_view")
	for r, row := range keyboardRows {
		y0 := top + headerH + r*rowH
		x := 0
		for c, label := range row {
			w := b.w / 10
			switch label {
			case "shift", "del", "symbols":
				w = b.w * 3 / 20
			case "space":
				w = b.w * 4 / 10
			case "ime_action":
				w = b.w - x
			}
			if r == 1 && c == 0 {
				x = b.w / 20 // the middle row is inset by half a key
			}
			keyboard.add(b.keyboardKey(image.Rect(x, y0, x+w, y0+rowH), r, c, label))
			x += w
		}
	}
	root.add(keyboard)
	return &window{title: "InputMethod", pkg: PkgKeyboard, root: root, ime: true}
}

// keyboardKey builds one key; tapping it edits the focused field.
func (b *builder) keyboardKey(r image.Rectangle, row, col int, label string) *view {
	p := b.p
	key := b.node(clsFrame, r)
	key.clickable, key.focusable = true, true
	key.resID = fmt.Sprintf("%s:id/key_pos_%d_%d", PkgKeyboard, row, col)
	key.desc, key.look.bg = label, colKey
	text := label
	switch label {
	case "shift":
		key.resID, key.desc, text = PkgKeyboard+":id/key_pos_shift", "Shift", "^"
		key.onTap = func() {}
	case "del":
		key.resID, key.desc, text = PkgKeyboard+":id/key_pos_del", "Delete", "<"
		key.onTap = func() { p.keyLocked(keyDel) }
	case "symbols":
		key.resID, key.desc, text = PkgKeyboard+":id/key_pos_switch_to_symbol", "Symbols", "?123"
		key.onTap = func() {}
	case "emoji":
		key.resID, key.desc, text = PkgKeyboard+":id/key_pos_emoji", "Emoji button", ":)"
		key.onTap = func() {}
	case "space":
		key.resID, key.desc, text = PkgKeyboard+":id/key_pos_space", "Space", ""
		key.onTap = func() { p.typeLocked(" ") }
	case "ime_action":
		key.resID, key.desc, text = PkgKeyboard+":id/key_pos_ime_action", imeActionLabel(p.st.focused), ">"
		key.onTap = p.enterLocked
	default:
		typed := label
		key.onTap = func() { p.typeLocked(typed) }
	}
	t := b.text(r, text, "")
	t.look.center = true
	return key.add(t)
}

// imeActionLabel is the enter key's description for the focused field's
// imeOptions: Next on a user name, Done elsewhere.
func imeActionLabel(field string) string {
	if field == fieldUsername {
		return "Next"
	}
	return "Done"
}

// notification is one entry of the shade.
type notification struct {
	app, title, text string
}

// PostNotification adds a notification: an icon in the status bar and an
// entry in the notification shade.
func (p *Phone) PostNotification(appLabel, title, text string) {
	p.locked(func() {
		p.st.ext.notifications = append(p.st.ext.notifications, notification{app: appLabel, title: title, text: text})
		p.changed()
	})
}

// ShadeOpen reports whether the notification shade is pulled down.
func (p *Phone) ShadeOpen() (on bool) { p.locked(func() { on = p.st.ext.shadeOpen }); return }

// withOverlays adds the windows above the system bars: the notification
// shade when pulled down, the keyguard while locked. Under the keyguard
// the app's windows are not shown (and not in the dump), as on a phone.
func (b *builder) withOverlays(windows []*window) []*window {
	b.pkg = PkgSystemUI
	e := &b.p.st.ext
	if e.locked {
		kept := windows[:0]
		for _, w := range windows {
			if w.act == nil && !w.ime {
				kept = append(kept, w)
			}
		}
		return append(kept, b.keyguardWindow())
	}
	if e.shadeOpen {
		windows = append(windows, b.shadeWindow())
	}
	return windows
}

// shadeWindow is the pulled-down notification shade: like Android 12+'s
// NotificationShade window it covers the whole screen (a tap outside the
// panel collapses it); the panel holds quick settings tiles (Wi-Fi,
// Bluetooth) and the notifications, each a clickable row.
func (b *builder) shadeWindow() *window {
	p := b.p
	id := func(s string) string { return PkgSystemUI + ":id/" + s }
	shade := newView(clsFrame, PkgSystemUI, image.Rect(0, 0, b.w, b.h))
	shade.resID = id("notification_shade")
	shade.onTap = func() { p.closeShadeLocked() }
	h := b.statusH + b.dp(160) + len(p.st.ext.notifications)*b.dp(80) + b.dp(48)
	root := newView(clsFrame, PkgSystemUI, image.Rect(0, 0, b.w, min(h, b.h-b.navH)))
	root.resID, root.look.bg = id("notification_panel"), colShade
	root.onTap = func() {} // the panel's background takes taps, like a card
	qs := newView(clsLinear, PkgSystemUI, image.Rect(0, b.statusH, b.w, b.statusH+b.dp(120)))
	qs.resID = id("quick_qs_panel")
	tiles := []struct {
		label string
		on    bool
		flip  func()
	}{
		{"Internet", p.st.wifi, func() { p.st.wifi = !p.st.wifi; p.changed() }},
		{"Bluetooth", p.st.bluetooth, func() { p.st.bluetooth = !p.st.bluetooth; p.changed() }},
	}
	for i, t := range tiles {
		r := image.Rect(b.dp(16)+i*(b.w/2), b.statusH+b.dp(16), (i+1)*(b.w/2)-b.dp(8), b.statusH+b.dp(104))
		tile := b.node(clsSwitch, r)
		state := "Off"
		if t.on {
			state = "On"
		}
		tile.desc, tile.clickable, tile.focusable, tile.checkable, tile.checked = t.label+", "+state, true, true, true, t.on
		tile.onTap = t.flip
		tile.look.bg = colAccent
		label := b.text(r, t.label, id("tile_label"))
		label.look.fg, label.look.center = colWhite, true
		qs.add(tile.add(label))
	}
	root.add(qs)
	y := b.statusH + b.dp(136)
	for _, n := range p.st.ext.notifications {
		row := b.node(clsFrame, image.Rect(b.dp(8), y, b.w-b.dp(8), y+b.dp(72)))
		row.resID, row.clickable, row.focusable = id("expandableNotificationRow"), true, true
		row.desc = n.app + " notification: " + n.title
		row.onTap = func() { p.st.ext.shadeOpen = false; p.changed() }
		row.look.bg = colPage
		app := b.text(image.Rect(b.dp(24), y+b.dp(4), b.w-b.dp(24), y+b.dp(24)), n.app, "android:id/app_name_text")
		title := b.text(image.Rect(b.dp(24), y+b.dp(24), b.w-b.dp(24), y+b.dp(48)), n.title, "android:id/title")
		text := b.text(image.Rect(b.dp(24), y+b.dp(48), b.w-b.dp(24), y+b.dp(72)), n.text, "android:id/text")
		root.add(row.add(app, title, text))
		y += b.dp(80)
	}
	clear := b.button(image.Rect(b.w-b.dp(136), y, b.w-b.dp(16), y+b.dp(40)), "Clear all", id("clear_all"), len(p.st.ext.notifications) > 0, func() {
		p.st.ext.notifications = nil
		p.st.ext.shadeOpen = false
		p.changed()
	})
	root.add(clear)
	return &window{title: "NotificationShade", pkg: PkgSystemUI, root: shade.add(root), modal: true, scrim: true, focus: true}
}

// overlaySwipeLocked routes a swipe to the keyguard or the shade: a swipe
// down from the status bar opens the shade, a swipe up closes it. It
// reports whether an overlay took the swipe.
func (p *Phone) overlaySwipeLocked(from, delta image.Point) bool {
	if p.keyguardSwipeLocked(delta) {
		return true
	}
	e := &p.st.ext
	switch {
	case !e.shadeOpen && from.Y < p.dpLocked(24) && delta.Y > p.dpLocked(100):
		e.shadeOpen = true
	case e.shadeOpen && delta.Y < -p.dpLocked(100):
		e.shadeOpen = false
	default:
		return false
	}
	p.st.focused = ""
	p.changed()
	return true
}

// closeShadeLocked handles BACK and HOME while the shade is down.
func (p *Phone) closeShadeLocked() bool {
	if !p.st.ext.shadeOpen {
		return false
	}
	p.st.ext.shadeOpen = false
	p.changed()
	return true
}

// cmdStatusbar is `cmd statusbar expand-notifications|collapse`.
func statusbarCmd(p *Phone, c *cmdIO) int {
	if len(c.args) < 2 {
		c.errorf("usage: cmd statusbar [expand-notifications|expand-settings|collapse]")
		return 1
	}
	switch c.args[1] {
	case "expand-notifications", "expand-settings":
		p.locked(func() {
			if !p.st.ext.locked {
				p.st.ext.shadeOpen, p.st.focused = true, ""
				p.changed()
			}
		})
	case "collapse":
		p.locked(func() { p.closeShadeLocked() })
	default:
		c.errorf("Unknown command: %s", strings.Join(c.args[1:], " "))
		return 1
	}
	return 0
}

// notificationIcons puts one small icon per notification in the status bar
// after the clock, as phones do; each is an ImageView described by its app.
func (b *builder) notificationIcons(bar *view) {
	x := b.w / 4
	size := b.statusH - b.dp(8)
	for _, n := range b.p.st.ext.notifications {
		icon := newView(clsImage, PkgSystemUI, image.Rect(x, b.dp(4), x+size, b.dp(4)+size))
		icon.resID, icon.desc = PkgSystemUI+":id/notification_icon", n.app+" notification: "+n.title
		icon.look.bg = colWhite
		bar.add(icon)
		x += size + b.dp(4)
	}
}
