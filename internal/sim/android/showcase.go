package android

import (
	"image/color"
	"sort"
)

// The showcase apps reproduce the structures of real screens that element
// selection must get right (each modelled on real uiautomator dumps): a chat
// list whose rows are clickable containers without a label of their own, a
// tab whose child describes it while a grandchild shows a badge, a bank's
// round icons captioned by sibling TextViews, Compose-style unlabeled
// Buttons and wrappers with the bounds of the Button inside, radio buttons
// in a disabled group, and labels drawn with private-use icon-font glyphs.
const (
	PkgChat   = "com.openpocket.chat"
	PkgWallet = "com.openpocket.wallet"
)

// Private-use glyphs as icon fonts put them in text: a Material Design
// Icons code point (plane 15) and one from the BMP private-use area.
const (
	glyphWalletIcon = "\U000F01F0"
	glyphStatements = "\uE68C"
)

func init() {
	apps = append(apps,
		&app{pkg: PkgChat, label: "Chat", mainActivity: ".ChatsActivity", launchable: true,
			activities: []string{".ChatsActivity", ".ConversationActivity"}, uid: 10105},
		&app{pkg: PkgWallet, label: "Wallet", mainActivity: ".HomeActivity", launchable: true,
			activities: []string{".HomeActivity", ".ActionActivity"}, uid: 10106},
	)
	sort.Slice(apps, func(i, j int) bool { return apps[i].pkg < apps[j].pkg })
	toolbarColors[PkgChat] = color.RGBA{7, 94, 84, 255}
	toolbarColors[PkgWallet] = color.RGBA{21, 101, 192, 255}
	iconColors[PkgChat] = color.RGBA{37, 211, 102, 255}
	iconColors[PkgWallet] = color.RGBA{66, 133, 244, 255}
	fieldKeys = append(fieldKeys, fieldChat)
}

// chat is one conversation of the Chat app.
type chat struct {
	name, time string
	unread     int
}

var chats = []chat{
	{"Alice Johnson", "11:42", 2}, {"Bob Smith", "10:05", 0}, {"Carol White", "Yesterday", 0},
	{"Dave Brown", "Monday", 0}, {"Eve Davis", "Sunday", 0},
}

// WalletScreen is the caption of the Wallet action screen in front ("" when
// none), for tests.
func (p *Phone) WalletScreen() (s string) {
	p.locked(func() {
		if a := p.topLocked(); a.pkg == PkgWallet && a.cls == ".ActionActivity" {
			s = a.message
		}
	})
	return
}

// ChatMessages returns the messages sent in a conversation, oldest first.
func (p *Phone) ChatMessages(name string) (msgs []string) {
	p.locked(func() { msgs = append(msgs, p.st.ext.chatSent[name]...) })
	return
}

// showcaseView lays out the showcase activities; nil for anything else.
func (b *builder) showcaseView(a *activity) *view {
	switch a.component() {
	case PkgChat + "/.ChatsActivity":
		return b.chatList()
	case PkgChat + "/.ConversationActivity":
		return b.conversation(a.message)
	case PkgWallet + "/.HomeActivity":
		return b.walletHome()
	case PkgWallet + "/.ActionActivity":
		root := b.root(colPage)
		b.toolbar(root, a.message)
		return root
	case PkgTasks + "/.TasksActivity":
		return b.tasksView()
	case PkgShop + "/.CheckoutActivity":
		return b.shopView()
	}
	return nil
}

func (b *builder) chatList() *view {
	root := b.root(colPage)
	top := b.toolbar(root, "Chats")
	p := b.p
	id := func(s string) string { return PkgChat + ":id/" + s }
	search := b.node("android.widget.ImageButton", b.rect(b.w-b.dp(56), b.statusH, b.w, top))
	search.resID, search.desc, search.clickable, search.focusable = id("menu_search"), "Search", true, true
	search.onTap, search.look.glyph, search.look.fg = func() {}, "?", colWhite
	root.add(search)
	tabsH, rowH := b.dp(56), b.dp(72)
	list := b.node(clsRecycler, b.rect(0, top, b.w, b.h-b.navH-tabsH))
	list.resID, list.scrollable, list.focusable = id("conversations"), true, true
	for i, c := range chats {
		y := top + i*rowH
		row := b.node(clsLinear, b.rect(0, y, b.w, y+rowH))
		row.resID, row.clickable, row.focusable, row.longClickable = id("conversation_row"), true, true, true
		name := c.name
		row.onTap = func() { p.pushLocked(&activity{pkg: PkgChat, cls: ".ConversationActivity", message: name}) }
		avatar := b.node(clsImage, b.rect(b.dp(16), y+b.dp(12), b.dp(64), y+b.dp(60)))
		avatar.resID, avatar.desc, avatar.clickable, avatar.focusable = id("avatar"), "Open photo", true, true
		avatar.onTap = func() {}
		avatar.look.bg, avatar.look.glyph, avatar.look.fg, avatar.look.center = iconColors[PkgChat], c.name[:1], colWhite, true
		nameView := b.text(b.rect(b.dp(80), y+b.dp(8), b.w-b.dp(104), y+b.dp(36)), c.name, id("conversation_name"))
		snippet := b.text(b.rect(b.dp(80), y+b.dp(38), b.w-b.dp(56), y+b.dp(64)), "Last message from "+firstName(c.name), id("conversation_snippet"))
		snippet.look.fg = colHint
		when := b.text(b.rect(b.w-b.dp(96), y+b.dp(8), b.w-b.dp(16), y+b.dp(36)), c.time, id("conversation_time"))
		when.look.fg = colHint
		row.add(avatar, nameView, snippet, when)
		if c.unread > 0 {
			badge := b.text(b.rect(b.w-b.dp(40), y+b.dp(38), b.w-b.dp(16), y+b.dp(62)), itoa(c.unread), id("unread_count"))
			badge.look.bg, badge.look.fg, badge.look.center = iconColors[PkgChat], colWhite, true
			row.add(badge)
		}
		list.add(row)
	}
	root.add(list, b.chatTabs(b.h-b.navH-tabsH, b.h-b.navH))
	return root
}

// chatTabs is the bottom tab bar: each tab a clickable LinearLayout whose
// child FrameLayout carries the description ("Chats, 2 new messages, tab 1
// of 3") while a grandchild TextView shows only the badge ("2").
func (b *builder) chatTabs(y0, y1 int) *view {
	id := func(s string) string { return PkgChat + ":id/" + s }
	bar := b.node(clsLinear, b.rect(0, y0, b.w, y1))
	bar.resID = id("bottom_tabs")
	tabs := []struct{ label, desc, badge string }{
		{"Chats", "Chats, 2 new messages, tab 1 of 3", "2"},
		{"Updates", "Updates, tab 2 of 3", ""},
		{"Calls", "Calls, tab 3 of 3", ""},
	}
	third := b.w / 3
	for i, t := range tabs {
		r := b.rect(i*third, y0, (i+1)*third, y1)
		tab := b.node(clsLinear, r)
		tab.resID, tab.clickable, tab.focusable, tab.checkable, tab.checked = id("tab"), true, true, true, i == 0
		tab.onTap = func() {}
		inner := b.node(clsFrame, r)
		inner.resID, inner.desc = id("tab_icon_container"), t.desc
		inner.look.glyph, inner.look.center = t.label[:1], true
		if t.badge != "" {
			badge := b.text(b.rect(i*third+third/2, y0+b.dp(4), i*third+third/2+b.dp(20), y0+b.dp(24)), t.badge, id("tab_badge"))
			badge.look.bg, badge.look.fg = colError, colWhite
			inner.add(badge)
		}
		bar.add(tab.add(inner))
	}
	return bar
}

func (b *builder) conversation(name string) *view {
	root := b.root(colPage)
	top := b.toolbar(root, name)
	p := b.p
	id := func(s string) string { return PkgChat + ":id/" + s }
	y := top + b.dp(8)
	for _, m := range p.st.ext.chatSent[name] {
		bubble := b.text(b.rect(b.w/3, y, b.w-b.dp(16), y+b.dp(40)), m, id("message_text"))
		root.add(bubble)
		y += b.dp(48)
	}
	barTop := b.h - b.navH - b.dp(64)
	if p.st.focused == fieldChat && p.st.ext.softKeyboard && !p.st.ext.locked {
		// adjustResize: the compose bar sits on top of the keyboard.
		barTop = b.h - b.navH - min(b.dp(268), (b.h-b.navH)*45/100) - b.dp(64)
	}
	input := b.edit(b.rect(b.dp(8), barTop+b.dp(8), b.w-b.dp(72), barTop+b.dp(56)), fieldChat, "Message", false)
	send := b.node("android.widget.ImageButton", b.rect(b.w-b.dp(64), barTop+b.dp(8), b.w-b.dp(8), barTop+b.dp(56)))
	send.resID, send.desc, send.clickable, send.focusable = id("send"), "Send", true, true
	send.onTap = func() { p.sendChatLocked(name) }
	send.look.bg, send.look.glyph, send.look.fg, send.look.center = iconColors[PkgChat], ">", colWhite, true
	return root.add(input, send)
}

const fieldChat = PkgChat + ":id/entry"

func (p *Phone) sendChatLocked(name string) {
	text := p.st.fields[fieldChat]
	if text == "" {
		return
	}
	if p.st.ext.chatSent == nil {
		p.st.ext.chatSent = map[string][]string{}
	}
	p.st.ext.chatSent[name] = append(p.st.ext.chatSent[name], text)
	p.st.fields[fieldChat] = ""
	p.changed()
}

// walletMenu are the round quick-banking buttons, captioned by siblings.
var walletMenu = []string{"Transfer", "Top-up", "Pay bill", "Withdraw"}

func (b *builder) walletHome() *view {
	root := b.root(colPage)
	y := b.toolbar(root, "Wallet")
	p := b.p
	id := func(s string) string { return PkgWallet + ":id/" + s }
	pad := b.dp(16)
	balance := b.text(b.rect(pad, y+pad, b.w-pad, y+pad+b.dp(40)), "Balance $1,250.00", id("balance"))
	balance.look.textScale = b.title
	root.add(balance)
	y += pad + b.dp(56)
	// Four round icons; the caption is a sibling TextView under each icon.
	cellW := b.w / len(walletMenu)
	for i, label := range walletMenu {
		x0 := i * cellW
		cell := b.node(clsLinear, b.rect(x0, y, x0+cellW, y+b.dp(96)))
		cell.resID = id("quickBankingMenuItem")
		icon := b.node(clsFrame, b.rect(x0+(cellW-b.dp(56))/2, y, x0+(cellW+b.dp(56))/2, y+b.dp(56)))
		icon.resID, icon.clickable, icon.focusable = id("layout_quickBankingMenuCircle"), true, true
		caption := label
		icon.onTap = func() { p.pushLocked(&activity{pkg: PkgWallet, cls: ".ActionActivity", message: caption}) }
		icon.look.bg = iconColors[PkgWallet]
		img := b.node(clsImage, icon.full)
		img.resID = id("img_quickBankingMenu")
		img.look.glyph, img.look.fg, img.look.center = label[:1], colWhite, true
		text := b.text(b.rect(x0, y+b.dp(64), x0+cellW, y+b.dp(92)), label, id("txt_quickBankingMenu"))
		text.look.center = true
		root.add(cell.add(icon.add(img), text))
	}
	y += b.dp(112)
	// A row labelled with icon-font glyphs: a lone plane-15 icon and a
	// BMP private-use icon in front of the caption.
	row := b.node(clsLinear, b.rect(0, y, b.w, y+b.dp(56)))
	row.resID, row.clickable, row.focusable = id("statements_row"), true, true
	row.onTap = func() { p.pushLocked(&activity{pkg: PkgWallet, cls: ".ActionActivity", message: "Statements"}) }
	glyph := b.text(b.rect(pad, y, pad+b.dp(40), y+b.dp(56)), glyphWalletIcon, id("row_icon"))
	label := b.text(b.rect(pad+b.dp(48), y, b.w-pad, y+b.dp(56)), glyphStatements+" Statements", id("row_title"))
	root.add(row.add(glyph, label))
	y += b.dp(72)
	root.add(b.composeSection(y))
	return root
}

// composeSection imitates a Jetpack Compose screen in a dump: an
// android.view.View host, a clickable View labelled by its child text next
// to an unlabeled, non-clickable android.widget.Button node, a FrameLayout
// wrapper with exactly the bounds of the Button inside it, and radio
// buttons in a disabled RadioGroup.
func (b *builder) composeSection(y int) *view {
	p := b.p
	pad := b.dp(16)
	host := b.node("android.view.View", b.rect(0, y, b.w, y+b.dp(232)))
	add := b.node("android.view.View", b.rect(pad, y, b.w/2-b.dp(8), y+b.dp(48)))
	add.clickable, add.focusable = true, true
	add.onTap = func() { p.pushLocked(&activity{pkg: PkgWallet, cls: ".ActionActivity", message: "Add money"}) }
	add.look.bg, add.look.fg = colAccent, colWhite
	addText := b.text(add.full, "Add money", "")
	addText.look.fg, addText.look.center = colWhite, true
	ghost := b.node(clsButton, b.rect(pad, y, b.w/2-b.dp(8), y+b.dp(48)))
	host.add(add.add(addText), ghost)
	wr := b.rect(b.w/2+b.dp(8), y, b.w-pad, y+b.dp(48))
	wrapper := b.node(clsFrame, wr)
	wrapper.resID = PkgWallet + ":id/card_button_wrapper"
	cards := b.button(wr, "Cards", PkgWallet+":id/cards", true, func() {
		p.pushLocked(&activity{pkg: PkgWallet, cls: ".ActionActivity", message: "Cards"})
	})
	host.add(wrapper.add(cards))
	gy := y + b.dp(64)
	group := b.node("android.widget.RadioGroup", b.rect(pad, gy, b.w-pad, gy+b.dp(112)))
	group.resID, group.enabled = PkgWallet+":id/statement_period", false
	for i, label := range []string{"Monthly statements", "Weekly statements"} {
		r := b.node("android.widget.RadioButton", b.rect(pad, gy+i*b.dp(56), b.w-pad, gy+(i+1)*b.dp(56)))
		r.text, r.checkable, r.checked, r.clickable, r.focusable = label, true, i == 0, true, true
		group.add(r)
	}
	return host.add(group)
}

func firstName(full string) string {
	for i, r := range full {
		if r == ' ' {
			return full[:i]
		}
	}
	return full
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
