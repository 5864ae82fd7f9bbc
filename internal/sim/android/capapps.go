package android

import (
	"fmt"
	"image"
	"image/color"
	"sort"
	"strconv"
)

// Screens where a person, not the agent, should act: a camera, the
// system photo picker, a Google Pay payment sheet, a location prompt and a
// FLAG_SECURE card form without elements. Each is modelled on uiautomator
// dumps of real phones (camera apps: an android.view.TextureView preview,
// an ImageButton :id/shutter_button described "Take photo", a thumbnail
// "Open photos"; Android's photo picker com.android.providers.media.module
// /com.android.providers.media.photopicker.PhotoPickerActivity: chips
// "Photos" and "Albums", a RecyclerView of ImageViews :id/icon_thumbnail
// described "Photo taken on …"; Google Pay's sheet in com.google.android.gms
// over the merchant's app: merchant, total, the card row and a "Continue"
// Button). None of them is on the launcher's grid: tests start them by
// package (monkey, am start, the launch action).
const (
	PkgCamera      = "com.openpocket.camera"
	PkgMaps        = "com.openpocket.maps"
	PkgPay         = "com.openpocket.pay"
	PkgPhotoPicker = "com.android.providers.media.module"
	PkgGMS         = "com.google.android.gms"
)

// Activities of the capability screens.
const (
	clsPhotoPicker  = ".photopicker.PhotoPickerActivity"
	clsPaySheet     = ".wallet.ib.IbPaymentRequestCompatActivity"
	clsCardEntry    = ".CardEntryActivity"
	payOrderSummary = "Order #42 — 19.90 EUR"
)

// pickerPhotos are the photo picker's items, newest first.
var pickerPhotos = []string{"Nov 27, 2026, 9:14 AM", "Nov 26, 2026, 6:02 PM", "Nov 24, 2026, 1:30 PM", "Nov 20, 2026, 8:45 AM"}

func init() {
	apps = append(apps,
		&app{pkg: PkgCamera, label: "Camera", mainActivity: ".CameraActivity", launchable: true,
			activities: []string{".CameraActivity"}, uid: 10110, optional: true},
		&app{pkg: PkgMaps, label: "Maps", mainActivity: ".MapActivity", launchable: true,
			activities: []string{".MapActivity"}, uid: 10111, optional: true},
		&app{pkg: PkgPay, label: "Pay", mainActivity: ".CheckoutActivity", launchable: true,
			activities: []string{".CheckoutActivity", clsCardEntry}, uid: 10112, optional: true},
		&app{pkg: PkgPhotoPicker, label: "Media picker", mainActivity: clsPhotoPicker,
			activities: []string{clsPhotoPicker}, uid: 10060, optional: true},
		&app{pkg: PkgGMS, label: "Google Play services", mainActivity: clsPaySheet,
			activities: []string{clsPaySheet}, uid: 10061, optional: true},
	)
	sort.Slice(apps, func(i, j int) bool { return apps[i].pkg < apps[j].pkg })
	runtimePermissions[PkgCamera] = []string{"android.permission.CAMERA", "android.permission.RECORD_AUDIO"}
	runtimePermissions[PkgMaps] = []string{"android.permission.ACCESS_FINE_LOCATION", "android.permission.ACCESS_COARSE_LOCATION"}
	toolbarColors[PkgPay] = color.RGBA{0, 105, 92, 255}
	toolbarColors[PkgMaps] = color.RGBA{26, 115, 232, 255}
}

// InstallCapabilityApps installs Camera, Maps, Pay, Recorder, the photo
// picker and Google Play services' payment sheet on this phone (they
// survive Reset).
func (p *Phone) InstallCapabilityApps() { p.locked(func() { p.capApps = true; p.changed() }) }

// hasApp reports whether a is installed on this phone.
func (p *Phone) hasApp(a *app) bool { return !a.optional || p.capApps }

// capKey is where the capability apps keep their state: the settings map,
// under a namespace no `settings` command reads, so Reset clears it.
func capKey(name string) string { return "openpocket.cap/" + name }

// PhotosTaken counts the Camera app's shutter presses.
func (p *Phone) PhotosTaken() (n int) {
	p.locked(func() { n, _ = strconv.Atoi(p.st.settings[capKey("photos")]) })
	return
}

// PickedPhoto is the photo the picker returned ("" when none).
func (p *Phone) PickedPhoto() (s string) {
	p.locked(func() { s = p.st.settings[capKey("picked")] })
	return
}

// Paid reports whether the payment sheet's Continue was pressed.
func (p *Phone) Paid() (ok bool) {
	p.locked(func() { ok = p.st.settings[capKey("paid")] == "1" })
	return
}

// launchPromptsLocked are the dialogs an app's first screen raises when
// it starts: Camera asks for the camera, Maps for the location.
func (p *Phone) launchPromptsLocked(pkg string) []*activity {
	group := map[string]string{PkgCamera: GroupCamera, PkgMaps: GroupLocation}[pkg]
	if group == "" || !p.needsPermissionLocked(pkg, group) {
		return nil
	}
	return []*activity{p.permDialogLocked(pkg, group)}
}

// capabilityView lays out the capability screens; nil for anything else.
func (b *builder) capabilityView(a *activity) *view {
	switch a.component() {
	case PkgCamera + "/.CameraActivity":
		return b.cameraView()
	case PkgPhotoPicker + "/" + clsPhotoPicker:
		return b.photoPicker()
	case PkgMaps + "/.MapActivity":
		return b.mapView()
	case PkgPay + "/.CheckoutActivity":
		return b.payCheckout()
	case PkgPay + "/" + clsCardEntry:
		return b.cardEntry()
	case PkgGMS + "/" + clsPaySheet:
		return b.paySheet()
	case PkgRecorder + "/" + clsRecorder:
		return b.recorderView()
	}
	return nil
}

func (b *builder) cameraView() *view {
	p := b.p
	id := func(s string) string { return PkgCamera + ":id/" + s }
	root := b.root(colBlack)
	if !p.grantedLocked(PkgCamera, GroupCamera) {
		msg := b.text(b.rect(b.dp(24), b.h/2-b.dp(40), b.w-b.dp(24), b.h/2+b.dp(40)), "Camera permission is needed to take photos", id("permission_rationale"))
		msg.look.fg, msg.look.center = colWhite, true
		return root.add(msg)
	}
	preview := b.node("android.view.TextureView", b.rect(0, b.statusH, b.w, b.h-b.navH-b.dp(160)))
	preview.resID, preview.look.bg = id("preview_surface"), color.RGBA{40, 48, 56, 255}
	barTop := b.h - b.navH - b.dp(160)
	modes := b.node(clsLinear, b.rect(0, barTop, b.w, barTop+b.dp(40)))
	photo := b.text(b.rect(b.w/2-b.dp(100), barTop, b.w/2, barTop+b.dp(40)), "Photo", id("mode_photo"))
	video := b.text(b.rect(b.w/2, barTop, b.w/2+b.dp(100), barTop+b.dp(40)), "Video", id("mode_video"))
	photo.look.fg, video.look.fg = colWhite, colWhite
	cy := barTop + b.dp(96)
	shutter := b.node("android.widget.ImageButton", b.rect(b.w/2-b.dp(36), cy-b.dp(36), b.w/2+b.dp(36), cy+b.dp(36)))
	shutter.resID, shutter.desc, shutter.clickable, shutter.focusable = id("shutter_button"), "Take photo", true, true
	shutter.look.bg = colWhite
	shutter.onTap = func() {
		n, _ := strconv.Atoi(p.st.settings[capKey("photos")])
		p.st.settings[capKey("photos")] = strconv.Itoa(n + 1)
		p.changed()
	}
	thumb := b.node(clsImage, b.rect(b.dp(32), cy-b.dp(24), b.dp(80), cy+b.dp(24)))
	thumb.resID, thumb.desc, thumb.clickable, thumb.focusable = id("thumbnail_button"), "Open photos", true, true
	thumb.look.bg = color.RGBA{96, 96, 96, 255}
	thumb.onTap = func() { p.pushLocked(&activity{pkg: PkgPhotoPicker, cls: clsPhotoPicker}) }
	flip := b.node("android.widget.ImageButton", b.rect(b.w-b.dp(80), cy-b.dp(24), b.w-b.dp(32), cy+b.dp(24)))
	flip.resID, flip.desc, flip.clickable, flip.focusable = id("camera_switch_button"), "Switch to front camera", true, true
	flip.look.bg = color.RGBA{96, 96, 96, 255}
	root.add(preview, modes.add(photo, video), thumb, shutter, flip)
	if picked := p.st.settings[capKey("picked")]; picked != "" {
		note := b.text(b.rect(b.dp(16), b.statusH+b.dp(8), b.w-b.dp(16), b.statusH+b.dp(40)), "Attached: photo of "+picked, id("attachment"))
		note.look.fg = colWhite
		root.add(note)
	}
	return root
}

func (b *builder) photoPicker() *view {
	p := b.p
	id := func(s string) string { return PkgPhotoPicker + ":id/" + s }
	root := b.root(colPage)
	top := b.statusH
	bar := b.node(clsFrame, b.rect(0, top, b.w, top+b.dp(56)))
	bar.resID = id("toolbar")
	cancel := b.node("android.widget.ImageButton", b.rect(0, top, b.dp(56), top+b.dp(56)))
	cancel.desc, cancel.clickable, cancel.focusable = "Cancel", true, true
	cancel.onTap = p.backLocked
	title := b.text(b.rect(b.dp(72), top, b.w-b.dp(16), top+b.dp(56)), "Select a photo", "")
	root.add(bar.add(cancel, title))
	y := top + b.dp(64)
	chips := b.node(clsLinear, b.rect(b.dp(16), y, b.w-b.dp(16), y+b.dp(40)))
	chipPhotos := b.button(b.rect(b.dp(16), y, b.w/2-b.dp(8), y+b.dp(40)), "Photos", id("chip_photos"), true, func() {})
	chipAlbums := b.button(b.rect(b.w/2+b.dp(8), y, b.w-b.dp(16), y+b.dp(40)), "Albums", id("chip_albums"), true, func() {})
	root.add(chips.add(chipPhotos, chipAlbums))
	y += b.dp(56)
	cell := (b.w - b.dp(8)) / 3
	grid := b.node(clsRecycler, b.rect(0, y, b.w, y+2*cell))
	grid.resID, grid.scrollable = id("picker_tab_recyclerview"), true
	for i, when := range pickerPhotos {
		x0, y0 := (i%3)*(cell+b.dp(4)), y+(i/3)*(cell+b.dp(4))
		item := b.node(clsImage, b.rect(x0, y0, x0+cell, y0+cell))
		item.resID, item.desc, item.clickable, item.focusable = id("icon_thumbnail"), "Photo taken on "+when, true, true
		item.look.bg = color.RGBA{uint8(60 + 40*i), 120, uint8(200 - 30*i), 255}
		chosen := when
		item.onTap = func() {
			p.st.settings[capKey("picked")] = chosen
			p.backLocked()
		}
		grid.add(item)
	}
	return root.add(grid)
}

func (b *builder) mapView() *view {
	p := b.p
	root := b.root(colPage)
	y := b.toolbar(root, "Maps")
	text := "Location permission denied: Maps cannot show where you are"
	if p.grantedLocked(PkgMaps, GroupLocation) {
		text = "Your location: " + orDefault(p.st.x.location, "52.5200,13.4050")
	}
	status := b.text(b.rect(b.dp(16), y+b.dp(16), b.w-b.dp(16), y+b.dp(72)), text, PkgMaps+":id/location_status")
	return root.add(status)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (b *builder) payCheckout() *view {
	p := b.p
	id := func(s string) string { return PkgPay + ":id/" + s }
	root := b.root(colPage)
	y := b.toolbar(root, "Checkout")
	summary := b.text(b.rect(b.dp(16), y+b.dp(16), b.w-b.dp(16), y+b.dp(64)), payOrderSummary, id("order_summary"))
	y += b.dp(80)
	if p.st.settings[capKey("paid")] == "1" {
		status := "Paid 19.90 EUR — thank you!"
		if with := p.st.settings[capKey("paid_with")]; with != "" {
			status = "Paid 19.90 EUR with " + with + " — thank you!"
		}
		done := b.text(b.rect(b.dp(16), y, b.w-b.dp(16), y+b.dp(48)), status, id("payment_status"))
		return root.add(summary, done)
	}
	gpay := b.button(b.rect(b.dp(16), y, b.w-b.dp(16), y+b.dp(48)), "Buy with Google Pay", id("buy_with_googlepay"), true, func() {
		p.pushLocked(&activity{pkg: PkgGMS, cls: clsPaySheet})
	})
	y += b.dp(64)
	card := b.button(b.rect(b.dp(16), y, b.w-b.dp(16), y+b.dp(48)), "Pay by card", id("card_button"), true, func() {
		act := &activity{pkg: PkgPay, cls: clsCardEntry}
		// The card form sets FLAG_SECURE on its own window.
		p.st.ext.secureScreens[act.component()] = true
		p.pushLocked(act)
	})
	return root.add(summary, gpay, card)
}

// cardEntry is a card form drawn into one SurfaceView (a bank's SDK, a
// Flutter or game engine view): the dump holds no element, the window is
// FLAG_SECURE and screencap is black.
func (b *builder) cardEntry() *view {
	root := b.root(colPage)
	surface := b.node("android.view.SurfaceView", b.rect(0, b.statusH, b.w, b.h-b.navH))
	return root.add(surface)
}

// paySheet is Google Pay's bottom sheet over the merchant's checkout.
func (b *builder) paySheet() *view {
	p := b.p
	id := func(s string) string { return PkgGMS + ":id/" + s }
	root := b.root(color.RGBA{80, 80, 80, 255})
	top := b.h - b.navH - b.dp(320)
	sheet := b.node(clsFrame, image.Rect(0, top, b.w, b.h-b.navH))
	sheet.resID, sheet.look.bg = id("payment_sheet"), colWhite
	y := top + b.dp(16)
	line := func(text, rid string) *view {
		v := b.text(image.Rect(b.dp(24), y, b.w-b.dp(24), y+b.dp(40)), text, id(rid))
		y += b.dp(48)
		return v
	}
	sheet.add(line("Google Pay", "sheet_title"), line("OpenPocket Shop", "merchant_name"),
		line("Total 19.90 EUR", "total_price"))
	method := b.node(clsLinear, image.Rect(b.dp(24), y, b.w-b.dp(24), y+b.dp(48)))
	method.resID, method.clickable, method.desc = id("payment_method_row"), true, "Visa •••• 4242, change payment method"
	y += b.dp(64)
	pay := b.button(image.Rect(b.dp(24), y, b.w-b.dp(24), y+b.dp(48)), "Continue", id("pay_button"), true, func() {
		p.st.settings[capKey("paid")] = "1"
		p.backLocked()
	})
	return root.add(sheet.add(method, pay))
}

// String names an answer for messages.
func (a PermissionAnswer) String() string {
	return fmt.Sprintf("%s %s: %s", a.Package, a.Group, a.Answer)
}
