package android

import (
	"image/color"
	"sort"
	"strconv"
)

// The Recorder app, a microphone surface, modelled on AOSP's
// SoundRecorder (com.android.soundrecorder/.SoundRecorder): a timer
// TextView :id/timerView "00:00", a state line, and ImageButtons
// :id/recordButton described "Record" and :id/stopButton "Stop". Its
// record button asks for RECORD_AUDIO first (the permission controller's
// microphone dialog, as requestPermissions does); with the grant it
// records until Stop, and each stop saves one recording.
const (
	PkgRecorder = "com.openpocket.recorder"
	clsRecorder = ".SoundRecorder"
)

func init() {
	apps = append(apps, &app{pkg: PkgRecorder, label: "Recorder", mainActivity: clsRecorder, launchable: true,
		activities: []string{clsRecorder}, uid: 10113, optional: true})
	sort.Slice(apps, func(i, j int) bool { return apps[i].pkg < apps[j].pkg })
	runtimePermissions[PkgRecorder] = []string{"android.permission.RECORD_AUDIO"}
	toolbarColors[PkgRecorder] = color.RGBA{183, 28, 28, 255}
}

// Recordings counts the recordings the Recorder app saved.
func (p *Phone) Recordings() (n int) {
	p.locked(func() { n, _ = strconv.Atoi(p.st.settings[capKey("recordings")]) })
	return
}

// Recording reports whether the Recorder app is recording now.
func (p *Phone) Recording() (on bool) {
	p.locked(func() { on = p.st.settings[capKey("recording")] == "1" })
	return
}

func (b *builder) recorderView() *view {
	p := b.p
	id := func(s string) string { return PkgRecorder + ":id/" + s }
	root := b.root(colPage)
	y := b.toolbar(root, "Recorder")
	recording := p.st.settings[capKey("recording")] == "1"
	timer := b.text(b.rect(b.dp(16), y+b.dp(48), b.w-b.dp(16), y+b.dp(120)), "00:00", id("timerView"))
	timer.look.center = true
	state := "Press Record to start"
	if recording {
		state = "Recording"
	}
	msg := b.text(b.rect(b.dp(16), y+b.dp(128), b.w-b.dp(16), y+b.dp(168)), state, id("stateMessage2"))
	msg.look.center = true
	cy := b.h - b.navH - b.dp(96)
	btn := b.node("android.widget.ImageButton", b.rect(b.w/2-b.dp(36), cy-b.dp(36), b.w/2+b.dp(36), cy+b.dp(36)))
	btn.clickable, btn.focusable = true, true
	btn.look.bg = color.RGBA{211, 47, 47, 255}
	if recording {
		btn.resID, btn.desc = id("stopButton"), "Stop"
		btn.onTap = func() {
			n, _ := strconv.Atoi(p.st.settings[capKey("recordings")])
			p.st.settings[capKey("recordings")] = strconv.Itoa(n + 1)
			delete(p.st.settings, capKey("recording"))
			p.changed()
		}
	} else {
		btn.resID, btn.desc = id("recordButton"), "Record"
		btn.onTap = func() {
			if !p.grantedLocked(PkgRecorder, GroupMicrophone) {
				// Asked again after a denial too, as an app that
				// calls requestPermissions on every press does;
				// Android then answers by itself, so do not stack.
				if p.st.perm.decided[PkgRecorder+" "+GroupMicrophone] {
					return
				}
				front := p.frontLocked()
				front.acts = append(front.acts, p.permDialogLocked(PkgRecorder, GroupMicrophone))
				p.changed()
				return
			}
			p.st.settings[capKey("recording")] = "1"
			p.changed()
		}
	}
	return root.add(timer, msg, btn)
}
