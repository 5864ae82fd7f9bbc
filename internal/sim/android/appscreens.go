package android

// The screens of the bundled apps (Settings, Notes, Login, Contacts): their
// views, and what their buttons change in the phone's state.

import (
	"strings"
)

func (b *builder) switchRow(y int, title, switchID string, on bool, toggle func()) (*view, int) {
	rowH := b.dp(72)
	row := b.node(clsLinear, b.rect(0, y, b.w, y+rowH))
	row.clickable, row.focusable, row.onTap = true, true, toggle
	t := b.text(b.rect(b.dp(16), y, b.w-b.dp(88), y+rowH), title, "android:id/title")
	sw := b.node(clsSwitch, b.rect(b.w-b.dp(72), y+b.dp(16), b.w-b.dp(16), y+rowH-b.dp(16)))
	sw.resID, sw.checkable, sw.checked, sw.clickable, sw.focusable = switchID, true, on, true, true
	sw.onTap = toggle
	return row.add(t, sw), y + rowH
}

func (b *builder) settings() *view {
	root := b.root(colPage)
	y := b.toolbar(root, "Settings")
	p := b.p
	wifi, y := b.switchRow(y, "Wi-Fi", PkgSettings+":id/wifi_switch", p.st.wifi, func() {
		p.st.wifi = !p.st.wifi
		p.changed()
	})
	bt, y := b.switchRow(y, "Bluetooth", PkgSettings+":id/bluetooth_switch", p.st.bluetooth, func() {
		p.st.bluetooth = !p.st.bluetooth
		p.changed()
	})
	rowH := b.dp(72)
	about := b.node(clsLinear, b.rect(0, y, b.w, y+rowH))
	about.clickable, about.focusable = true, true
	about.onTap = func() { p.pushLocked(&activity{pkg: PkgSettings, cls: ".AboutPhoneActivity"}) }
	about.add(b.text(b.rect(b.dp(16), y, b.w-b.dp(16), y+rowH), "About phone", "android:id/title"))
	root.add(wifi, bt, about, b.notificationsRow(y+rowH))
	return root
}

func (b *builder) aboutPhone() *view {
	root := b.root(colPage)
	y := b.toolbar(root, "About phone")
	rows := [][2]string{{"Model", b.p.opts.Model}, {"Android version", "14"}, {"Build number", buildID}}
	rowH := b.dp(72)
	for _, r := range rows {
		row := b.node(clsLinear, b.rect(0, y, b.w, y+rowH))
		title := b.text(b.rect(b.dp(16), y+b.dp(8), b.w-b.dp(16), y+b.dp(36)), r[0], "android:id/title")
		summary := b.text(b.rect(b.dp(16), y+b.dp(36), b.w-b.dp(16), y+rowH-b.dp(8)), r[1], "android:id/summary")
		summary.look.fg = colHint
		root.add(row.add(title, summary))
		y += rowH
	}
	return root
}

func (b *builder) notes() *view {
	root := b.root(colPage)
	y := b.toolbar(root, "Notes")
	p := b.p
	pad, fieldH, btnW := b.dp(16), b.dp(56), b.dp(96)
	input := b.edit(b.rect(pad, y+pad, b.w-pad-btnW-b.dp(8), y+pad+fieldH), fieldNote, "Write a note", false)
	save := b.button(b.rect(b.w-pad-btnW, y+pad, b.w-pad, y+pad+fieldH), "Save", PkgNotes+":id/save", true, p.saveNoteLocked)
	root.add(input, save)
	y += pad + fieldH + pad
	itemH := b.dp(48)
	for i, note := range p.st.notes {
		item := b.text(b.rect(pad, y, b.w-pad, y+itemH), note, PkgNotes+":id/note_item")
		item.longClickable = true
		idx := i
		item.onLongPress = func() {
			p.st.notes = append(p.st.notes[:idx:idx], p.st.notes[idx+1:]...)
			p.changed()
		}
		root.add(item)
		y += itemH
	}
	return root
}

func (p *Phone) saveNoteLocked() {
	text := p.st.fields[fieldNote]
	if strings.TrimSpace(text) == "" {
		return
	}
	p.st.notes = append(p.st.notes, text)
	p.st.fields[fieldNote] = ""
	p.changed()
}

func (b *builder) login() *view {
	root := b.root(colPage)
	y := b.toolbar(root, "Login")
	p := b.p
	pad, fieldH := b.dp(16), b.dp(56)
	y += b.dp(24)
	user := b.edit(b.rect(pad, y, b.w-pad, y+fieldH), fieldUsername, "Username", false)
	y += fieldH + pad
	pass := b.edit(b.rect(pad, y, b.w-pad, y+fieldH), fieldPassword, "Password", true)
	y += fieldH + pad
	// Log in stays disabled until a user name is typed, like most login forms.
	login := b.button(b.rect(pad, y, b.w-pad, y+fieldH), "Log in", PkgLogin+":id/login",
		p.st.fields[fieldUsername] != "", p.submitLoginLocked)
	root.add(user, pass, login)
	y += fieldH + pad
	if p.st.loginError {
		e := b.text(b.rect(pad, y, b.w-pad, y+b.dp(40)), "Wrong password", PkgLogin+":id/error")
		e.look.fg = colError
		root.add(e)
	}
	return root
}

func (p *Phone) submitLoginLocked() {
	if p.st.fields[fieldUsername] == "" {
		return
	}
	if p.st.fields[fieldPassword] != LoginPassword {
		p.st.loginError = true
		p.changed()
		return
	}
	p.st.loginError, p.st.otpError = false, false
	p.st.user = p.st.fields[fieldUsername]
	p.st.fields[fieldOTP] = ""
	p.pushLocked(&activity{pkg: PkgLogin, cls: ".OtpActivity"})
}

func (b *builder) otp() *view {
	root := b.root(colPage)
	y := b.toolbar(root, "Verification")
	p := b.p
	pad, fieldH := b.dp(16), b.dp(56)
	y += b.dp(24)
	prompt := b.text(b.rect(pad, y, b.w-pad, y+b.dp(40)), "Enter the 6-digit code", PkgLogin+":id/otp_prompt")
	y += b.dp(40) + pad
	code := b.edit(b.rect(pad, y, b.w-pad, y+fieldH), fieldOTP, "Code", false)
	y += fieldH + pad
	verify := b.button(b.rect(pad, y, b.w-pad, y+fieldH), "Verify", PkgLogin+":id/verify", true, p.verifyOTPLocked)
	root.add(prompt, code, verify)
	y += fieldH + pad
	if p.st.otpError {
		e := b.text(b.rect(pad, y, b.w-pad, y+b.dp(40)), "Wrong code", PkgLogin+":id/error")
		e.look.fg = colError
		root.add(e)
	}
	return root
}

func (p *Phone) verifyOTPLocked() {
	if p.st.fields[fieldOTP] != p.st.otp {
		p.st.otpError = true
		p.changed()
		return
	}
	p.st.otpError = false
	p.st.loggedIn = true
	p.st.fields[fieldPassword], p.st.fields[fieldOTP] = "", ""
	// Logging in finishes the login activities: back from home leaves the app.
	front := p.frontLocked()
	front.acts = front.acts[:0]
	front.acts = append(front.acts, &activity{pkg: PkgLogin, cls: ".HomeActivity"})
	p.st.focused = ""
	p.changed()
}

func (b *builder) loginHome() *view {
	root := b.root(colPage)
	y := b.toolbar(root, "Home")
	p := b.p
	pad := b.dp(16)
	y += b.dp(24)
	welcome := b.text(b.rect(pad, y, b.w-pad, y+b.dp(48)), "Welcome, "+p.st.user, PkgLogin+":id/welcome")
	welcome.look.textScale = b.title
	y += b.dp(48) + pad
	logout := b.button(b.rect(pad, y, b.w-pad, y+b.dp(56)), "Log out", PkgLogin+":id/logout", true, func() {
		p.st.loggedIn, p.st.user = false, ""
		p.st.fields[fieldUsername], p.st.fields[fieldPassword] = "", ""
		p.replaceTopLocked(&activity{pkg: PkgLogin, cls: ".LoginActivity"})
	})
	return root.add(welcome, logout)
}

// contactsGeometry returns the list viewport (unshifted) and row height.
func (b *builder) contactsGeometry() (top, bottom, rowH int) {
	return b.statusH + b.dp(56), b.h - b.navH, b.dp(64)
}

func (b *builder) contacts() *view {
	root := b.root(colPage)
	b.toolbar(root, "Contacts")
	p := b.p
	top, bottom, rowH := b.contactsGeometry()
	maxScroll := max(0, len(contactNames)*rowH-(bottom-top))
	scroll := min(max(p.st.contactsScroll, 0), maxScroll)
	list := b.node(clsRecycler, b.rect(0, top, b.w, bottom))
	list.resID, list.scrollable, list.focusable = PkgContacts+":id/list", true, true
	list.scroll = func(dy int) {
		next := min(max(scroll+dy, 0), maxScroll)
		if next != p.st.contactsScroll {
			p.st.contactsScroll = next
			p.changed()
		}
	}
	for i, name := range contactNames {
		y := top + i*rowH - scroll
		if y+rowH <= top || y >= bottom {
			continue // recycled: not in the hierarchy, as on Android
		}
		row := b.node(clsLinear, b.rect(0, y, b.w, y+rowH))
		row.clickable, row.focusable = true, true
		idx := i
		row.onTap = func() { p.pushLocked(&activity{pkg: PkgContacts, cls: ".ContactDetailActivity", contact: idx}) }
		row.add(b.text(b.rect(b.dp(16), y, b.w-b.dp(16), y+rowH), name, PkgContacts+":id/name"))
		list.add(row)
	}
	return root.add(list)
}

func (b *builder) contactDetail(i int) *view {
	root := b.root(colPage)
	y := b.toolbar(root, "Contact")
	pad := b.dp(16)
	y += b.dp(24)
	name := b.text(b.rect(pad, y, b.w-pad, y+b.dp(48)), contactNames[i], PkgContacts+":id/contact_name")
	name.look.textScale = b.title
	y += b.dp(48) + pad
	phone := b.text(b.rect(pad, y, b.w-pad, y+b.dp(40)), contactPhone(i), PkgContacts+":id/contact_phone")
	return root.add(name, phone)
}
