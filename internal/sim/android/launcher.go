package android

// launcherFolder is one folder on the launcher page.
type launcherFolder struct {
	name string
	apps []string
}

// launcherFolders are the folders on the home page, below the app row.
var launcherFolders = []launcherFolder{
	{"Tools", []string{PkgSettings, PkgContacts, PkgNotes}},
	{"Money", []string{PkgWallet, PkgLogin}},
}

// dockApps are the favourites in the hotseat above the navigation bar.
var dockApps = []string{PkgChat, PkgWallet, PkgContacts, PkgSettings}

// launcherExtras adds what a real home screen has beyond the app row:
// folders (a clickable FrameLayout "Folder: NAME" whose 26 dp preview
// thumbnails are clickable ImageViews described by their app, as some
// launchers expose them), the dock (hotseat TextViews with a description
// and no visible label) and, when a folder is open, its content panel.
func (b *builder) launcherExtras(root *view, y int) {
	p := b.p
	id := func(s string) string { return PkgLauncher + ":id/" + s }
	cellW, cellH := b.w/4, b.dp(104)
	for i, f := range launcherFolders {
		x0 := i * cellW
		folder := b.node(clsFrame, b.rect(x0, y, x0+cellW, y+cellH))
		folder.resID, folder.desc = id("folder_icon"), "Folder: "+f.name
		folder.clickable, folder.focusable, folder.longClickable = true, true, true
		name := f.name
		folder.onTap = func() { p.st.ext.openFolder = name; p.changed() }
		size := b.dp(26)
		for j, pkg := range f.apps {
			tx := x0 + (cellW-2*size-b.dp(4))/2 + j%2*(size+b.dp(4))
			ty := y + b.dp(8) + j/2*(size+b.dp(4))
			thumb := b.node(clsImage, b.rect(tx, ty, tx+size, ty+size))
			thumb.resID, thumb.desc, thumb.clickable, thumb.focusable = id("preview_item"), appLabel(pkg), true, true
			thumb.look.bg = iconColors[pkg]
			folder.add(thumb)
		}
		label := b.text(b.rect(x0, y+b.dp(70), x0+cellW, y+cellH), f.name, id("folder_label"))
		label.look.fg, label.look.center = colWhite, true
		root.add(folder.add(label))
	}
	dockH := b.dp(88)
	dockTop := b.h - b.navH - dockH
	dock := b.node(clsLinear, b.rect(0, dockTop, b.w, dockTop+dockH))
	dock.resID = id("hotseat")
	for i, pkg := range dockApps {
		x0 := i * b.w / len(dockApps)
		icon := b.node(clsText, b.rect(x0, dockTop, x0+b.w/len(dockApps), dockTop+dockH))
		icon.desc, icon.clickable, icon.focusable, icon.longClickable = appLabel(pkg), true, true, true
		target := pkg
		icon.onTap = func() { p.launchLocked(target) }
		icon.look.bg = iconColors[pkg]
		dock.add(icon)
	}
	root.add(dock)
	if p.st.ext.openFolder != "" {
		root.add(b.folderPanel())
	}
}

// folderPanel is an open folder: its apps as launcher icons on a card.
func (b *builder) folderPanel() *view {
	p := b.p
	var f launcherFolder
	for _, x := range launcherFolders {
		if x.name == p.st.ext.openFolder {
			f = x
		}
	}
	cellW, cellH := b.dp(96), b.dp(104)
	w := min(b.w-b.dp(32), cellW*len(f.apps)+b.dp(32))
	x0, y0 := (b.w-w)/2, b.h/3
	panel := b.node(clsFrame, b.rect(x0, y0, x0+w, y0+cellH+b.dp(56)))
	panel.resID, panel.look.bg = PkgLauncher+":id/folder_content", colWhite
	// A tap on the panel's background is taken (and ignored), like a card.
	panel.onTap = func() {}
	title := b.text(b.rect(x0, y0, x0+w, y0+b.dp(40)), f.name, PkgLauncher+":id/folder_name")
	title.look.center = true
	panel.add(title)
	for i, pkg := range f.apps {
		cx := x0 + b.dp(16) + i*cellW
		cell := b.node(clsText, b.rect(cx, y0+b.dp(48), cx+cellW, y0+b.dp(48)+cellH))
		cell.text, cell.desc, cell.clickable, cell.focusable = appLabel(pkg), appLabel(pkg), true, true
		target := pkg
		cell.onTap = func() { p.st.ext.openFolder = ""; p.launchLocked(target) }
		cell.look.bg, cell.look.fg, cell.look.center = iconColors[pkg], colWhite, true
		panel.add(cell)
	}
	return panel
}

// closeFolderLocked closes an open launcher folder (BACK).
func (p *Phone) closeFolderLocked() bool {
	if p.st.ext.openFolder == "" || p.frontLocked().pkg != PkgLauncher {
		return false
	}
	p.st.ext.openFolder = ""
	p.changed()
	return true
}
