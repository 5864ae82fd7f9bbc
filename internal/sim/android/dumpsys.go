package android

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// cmdDumpsys answers `dumpsys window`, `activity` and `power` in the text
// layout of real devices: the parts the device layer reads (focus, tasks,
// wakefulness, keyguard) come from the simulated state.
func cmdDumpsys(_ context.Context, p *Phone, c *cmdIO) int {
	args := c.args[1:]
	if len(args) == 0 {
		c.errorf("usage: dumpsys [window|activity|power] ...")
		return 1
	}
	var out string
	p.mu.Lock()
	switch args[0] {
	case "window":
		sub := ""
		if len(args) > 1 {
			sub = args[1]
		}
		switch sub {
		case "windows", "w":
			out = p.dumpWindowsLocked()
		case "policy", "p":
			out = p.dumpPolicyLocked()
		case "":
			out = p.dumpPolicyLocked() + "\n" + p.dumpWindowsLocked()
		case "displays", "d":
			w, h, d := p.sizeLocked()
			out = fmt.Sprintf("WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n  Display: mDisplayId=0 rootTasks=%d\n    init=%dx%d %ddpi cur=%dx%d app=%dx%d rng=%dx%d-%dx%d\n",
				len(p.st.tasks), p.st.physW, p.st.physH, d, w, h, w, h, w, w, h, h)
		default:
			out = fmt.Sprintf("WINDOW MANAGER %s (dumpsys window %s)\n", strings.ToUpper(sub), sub)
		}
	case "activity":
		if len(args) > 1 && (args[1] == "activities" || args[1] == "a") || len(args) == 1 {
			out = p.dumpActivitiesLocked()
		} else if args[1] == "top" {
			top := p.topLocked()
			out = fmt.Sprintf("TASK %s id=%d userId=0\n  ACTIVITY %s %s pid=4%03d\n", p.frontLocked().pkg, p.frontLocked().id, top.component(), objectID("act", top.component()), p.frontLocked().id)
		} else {
			out = fmt.Sprintf("ACTIVITY MANAGER %s (dumpsys activity %s)\n", strings.ToUpper(args[1]), args[1])
		}
	case "power":
		out = p.dumpPowerLocked()
	case "input_method":
		out = p.dumpInputMethodLocked()
	case "display":
		out = p.dumpDisplayLocked()
	case "package":
		if len(args) > 1 {
			out = p.dumpPackageLocked(args[1])
		} else {
			out = p.dumpPackagesLocked()
		}
	default:
		p.mu.Unlock()
		c.errorf("Can't find service: %s", args[0])
		return 0
	}
	p.mu.Unlock()
	io.WriteString(c.stdout, out)
	return 0
}

func (p *Phone) dumpWindowsLocked() string {
	tree := p.treeLocked()
	var b strings.Builder
	b.WriteString("WINDOW MANAGER WINDOWS (dumpsys window windows)\n")
	n := 0
	for i := len(tree.windows) - 1; i >= 0; i-- {
		w := tree.windows[i]
		id := objectID("win", w.title)
		fmt.Fprintf(&b, "  Window #%d Window{%s u0 %s}:\n", n, id, p.windowTitleLocked(w))
		n++
		r := w.root.bounds
		uid := 10000
		if a := appByPackage(w.pkg); a != nil {
			uid = a.uid
		}
		fmt.Fprintf(&b, "    mDisplayId=0 rootTaskId=%d mSession=Session{%s %d:u0a%d} mClient=android.os.BinderProxy@%s\n",
			p.frontLocked().id, objectID("session", w.pkg), 3000+uid%1000, uid%10000, objectID("client", w.title))
		fmt.Fprintf(&b, "    mOwnerUid=%d showForAllUsers=%t package=%s appop=NONE\n", uid, w.pkg == PkgSystemUI, w.pkg)
		var ty, fl string
		switch {
		case w.ime:
			ty, fl = "INPUT_METHOD", "NOT_FOCUSABLE LAYOUT_IN_SCREEN SPLIT_TOUCH HARDWARE_ACCELERATED DRAWS_SYSTEM_BAR_BACKGROUNDS"
		case w.focus:
			ty, fl = "NOTIFICATION_SHADE", "NOT_TOUCH_MODAL SHOW_WALLPAPER SPLIT_TOUCH HARDWARE_ACCELERATED DRAWS_SYSTEM_BAR_BACKGROUNDS"
		}
		switch w.title {
		case "StatusBar":
			ty, fl = "STATUS_BAR", "NOT_FOCUSABLE SPLIT_TOUCH HARDWARE_ACCELERATED DRAWS_SYSTEM_BAR_BACKGROUNDS"
		case "NavigationBar0":
			ty, fl = "NAVIGATION_BAR", "NOT_FOCUSABLE NOT_TOUCH_MODAL TOUCHABLE_WHEN_WAKING WATCH_OUTSIDE_TOUCH SPLIT_TOUCH HARDWARE_ACCELERATED"
		default:
			if ty != "" {
				break
			}
			ty = "BASE_APPLICATION"
			flags := []string{"LAYOUT_IN_SCREEN"}
			if w.modal {
				flags = []string{"DIM_BEHIND"}
			}
			if p.st.secure[w.pkg] || w.act != nil && p.st.ext.secureScreens[w.act.component()] {
				flags = append(flags, "SECURE")
			}
			if !w.modal {
				flags = append(flags, "LAYOUT_INSET_DECOR")
			}
			flags = append(flags, "SPLIT_TOUCH", "HARDWARE_ACCELERATED", "DRAWS_SYSTEM_BAR_BACKGROUNDS")
			fl = strings.Join(flags, " ")
		}
		fmt.Fprintf(&b, "    mAttrs={(%d,%d)(%dx%d) sim={adjust=pan} ty=%s fmt=TRANSLUCENT\n      fl=%s}\n", r.Min.X, r.Min.Y, r.Dx(), r.Dy(), ty, fl)
		fmt.Fprintf(&b, "    Requested w=%d h=%d mLayoutSeq=%d\n", r.Dx(), r.Dy(), p.version%1000)
		if w.act != nil && p.st.ext.focusStyle != FocusWindowOnly {
			t := p.taskOfLocked(w.act)
			if t != nil {
				fmt.Fprintf(&b, "    mActivityRecord=%s\n", activityRecord(t, w.act))
			}
		}
		fmt.Fprintf(&b, "    mFrame=[%d,%d][%d,%d]\n    mHasSurface=true isReadyForDisplay()=true mWindowRemovalAllowed=false\n",
			r.Min.X, r.Min.Y, r.Max.X, r.Max.Y)
	}
	b.WriteString("\n  mGlobalConfiguration={1.0 ?mcc?mnc [en_US] ldltr sw411dp w411dp h842dp 420dpi nrml long port finger -keyb/v/h -nav/h winConfig={}}\n")
	b.WriteString("  mHasPermanentDpad=false\n  mTopFocusedDisplayId=0\n")
	b.WriteString(p.focusLinesLocked(tree))
	return b.String()
}

// focusLinesLocked prints mCurrentFocus and mFocusedApp in the style the
// phone imitates.
func (p *Phone) focusLinesLocked(tree *screenTree) string {
	focus := tree.windows[0]
	if len(tree.windows) > 2 && tree.windows[1].modal {
		focus = tree.windows[1]
	}
	for _, w := range tree.windows {
		if w.focus {
			focus = w // the keyguard or shade takes focus over the app
		}
	}
	switch p.st.ext.focusStyle {
	case FocusTopOnly:
		return "  mCurrentFocus=null\n  mFocusedApp=null\n"
	case FocusWindowOnly:
		return fmt.Sprintf("  mCurrentFocus=Window{%s u0 %s}\n", objectID("win", focus.title), p.windowTitleLocked(focus))
	}
	return fmt.Sprintf("  mCurrentFocus=Window{%s u0 %s}\n  mFocusedApp=%s\n",
		objectID("win", focus.title), focus.title, activityRecord(p.frontLocked(), p.topLocked()))
}

func (p *Phone) taskOfLocked(a *activity) *task {
	for _, t := range p.st.tasks {
		for _, x := range t.acts {
			if x == a {
				return t
			}
		}
	}
	return nil
}

func (p *Phone) dumpActivitiesLocked() string {
	var b strings.Builder
	b.WriteString("ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\nDisplay #0 (activities from top to bottom):\n")
	for i := len(p.st.tasks) - 1; i >= 0; i-- {
		t := p.st.tasks[i]
		typ := "standard"
		if t.pkg == PkgLauncher {
			typ = "home"
		}
		uid := 10000
		if a := appByPackage(t.pkg); a != nil {
			uid = a.uid
		}
		fmt.Fprintf(&b, "  * Task{%s #%d type=%s A=%d:%s U=0 visible=%t visibleRequested=%t mode=fullscreen translucent=false sz=%d}\n",
			objectID("task", t.id), t.id, typ, uid, t.pkg, i == len(p.st.tasks)-1, i == len(p.st.tasks)-1, len(t.acts))
		fmt.Fprintf(&b, "    mResumedActivity: ")
		if i == len(p.st.tasks)-1 && p.st.ext.focusStyle == FocusModern {
			fmt.Fprintf(&b, "%s\n", activityRecord(t, t.acts[len(t.acts)-1]))
		} else {
			b.WriteString("null\n")
		}
		for j := len(t.acts) - 1; j >= 0; j-- {
			a := t.acts[j]
			fmt.Fprintf(&b, "    * Hist  #%d: %s\n      packageName=%s processName=%s\n", j, activityRecord(t, a), a.pkg, a.pkg)
		}
	}
	front := p.frontLocked()
	top := activityRecord(front, front.acts[len(front.acts)-1])
	if p.st.ext.focusStyle == FocusModern {
		fmt.Fprintf(&b, "\n  Resumed activities in task display areas (from top to bottom):\n    ResumedActivity: %s\n", top)
		fmt.Fprintf(&b, "\n  ResumedActivity: %s\n  topResumedActivity=%s\n", top, top)
	}
	b.WriteString(p.keyguardControllerLocked())
	return b.String()
}

func (p *Phone) dumpPowerLocked() string {
	wake, display := "Awake", "ON"
	if !p.st.awake {
		wake, display = "Asleep", "OFF"
	}
	return fmt.Sprintf("POWER MANAGER (dumpsys power)\n\nPower Manager State:\n  mDirty=0x0\n  mWakefulness=%s\n  mWakefulnessChanging=false\n  mIsPowered=true\n  mPlugType=1\n  mBatteryLevel=100\n  mInteractive=%t\n  mDisplayReady=true\n  mHoldingDisplaySuspendBlocker=%t\n\nDisplay Power: state=%s\n",
		wake, p.st.awake, p.st.awake, display)
}
