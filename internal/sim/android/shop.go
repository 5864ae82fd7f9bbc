package android

import (
	"image/color"
	"sort"
	"strings"
)

// PkgShop is a checkout screen built from the structures real dumps show
// and element selection used to get wrong (issue 29's classes): the page
// sits in a container with enabled="false" while its controls are enabled
// (Android does not pass enabled down); a greyed-out "Apply coupon" button;
// delivery radio rows whose RadioButton's only id is "checkbox", its title
// a cousin TextView; a 54 px gift-wrap switch inside a row that is a
// control of its own; a seller's note that reacts only to a long press; a
// back button drawn with an icon-font glyph; bottom tabs whose captions
// report zero-size bounds. Each control records its effect (ShopLog).
const PkgShop = "com.openpocket.shop"

// The shop's state lives in the settings map under a namespace no
// `settings` command reads (as the Tasks app's), so Reset clears it.
const shopNS = "openpocket.shop/"

var shopItems = []string{"Trail running shoes", "Merino socks"}

func init() {
	apps = append(apps, &app{pkg: PkgShop, label: "Shop", mainActivity: ".CheckoutActivity", launchable: true,
		activities: []string{".CheckoutActivity"}, uid: 10108})
	sort.Slice(apps, func(i, j int) bool { return apps[i].pkg < apps[j].pkg })
	toolbarColors[PkgShop] = color.RGBA{0, 121, 107, 255}
	iconColors[PkgShop] = color.RGBA{38, 166, 154, 255}
}

// ShopLog returns what the shop's controls did, oldest first, for tests:
// "removed Merino socks", "delivery Express", "gift wrap on", "note menu",
// "back", "tab Saved", "checkout".
func (p *Phone) ShopLog() (log []string) {
	p.locked(func() {
		if s := p.st.settings[shopNS+"log"]; s != "" {
			log = strings.Split(s, "\n")
		}
	})
	return
}

func (p *Phone) shopDoLocked(what string) {
	if s := p.st.settings[shopNS+"log"]; s != "" {
		what = s + "\n" + what
	}
	p.st.settings[shopNS+"log"] = what
	p.changed()
}

func (p *Phone) shopGetLocked(key string) string { return p.st.settings[shopNS+key] }

// shopView lays the checkout screen out.
func (b *builder) shopView() *view {
	p := b.p
	id := func(s string) string { return PkgShop + ":id/" + s }
	root := b.root(colPage)
	top := b.statusH + b.dp(56)
	bar := b.node(clsFrame, b.rect(0, b.statusH, b.w, top))
	bar.resID, bar.look.bg = id("toolbar"), toolbarColors[PkgShop]
	// The back arrow is Material Icons' arrow_back (U+E5C4) in a TextView.
	back := b.node(clsText, b.rect(0, b.statusH, b.dp(56), top))
	back.text, back.resID, back.clickable, back.focusable = "\ue5c4", id("back"), true, true
	back.onTap = func() { p.shopDoLocked("back") }
	back.look.fg, back.look.center = colWhite, true
	title := b.text(b.rect(b.dp(72), b.statusH, b.w-b.dp(16), top), "Checkout", "android:id/title")
	title.look.textScale, title.look.fg = b.title, colWhite
	root.add(bar.add(back, title))

	tabsTop := b.h - b.navH - b.dp(56)
	page := b.node(clsLinear, b.rect(0, top, b.w, tabsTop))
	page.resID, page.enabled = id("content"), false // the enabled controls inside still work
	y := top
	for _, item := range shopItems {
		if p.shopGetLocked("removed_"+item) != "" {
			continue
		}
		y = b.shopItemRow(page, item, y)
	}
	y = b.shopDelivery(page, y)
	y = b.shopGiftWrap(page, y)
	coupon := b.button(b.rect(b.dp(16), y+b.dp(8), b.w/2-b.dp(8), y+b.dp(56)), "Apply coupon", id("apply_coupon"), false, nil)
	checkout := b.button(b.rect(b.w/2+b.dp(8), y+b.dp(8), b.w-b.dp(16), y+b.dp(56)), "Checkout", id("checkout"), true,
		func() { p.shopDoLocked("checkout") })
	page.add(coupon, checkout)
	y += b.dp(64)
	note := b.node(clsLinear, b.rect(b.dp(16), y, b.w-b.dp(16), y+b.dp(64)))
	note.resID, note.longClickable = id("seller_note"), true
	note.onLongPress = func() { p.shopDoLocked("note menu") }
	note.look.bg = colDivider
	note.add(b.text(b.rect(b.dp(24), y+b.dp(4), b.w-b.dp(24), y+b.dp(34)), "Thanks for shopping with us!", id("note_text")),
		b.text(b.rect(b.dp(24), y+b.dp(34), b.w-b.dp(24), y+b.dp(62)), "Seller", id("note_author")))
	page.add(note)
	root.add(page, b.shopTabs(tabsTop))
	return root
}

func (b *builder) shopItemRow(page *view, item string, y int) int {
	p := b.p
	id := func(s string) string { return PkgShop + ":id/" + s }
	rowH := b.dp(64)
	row := b.node(clsLinear, b.rect(0, y, b.w, y+rowH))
	row.resID = id("cart_row")
	name := b.text(b.rect(b.dp(16), y, b.w-b.dp(120), y+rowH), item, id("product_name"))
	remove := b.text(b.rect(b.w-b.dp(104), y+b.dp(12), b.w-b.dp(16), y+rowH-b.dp(12)), "Remove", id("remove"))
	remove.clickable, remove.focusable, remove.look.fg = true, true, colAccent
	remove.onTap = func() {
		p.st.settings[shopNS+"removed_"+item] = "1"
		p.shopDoLocked("removed " + item)
	}
	page.add(row.add(name, remove))
	return y + rowH
}

// shopDelivery adds the delivery radio rows: a 24 dp RadioButton whose id
// is "checkbox" beside a nested layout holding the title.
func (b *builder) shopDelivery(page *view, y int) int {
	p := b.p
	id := func(s string) string { return PkgShop + ":id/" + s }
	chosen := p.shopGetLocked("delivery")
	if chosen == "" {
		chosen = "Standard"
	}
	rowH := b.dp(56)
	for _, d := range []string{"Standard", "Express"} {
		row := b.node(clsLinear, b.rect(0, y, b.w, y+rowH))
		radio := b.node("android.widget.RadioButton", b.rect(b.dp(16), y+b.dp(16), b.dp(40), y+b.dp(40)))
		radio.resID, radio.checkable, radio.clickable, radio.focusable = id("checkbox"), true, true, true
		radio.checked = d == chosen
		radio.look.bg = colDisabled
		if radio.checked {
			radio.look.bg = colAccent
		}
		choice := d
		radio.onTap = func() {
			p.st.settings[shopNS+"delivery"] = choice
			p.shopDoLocked("delivery " + choice)
		}
		inner := b.node(clsLinear, b.rect(b.dp(56), y, b.w-b.dp(16), y+rowH))
		inner.add(b.text(b.rect(b.dp(56), y, b.w-b.dp(16), y+rowH), d+" delivery", "android:id/title"))
		page.add(row.add(radio, inner))
		y += rowH
	}
	return y
}

// shopGiftWrap adds a row described as a whole that opens the options,
// holding a 20 dp switch of its own.
func (b *builder) shopGiftWrap(page *view, y int) int {
	p := b.p
	id := func(s string) string { return PkgShop + ":id/" + s }
	rowH := b.dp(56)
	row := b.node(clsLinear, b.rect(0, y, b.w, y+rowH))
	row.resID, row.desc, row.clickable, row.focusable = id("gift_row"), "Gift options", true, true
	row.onTap = func() { p.shopDoLocked("gift options") }
	row.add(b.text(b.rect(b.dp(16), y, b.w-b.dp(80), y+rowH), "Gift wrap", id("gift_title")))
	sw := b.node(clsSwitch, b.rect(b.w-b.dp(40), y+b.dp(18), b.w-b.dp(20), y+b.dp(38)))
	sw.resID, sw.checkable, sw.clickable, sw.focusable = id("gift_switch"), true, true, true
	sw.checked = p.shopGetLocked("gift") != ""
	sw.onTap = func() {
		if sw.checked {
			delete(p.st.settings, shopNS+"gift")
			p.shopDoLocked("gift wrap off")
		} else {
			p.st.settings[shopNS+"gift"] = "1"
			p.shopDoLocked("gift wrap on")
		}
	}
	page.add(row.add(sw))
	return y + rowH
}

// shopTabs is the bottom navigation: each tab's caption TextView reports
// zero-size bounds, as Material's BottomNavigationView labels do on some
// builds.
func (b *builder) shopTabs(top int) *view {
	p := b.p
	id := func(s string) string { return PkgShop + ":id/" + s }
	bar := b.node("com.google.android.material.bottomnavigation.BottomNavigationView", b.rect(0, top, b.w, b.h-b.navH))
	bar.resID = id("bottom_nav")
	names := []string{"Home", "Saved", "Cart"}
	wdt := b.w / len(names)
	for i, n := range names {
		tab := b.node(clsFrame, b.rect(i*wdt, top, (i+1)*wdt, b.h-b.navH))
		tab.resID, tab.clickable, tab.focusable = id("nav_"+strings.ToLower(n)), true, true
		name := n
		tab.onTap = func() { p.shopDoLocked("tab " + name) }
		icon := b.node(clsImage, b.rect(i*wdt+wdt/2-b.dp(12), top+b.dp(8), i*wdt+wdt/2+b.dp(12), top+b.dp(32)))
		icon.look.glyph, icon.look.center = n[:1], true
		cx, cy := i*wdt+wdt/2, top+b.dp(44)
		label := b.text(b.rect(cx, cy, cx, cy), n, id("navigation_bar_item_large_label_view"))
		label.zeroSize = true
		bar.add(tab.add(icon, label))
	}
	return bar
}
