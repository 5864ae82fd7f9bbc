package skills

import (
	"fmt"
	"math/bits"
	"sort"
	"strconv"
	"strings"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/screen"
)

// Plan is what a skill needs from a recorded run, as opposed to what merely
// happened in it: the app the task starts in, the steps on the shortest path
// to the final state, the system dialogs answered on the way (replayed as
// handlers whenever such a dialog shows up) and the steps left out, with
// why.
type Plan struct {
	// Start is the first app the task used ("" when the run used none).
	Start string
	// Kept are indexes into the trace of the steps the replay repeats, in
	// order.
	Kept []int
	// Handlers are the recorded answers to system dialogs.
	Handlers []Handler
	// Dropped are the steps left out (detours, attempts without effect).
	Dropped []Dropped
	// IconLaunch maps a kept launcher tap (an index) to the app it opened:
	// the replay launches that app instead of looking for the icon.
	IconLaunch map[int]string
	// Secret marks type steps (indexes) that typed into a password field:
	// their text is never written into the skill.
	Secret map[int]bool
}

// Handler is a system dialog answered during the recorded run. At replay it
// answers that dialog whenever it shows up and never fails when it does not.
type Handler struct {
	// Index and Step locate the recorded answer in the trace.
	Index, Step int
	// Package is the dialog's package (com.android.permissioncontroller,
	// android for ANR, "Open with" and keyboard pickers).
	Package string
	// Kind names the dialog ("permission", "app not responding", …).
	Kind string
	// Message is the dialog's text beside the answer (the permission
	// asked for); "" matches any dialog of the package.
	Message string
	// Answer selects the button that was tapped; Back answers with BACK.
	Answer screen.Selector
	Back   bool
	// Label is the answer as a person reads it ("Allow", "Wait", "BACK").
	Label string
}

// Replayed reports whether the replay gives this answer again: not for a
// permission prompt whose message was not recorded (answering every
// permission prompt that way would be a guess).
func (h Handler) Replayed() bool { return h.Kind != DialogPermission || h.Message != "" }

// Dropped is a recorded step the replay leaves out.
type Dropped struct {
	Index, Step int
	Why         string
}

// Dialog kinds.
const (
	DialogPermission = "permission"
	DialogANR        = "app not responding"
	DialogOpenWith   = "Open with"
	DialogIMEPicker  = "keyboard picker"
	DialogSystem     = "system dialog"
)

// DialogPackage is [engine.DialogPackage].
func DialogPackage(pkg string) bool { return engine.DialogPackage(pkg) }

// launcherPackage reports a home screen app.
func launcherPackage(pkg string) bool {
	return strings.Contains(pkg, "launcher") || strings.HasSuffix(pkg, ".nexuslauncher")
}

// sameScreenBits is how many dHash bits two screenshots may differ by and
// still be the same screen (the element cache's threshold, docs/what-the-model-sees.md).
const sameScreenBits = 4

// sameScreen reports whether two observed states (app and visual hash) are
// the same screen; unknown hashes never match.
func sameScreen(appA, hashA, appB, hashB string) bool {
	if appA == "" || appA != appB || hashA == "" || hashB == "" {
		return false
	}
	a, errA := strconv.ParseUint(hashA, 16, 64)
	b, errB := strconv.ParseUint(hashB, 16, 64)
	if errA != nil || errB != nil {
		return hashA == hashB
	}
	return bits.OnesCount64(a^b) <= sameScreenBits
}

// Learn reads a recorded run the way a skill should remember it:
//   - taps and BACK presses in system dialogs become [Handler]s;
//   - UI actions without effect (state_delta changed=false: a tap that
//     missed, a swipe at the end of a list) are dropped — except a tap that
//     focused a text field, whose effect a screenshot may not show;
//   - detours are dropped: a stretch of navigation that ends with BACK or
//     HOME where it started — same app, same screen — and after which the
//     task went on (opened the wrong app or screen, pressed back); see
//     undoable for what counts as navigation;
//   - the start is the first app the task used: a launch_app's package, the
//     app a launcher icon opened (that tap is replayed as a launch), else
//     the app the first kept step acted in.
func Learn(steps []engine.TraceStep) Plan {
	p := Plan{IconLaunch: map[int]string{}, Secret: map[int]bool{}}
	var cand []int
	for i, st := range steps {
		if h, ok := handlerOf(st); ok {
			h.Index, h.Step = i, stepNumber(st, i)
			p.Handlers = append(p.Handlers, h)
			continue
		}
		if noEffect(steps, i) {
			p.Dropped = append(p.Dropped, Dropped{Index: i, Step: stepNumber(st, i), Why: "had no effect (state_delta changed=false)"})
			continue
		}
		cand = append(cand, i)
	}
	p.Kept = p.dropDetours(steps, cand)
	for k, i := range p.Kept {
		st := steps[i]
		if !isTap(st) || !launcherPackage(st.AppBefore) {
			continue
		}
		opened := st.AppAfter
		if DialogPackage(opened) && k+1 < len(p.Kept) {
			// A dialog popped up over the app the icon opened: that app
			// is where the next kept step acts.
			opened = steps[p.Kept[k+1]].AppBefore
		}
		if opened != "" && !launcherPackage(opened) && !DialogPackage(opened) {
			p.IconLaunch[i] = opened
		}
	}
	p.Start = p.startApp(steps)
	for k, i := range p.Kept {
		if steps[i].Action.Type != "type" {
			continue
		}
		if t := steps[i].Target; t != nil && t.Password || k > 0 && isTap(steps[p.Kept[k-1]]) && steps[p.Kept[k-1]].Target != nil && steps[p.Kept[k-1]].Target.Password {
			p.Secret[i] = true
		}
	}
	sort.Slice(p.Dropped, func(i, j int) bool { return p.Dropped[i].Index < p.Dropped[j].Index })
	return p
}

// dropDetours removes stretches cand[a..b] after which the screen is back
// where cand[a] started, taking the longest such stretch first.
func (p *Plan) dropDetours(steps []engine.TraceStep, cand []int) []int {
	var kept []int
	for a := 0; a < len(cand); a++ {
		first := steps[cand[a]]
		end := -1
		for b := len(cand) - 1; b >= a; b-- {
			last := steps[cand[b]]
			if last.Action.Type == "finish" {
				continue
			}
			after := last.AppAfter
			if after == "" {
				after = last.AppBefore
			}
			if goesBack(last) && sameScreen(first.AppBefore, first.HashBefore, after, last.HashAfter) &&
				undoable(steps, cand[a:b+1]) && workAfter(steps, cand[b+1:]) {
				end = b
				break
			}
		}
		if end < 0 {
			kept = append(kept, cand[a])
			continue
		}
		undo := stepNumber(steps[cand[end]], cand[end])
		for _, i := range cand[a : end+1] {
			p.Dropped = append(p.Dropped, Dropped{Index: i, Step: stepNumber(steps[i], i),
				Why: fmt.Sprintf("detour: after step %d the screen was back where step %d started", undo, stepNumber(first, cand[a]))})
		}
		a = end
	}
	return kept
}

// goesBack reports a step that navigates back: BACK or HOME, as a key or
// a tap on the navigation bar's button.
func goesBack(st engine.TraceStep) bool {
	switch st.Action.Type {
	case "keyevent":
		switch strings.TrimPrefix(st.Action.Str("keycode"), "KEYCODE_") {
		case "BACK", "HOME", "ESCAPE":
			return true
		}
	case "tap", "tap_element":
		if t := st.Target; t != nil {
			id := t.ResourceID[strings.LastIndex(t.ResourceID, "/")+1:]
			return id == "back" || id == "home" || t.ContentDesc == "Back" || t.ContentDesc == "Navigate up" || t.ContentDesc == "Home"
		}
	}
	return false
}

// undoable reports whether a stretch may be a detour: navigation only — no
// typing, no drag, no shell, no tap on a button or a toggle (those may
// change state a screenshot does not show: a setting, a saved note) — at
// least one step that changed something, and no more steps forward than
// BACK/HOME presses undoing them (opened something, backed out; a stretch
// that also acted inside what it opened did more than look).
func undoable(steps []engine.TraceStep, idx []int) bool {
	changed, forward, back := false, 0, 0
	for _, i := range idx {
		st := steps[i]
		switch st.Action.Type {
		case "tap", "tap_element":
			if st.Target != nil && committingClass(st.Target.ClassName) {
				return false
			}
		case "swipe", "keyevent", "launch_app", "wait":
		default:
			return false
		}
		switch {
		case goesBack(st):
			back++
		case st.Action.Type != "wait" && st.Action.Type != "swipe":
			forward++
		}
		changed = changed || st.Changed
	}
	return changed && forward <= back
}

// committingClass reports widget classes whose tap commits something
// (buttons, toggles) rather than navigating.
func committingClass(class string) bool {
	switch engine.SimpleClass(class) {
	case "Button", "ImageButton", "Switch", "SwitchCompat", "SwitchMaterial", "CheckBox", "RadioButton", "ToggleButton", "CompoundButton", "CheckedTextView":
		return true
	}
	return false
}

// workAfter reports whether the task went on after a stretch (a kept step
// other than finish follows): a run that ends by going back where it
// started did its work in between, whatever the screen shows.
func workAfter(steps []engine.TraceStep, rest []int) bool {
	for _, i := range rest {
		if t := steps[i].Action.Type; t != "finish" && t != "wait" {
			return true
		}
	}
	return false
}

// noEffect reports a UI action whose observation saw no change.
func noEffect(steps []engine.TraceStep, i int) bool {
	st := steps[i]
	if st.Changed || st.HashBefore == "" || (st.AppAfter != "" && st.AppAfter != st.AppBefore) {
		return false
	}
	switch st.Action.Type {
	case "tap", "tap_element":
		if st.Target != nil && engine.EditableClass(st.Target.ClassName) {
			return false
		}
		return i+1 >= len(steps) || steps[i+1].Action.Type != "type"
	case "swipe", "drag", "long_press_drag", "keyevent", "wait":
		return true
	}
	return false
}

// handlerOf turns an answer given in a system dialog into a handler.
func handlerOf(st engine.TraceStep) (Handler, bool) {
	if !DialogPackage(st.AppBefore) {
		return Handler{}, false
	}
	h := Handler{Package: st.AppBefore}
	switch {
	case st.Action.Type == "keyevent" && strings.TrimPrefix(st.Action.Str("keycode"), "KEYCODE_") == "BACK":
		h.Back, h.Label = true, "BACK"
	case isTap(st) && identifiable(st.Target):
		h.Answer, _ = engine.PrimarySelector(st.Target)
		h.Label = st.Target.Text
		if h.Label == "" {
			h.Label = st.Target.ContentDesc
		}
		if h.Label == "" {
			h.Label = h.Answer.String()
		}
		h.Message = st.Target.Near
	default:
		return Handler{}, false
	}
	h.Kind = dialogKind(st.AppBefore, h.Answer)
	return h, true
}

// dialogKind names a dialog from its package and the answer's id.
func dialogKind(pkg string, answer screen.Selector) string {
	if strings.Contains(pkg, "permissioncontroller") || strings.Contains(pkg, "packageinstaller") {
		return DialogPermission
	}
	id := answer.ID
	switch {
	case strings.Contains(id, "aerr_"):
		return DialogANR
	case strings.Contains(id, "button_once") || strings.Contains(id, "button_always") || strings.Contains(id, "resolver"):
		return DialogOpenWith
	case strings.Contains(id, "input_method") || strings.Contains(id, "ime"):
		return DialogIMEPicker
	}
	return DialogSystem
}

// startApp is the first app the task used.
func (p *Plan) startApp(steps []engine.TraceStep) string {
	for _, i := range p.Kept {
		st := steps[i]
		switch {
		case st.Action.Type == "finish" || st.Action.Type == "request_human_auth":
			continue
		case st.Action.Type == "launch_app":
			return st.Action.Str("packageName")
		case p.IconLaunch[i] != "":
			return p.IconLaunch[i]
		case st.AppBefore != "" && !DialogPackage(st.AppBefore):
			return st.AppBefore
		}
	}
	return ""
}

// dropped returns why step index i was dropped, "" when it was not.
func (p *Plan) dropped(i int) string {
	for _, d := range p.Dropped {
		if d.Index == i {
			return d.Why
		}
	}
	return ""
}

// handlerAt returns the handler recorded from step index i, if any.
func (p *Plan) handlerAt(i int) (Handler, bool) {
	for _, h := range p.Handlers {
		if h.Index == i {
			return h, true
		}
	}
	return Handler{}, false
}
