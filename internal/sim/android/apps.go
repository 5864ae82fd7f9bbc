package android

import (
	"fmt"
	"image"
	"image/color"
	"sort"
	"strings"
)

// app describes one installed package.
type app struct {
	pkg, label   string
	mainActivity string   // launcher activity, short form
	activities   []string // every activity, short form
	exported     []string // activities `am start -n` may start besides the main one
	launchable   bool     // has a MAIN/LAUNCHER activity
	uid          int
	// optional apps are installed only on phones that ask for them
	// (InstallCapabilityApps), so the default phone's package lists stay.
	optional bool
}

// apps lists the installed packages with activities, sorted by package.
var apps = []*app{
	{pkg: PkgLauncher, label: "Launcher", mainActivity: ".Launcher", activities: []string{".Launcher"}, uid: 10050},
	{pkg: PkgPermissionControl, label: "Permission controller", mainActivity: ".permission.ui.GrantPermissionsActivity",
		activities: []string{".permission.ui.GrantPermissionsActivity"}, uid: 10051},
	{pkg: PkgSettings, label: "Settings", mainActivity: ".Settings", launchable: true,
		activities: []string{".Settings", ".AboutPhoneActivity", clsNotificationSettings}, exported: []string{".AboutPhoneActivity"}, uid: 1000},
	{pkg: PkgContacts, label: "Contacts", mainActivity: ".ContactsActivity", launchable: true,
		activities: []string{".ContactsActivity", ".ContactDetailActivity"}, uid: 10104},
	{pkg: PkgLogin, label: "Login", mainActivity: ".LoginActivity", launchable: true,
		activities: []string{".LoginActivity", ".OtpActivity", ".HomeActivity"}, uid: 10103},
	{pkg: PkgNotes, label: "Notes", mainActivity: ".MainActivity", launchable: true,
		activities: []string{".MainActivity"}, uid: 10102},
}

// systemPackages are installed packages without activities of ours; they
// make `pm list packages` look like a phone's.
var systemPackages = []string{
	"android", "com.android.phone", "com.android.providers.settings", "com.android.shell", PkgSystemUI,
}

// launcherApps is the launcher grid order.
var launcherApps = []string{PkgSettings, PkgNotes, PkgLogin, PkgContacts}

func appByPackage(pkg string) *app {
	for _, a := range apps {
		if a.pkg == pkg {
			return a
		}
	}
	return nil
}

// appLabel returns the label of a package, or the package itself.
func appLabel(pkg string) string {
	if a := appByPackage(pkg); a != nil {
		return a.label
	}
	return pkg
}

func (a *app) hasActivity(cls string) bool {
	for _, c := range a.activities {
		if c == shortClass(a.pkg, cls) {
			return true
		}
	}
	return false
}

func (a *app) isExported(cls string) bool {
	for _, c := range a.exported {
		if c == shortClass(a.pkg, cls) {
			return true
		}
	}
	return false
}

// shortClass turns "com.x.Main" into ".Main" for package com.x.
func shortClass(pkg, cls string) string {
	if strings.HasPrefix(cls, pkg+".") {
		return cls[len(pkg):]
	}
	return cls
}

// expandClass turns ".Main" into "com.x.Main" for package com.x.
func expandClass(pkg, cls string) string {
	if strings.HasPrefix(cls, ".") {
		return pkg + cls
	}
	return cls
}

// EditText keys are their resource ids.
const (
	fieldNote     = PkgNotes + ":id/note_input"
	fieldUsername = PkgLogin + ":id/username"
	fieldPassword = PkgLogin + ":id/password"
	fieldOTP      = PkgLogin + ":id/otp"
)

var fieldKeys = []string{fieldNote, fieldUsername, fieldPassword, fieldOTP}

func fieldPrefix(pkg string) string { return pkg + ":id/" }

// contactNames are the 60 contacts, sorted.
var contactNames = func() []string {
	names := []string{
		"Aaron Abbott", "Abigail Adams", "Adrian Archer", "Alice Armstrong", "Bella Baker", "Benjamin Brooks",
		"Brian Bennett", "Caleb Carter", "Chloe Collins", "Connor Cooper", "Daisy Dawson", "Daniel Diaz",
		"Dylan Douglas", "Eleanor Evans", "Elijah Edwards", "Emma Ellis", "Felix Fischer", "Fiona Foster",
		"Gabriel Garcia", "Grace Gibson", "Hannah Hayes", "Henry Hughes", "Isaac Ingram", "Isla Irving",
		"Jack Jenkins", "Julia Johnson", "Kevin Kelly", "Kylie King", "Leo Lawson", "Lily Lopez",
		"Lucas Lambert", "Mason Miller", "Mia Morgan", "Nathan Nelson", "Nora Nash", "Oliver Owens",
		"Olivia Ortiz", "Paul Parker", "Penelope Price", "Quentin Quinn", "Rachel Reed", "Ryan Russell",
		"Samuel Scott", "Sophia Stewart", "Thomas Turner", "Tina Tucker", "Uma Underwood", "Victor Vaughn",
		"Violet Vega", "William Walker", "Wendy Wallace", "Xavier Xu", "Xena Xiong", "Yara Young",
		"Yusuf Yates", "Zachary Zane", "Zara Zhang", "Zelda Ziegler", "Zion Zapata", "Zoe Zimmerman",
	}
	sort.Strings(names)
	return names
}()

// contactPhone is the deterministic phone number of contact i.
func contactPhone(i int) string { return fmt.Sprintf("+1 555-01%02d", i) }

// Palette.
var (
	colWhite     = color.RGBA{255, 255, 255, 255}
	colPage      = color.RGBA{250, 250, 250, 255}
	colInk       = color.RGBA{33, 33, 33, 255}
	colHint      = color.RGBA{140, 140, 140, 255}
	colDivider   = color.RGBA{224, 224, 224, 255}
	colAccent    = color.RGBA{26, 115, 232, 255}
	colDisabled  = color.RGBA{189, 189, 189, 255}
	colError     = color.RGBA{211, 47, 47, 255}
	colBar       = color.RGBA{32, 32, 32, 255}
	colBlack     = color.RGBA{0, 0, 0, 255}
	colWallpaper = color.RGBA{28, 58, 94, 255}
)

var toolbarColors = map[string]color.RGBA{
	PkgSettings: {69, 90, 100, 255},
	PkgNotes:    {245, 166, 35, 255},
	PkgLogin:    {103, 58, 183, 255},
	PkgContacts: {0, 137, 123, 255},
}

var iconColors = map[string]color.RGBA{
	PkgSettings: {96, 125, 139, 255},
	PkgNotes:    {255, 193, 7, 255},
	PkgLogin:    {126, 87, 194, 255},
	PkgContacts: {38, 166, 154, 255},
}

// builder lays out one window in pixels from density-independent sizes.
type builder struct {
	p                *Phone
	w, h, density    int
	dx, dy           int // layout offset applied to app content
	statusH, navH    int
	pkg              string
	bodyScale, title int
}

func (b *builder) dp(v int) int { return (v*b.density + 80) / 160 }

// textScale converts a text size in sp into a multiple of the 7x13 font.
func (b *builder) textScale(sp int) int {
	return max(1, (sp*b.density/160+6)/13)
}

// rect is an app-content rectangle, shifted by the layout offset.
func (b *builder) rect(x0, y0, x1, y1 int) image.Rectangle {
	return image.Rect(x0+b.dx, y0+b.dy, x1+b.dx, y1+b.dy)
}

func (b *builder) node(class string, r image.Rectangle) *view {
	v := newView(class, b.pkg, r)
	v.look.textScale = b.bodyScale
	v.look.fg = colInk
	return v
}

func (b *builder) text(r image.Rectangle, text, id string) *view {
	v := b.node(clsText, r)
	v.text, v.resID = text, id
	return v
}

func (b *builder) button(r image.Rectangle, text, id string, enabled bool, tap func()) *view {
	v := b.node(clsButton, r)
	v.text, v.resID = text, id
	v.clickable, v.focusable, v.enabled = true, true, enabled
	v.onTap = tap
	v.look.bg, v.look.fg, v.look.center = colAccent, colWhite, true
	if !enabled {
		v.look.bg = colDisabled
	}
	return v
}

func (b *builder) edit(r image.Rectangle, key, hint string, password bool) *view {
	v := b.node(clsEdit, r)
	v.resID, v.hint, v.password = key, hint, password
	v.text = b.p.st.fields[key]
	if password {
		v.text = strings.Repeat("•", len([]rune(v.text)))
	}
	v.clickable, v.focusable, v.longClickable = true, true, true
	v.focused = b.p.st.focused == key
	p := b.p
	v.onTap = func() {
		p.st.focused = key
		p.changed()
	}
	return v
}

// root is the full-screen window root of the current app.
func (b *builder) root(bg color.RGBA) *view {
	v := newView(clsFrame, b.pkg, image.Rect(0, 0, b.w, b.h))
	v.look.bg = bg
	return v
}

// toolbar adds the app bar with its title and returns the y below it
// (unshifted).
func (b *builder) toolbar(root *view, title string) int {
	top := b.statusH
	bottom := top + b.dp(56)
	bar := b.node(clsFrame, b.rect(0, top, b.w, bottom))
	bar.resID = b.pkg + ":id/toolbar"
	bar.look.bg = toolbarColors[b.pkg]
	t := b.text(b.rect(b.dp(16), top, b.w-b.dp(16), bottom), title, "android:id/title")
	t.look.textScale, t.look.fg = b.title, colWhite
	root.add(bar.add(t))
	return bottom
}

// buildTreeLocked lays out the whole screen for the current state.
func (p *Phone) buildTreeLocked() *screenTree {
	w, h, density := p.sizeLocked()
	b := &builder{p: p, w: w, h: h, density: density, dx: p.st.offsetX, dy: p.st.offsetY}
	b.statusH, b.navH = b.dp(24), b.dp(48)
	b.bodyScale, b.title = b.textScale(16), b.textScale(22)
	tree := &screenTree{w: w, h: h, density: density}

	front := p.frontLocked()
	top := front.acts[len(front.acts)-1]
	base := top
	if top.isDialog() {
		base = p.activityBelowLocked()
	}
	b.pkg = base.pkg
	tree.windows = append(tree.windows, &window{title: base.pkg + "/" + expandClass(base.pkg, base.cls), pkg: base.pkg, root: p.relabeledLocked(b.activityView(base)), act: base})
	if top.isDialog() {
		b.pkg = top.pkg
		b.dx, b.dy = 0, 0 // system dialogs are not part of the app's layout
		tree.windows = append(tree.windows, &window{
			title: top.pkg + "/" + expandClass(top.pkg, top.cls), pkg: top.pkg,
			root: b.systemDialog(top), modal: true, scrim: true, act: top,
		})
	}
	b.dx, b.dy = 0, 0
	b.pkg = PkgSystemUI
	if ime := b.imeWindow(); ime != nil {
		tree.windows = append(tree.windows, ime)
	}
	b.pkg = PkgSystemUI
	tree.windows = append(tree.windows,
		&window{title: "StatusBar", pkg: PkgSystemUI, root: b.statusBar()},
		&window{title: "NavigationBar0", pkg: PkgSystemUI, root: b.navBar()})
	tree.windows = b.withOverlays(tree.windows)
	screen := image.Rect(0, 0, w, h)
	for _, win := range tree.windows {
		win.root.clip(screen)
	}
	return tree
}

// activityBelowLocked is what a dialog on top of the front task draws over.
func (p *Phone) activityBelowLocked() *activity {
	front := p.frontLocked()
	for i := len(front.acts) - 2; i >= 0; i-- {
		if !front.acts[i].isDialog() {
			return front.acts[i]
		}
	}
	launcher := p.st.tasks[p.findTaskLocked(PkgLauncher)]
	return launcher.acts[0]
}

func (b *builder) activityView(a *activity) *view {
	switch a.component() {
	case PkgLauncher + "/.Launcher":
		return b.launcher()
	case PkgSettings + "/.Settings":
		return b.settings()
	case PkgSettings + "/.AboutPhoneActivity":
		return b.aboutPhone()
	case PkgSettings + "/" + clsNotificationSettings:
		return b.notificationSettings()
	case PkgNotes + "/.MainActivity":
		return b.notes()
	case PkgLogin + "/.LoginActivity":
		return b.login()
	case PkgLogin + "/.OtpActivity":
		return b.otp()
	case PkgLogin + "/.HomeActivity":
		return b.loginHome()
	case PkgContacts + "/.ContactsActivity":
		return b.contacts()
	case PkgContacts + "/.ContactDetailActivity":
		return b.contactDetail(a.contact)
	}
	if v := b.showcaseView(a); v != nil {
		return v
	}
	if v := b.capabilityView(a); v != nil {
		return v
	}
	return b.root(colPage)
}

func (b *builder) launcher() *view {
	root := b.root(colWallpaper)
	cellW, cellH := b.w/4, b.dp(104)
	top := b.statusH + b.dp(32)
	p := b.p
	for i, pkg := range launcherApps {
		label := appLabel(pkg)
		x0 := i * cellW
		cell := b.node(clsFrame, b.rect(x0, top, x0+cellW, top+cellH))
		cell.desc, cell.clickable, cell.focusable, cell.longClickable = label, true, true, true
		cell.resID = PkgLauncher + ":id/icon"
		target := pkg
		cell.onTap = func() { p.launchLocked(target) }
		iconSize := b.dp(56)
		ix := x0 + (cellW-iconSize)/2
		icon := b.node(clsImage, b.rect(ix, top+b.dp(8), ix+iconSize, top+b.dp(8)+iconSize))
		icon.look.bg, icon.look.fg, icon.look.glyph, icon.look.center = iconColors[pkg], colWhite, label[:1], true
		icon.look.textScale = b.title
		name := b.text(b.rect(x0, top+b.dp(70), x0+cellW, top+cellH), label, PkgLauncher+":id/label")
		name.look.fg, name.look.center = colWhite, true
		root.add(cell.add(icon, name))
	}
	b.launcherExtras(root, top+cellH)
	return root
}

func (b *builder) statusBar() *view {
	root := newView(clsFrame, PkgSystemUI, image.Rect(0, 0, b.w, b.statusH))
	root.resID = PkgSystemUI + ":id/status_bar"
	root.look.bg = colBar
	scale := max(1, b.bodyScale-1)
	pad := b.dp(16)
	clock := b.text(image.Rect(pad, 0, b.w/2, b.statusH), statusClock, PkgSystemUI+":id/clock")
	clock.look.fg, clock.look.textScale = colWhite, scale
	battery := b.text(image.Rect(b.w-pad-b.dp(64), 0, b.w-pad, b.statusH), "100%", PkgSystemUI+":id/battery")
	battery.look.fg, battery.look.textScale = colWhite, scale
	if b.p.st.wifi {
		wifi := newView(clsImage, PkgSystemUI, image.Rect(b.w-pad-b.dp(96), b.dp(6), b.w-pad-b.dp(84), b.statusH-b.dp(6)))
		wifi.desc, wifi.look.bg = "Wi-Fi signal full.", colWhite
		root.add(wifi)
	}
	root.add(clock, battery)
	b.notificationIcons(root)
	return root
}

func (b *builder) navBar() *view {
	top := b.h - b.navH
	root := newView(clsFrame, PkgSystemUI, image.Rect(0, top, b.w, b.h))
	root.resID = PkgSystemUI + ":id/navigation_bar_frame"
	root.look.bg = colBlack
	p := b.p
	buttons := []struct {
		id, desc, glyph string
		tap             func()
	}{
		{"back", "Back", "<", p.backLocked},
		{"home", "Home", "O", p.goHomeLocked},
		{"recent_apps", "Overview", "#", func() {}},
	}
	third := b.w / 3
	for i, btn := range buttons {
		v := newView(clsImage, PkgSystemUI, image.Rect(i*third, top, (i+1)*third, b.h))
		v.resID, v.desc, v.clickable, v.longClickable = PkgSystemUI+":id/"+btn.id, btn.desc, true, true
		v.onTap = btn.tap
		v.look.fg, v.look.glyph, v.look.center, v.look.textScale = colWhite, btn.glyph, true, b.title
		root.add(v)
	}
	return root
}

// statusClock is the frozen status bar time: screenshots must not depend on
// the wall clock.
const statusClock = "12:00"

const buildID = "UQ1A.240105.004"
