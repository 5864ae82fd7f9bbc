package android

import "image"

// PkgAndroid is the system server's package: its own dialogs ("… isn't
// responding", "Open with", the keyboard picker) belong to it.
const PkgAndroid = "android"

// Classes the system server's dialogs are shown as.
const (
	clsANR         = "com.android.server.am.AppNotRespondingDialog"
	clsInputPicker = "com.android.server.inputmethod.InputMethodMenuController"
)

// ShowInputMethodPicker pops up the keyboard picker ("Choose input
// method", package android: TextView android:id/alertTitle, a ListView
// android:id/select_dialog_listview of CheckedTextViews android:id/text1,
// one per keyboard). Picking one or BACK closes it.
func (p *Phone) ShowInputMethodPicker() {
	p.locked(func() {
		front := p.frontLocked()
		front.acts = append(front.acts, &activity{pkg: PkgAndroid, cls: clsInputPicker, message: "Choose input method"})
		p.changed()
	})
}

// ShowANRDialog pops up the system's "<app> isn't responding" dialog over
// whatever is on screen, as a slow app would. As on a real phone (uiautomator
// dump: package "android", TextView android:id/alertTitle, Buttons
// android:id/aerr_close "Close app" and android:id/aerr_wait "Wait"), Wait
// and BACK dismiss it, Close app also force-stops the app below it.
func (p *Phone) ShowANRDialog(appLabel string) {
	p.locked(func() {
		front := p.frontLocked()
		front.acts = append(front.acts, &activity{pkg: PkgAndroid, cls: clsANR, message: appLabel + " isn't responding"})
		p.st.focused = ""
		p.changed()
	})
}

// systemDialog draws the dialog activity a over the screen.
func (b *builder) systemDialog(a *activity) *view {
	switch a.cls {
	case clsANR:
		return b.anrDialog(a)
	case clsInputPicker:
		return b.inputPicker(a)
	}
	return b.permissionDialog(a)
}

func (b *builder) anrDialog(a *activity) *view {
	p := b.p
	margin, pad, btnH := b.dp(24), b.dp(24), b.dp(48)
	height := pad + b.dp(40) + b.dp(16) + 2*btnH + pad
	top := (b.h - height) / 2
	card := newView(clsFrame, PkgAndroid, image.Rect(margin, top, b.w-margin, top+height))
	card.look.bg = colWhite
	title := b.text(image.Rect(margin+pad, top+pad, b.w-margin-pad, top+pad+b.dp(40)), a.message, PkgAndroid+":id/alertTitle")
	y := top + pad + b.dp(56)
	below := p.activityBelowLocked().pkg
	closeApp := b.button(image.Rect(margin, y, b.w-margin, y+btnH), "Close app", PkgAndroid+":id/aerr_close", true, func() {
		p.backLocked()
		if below != PkgLauncher {
			p.forceStopLocked(below)
		}
	})
	y += btnH
	wait := b.button(image.Rect(margin, y, b.w-margin, y+btnH), "Wait", PkgAndroid+":id/aerr_wait", true, p.backLocked)
	return card.add(title, closeApp, wait)
}

func (b *builder) inputPicker(a *activity) *view {
	p := b.p
	margin, pad, itemH := b.dp(24), b.dp(24), b.dp(56)
	keyboards := []string{"Gboard", "Android Keyboard (AOSP)"}
	height := pad + b.dp(40) + b.dp(16) + len(keyboards)*itemH + pad
	top := (b.h - height) / 2
	card := newView(clsFrame, PkgAndroid, image.Rect(margin, top, b.w-margin, top+height))
	card.look.bg = colWhite
	title := b.text(image.Rect(margin+pad, top+pad, b.w-margin-pad, top+pad+b.dp(40)), a.message, PkgAndroid+":id/alertTitle")
	y := top + pad + b.dp(56)
	list := newView("android.widget.ListView", PkgAndroid, image.Rect(margin, y, b.w-margin, y+len(keyboards)*itemH))
	list.resID = PkgAndroid + ":id/select_dialog_listview"
	for i, k := range keyboards {
		item := b.text(image.Rect(margin+pad, y, b.w-margin-pad, y+itemH), k, PkgAndroid+":id/text1")
		item.class, item.clickable, item.checkable, item.checked = "android.widget.CheckedTextView", true, true, i == 0
		item.onTap = p.backLocked
		list.add(item)
		y += itemH
	}
	return card.add(title, list)
}
