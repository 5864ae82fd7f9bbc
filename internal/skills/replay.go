package skills

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/lua/luasrc"
)

//go:embed prelude.lua
var prelude string

// DefaultStepTimeoutMs bounds each find and check of a replay (overridable
// at run time with the parameter timeout_ms).
const DefaultStepTimeoutMs = 8000

// ReplayOptions describe a replay script.
type ReplayOptions struct {
	// Name is the skill name used in the header's run line.
	Name string
	// Task, SessionPath and Fingerprint go into the header comment.
	Task, SessionPath, Fingerprint string
	// ScreenWidth and ScreenHeight are the recorded device size; recorded
	// points are scaled from it to the current screen. 0 = unknown (points
	// are used as recorded).
	ScreenWidth, ScreenHeight int
	// CoordinatesOnly disables selectors: taps go to the recorded points
	// (scaled) and swipes are replayed as recorded, like upstream's
	// replay. The checks stay, so a moved layout fails the replay.
	CoordinatesOnly bool
	// StepTimeoutMs bounds each find and check (DefaultStepTimeoutMs).
	StepTimeoutMs int
}

// Param is a replay parameter: text the user typed during the run.
type Param struct {
	Name string
	// Default is the recorded value; empty and Required when the value came
	// from a human (after request_human_auth).
	Default  string
	Required bool
	Step     int
	// About says where the value goes.
	About string
}

// GenerateReplay writes the Lua replay script of a run and lists its
// parameters. It replays the cleaned path of [Learn]: the start app is
// brought up from any state, system dialogs answered in the run become
// handlers active throughout, detours and attempts without effect are left
// out (shown as comments). Steps that are not device actions (scripts,
// coding and memory tools) are left out with a comment.
func GenerateReplay(steps []engine.TraceStep, o ReplayOptions) (string, []Param) {
	g := &gen{o: o, steps: steps, plan: Learn(steps)}
	if g.o.StepTimeoutMs <= 0 {
		g.o.StepTimeoutMs = DefaultStepTimeoutMs
	}
	g.run()
	return g.render(), g.params
}

type gen struct {
	o      ReplayOptions
	steps  []engine.TraceStep
	plan   Plan
	params []Param
	body   strings.Builder
	human  string
	nSteps int
	// started is set once the start app has been brought up.
	started bool
	// done marks trace indexes already written (kept or commented).
	done map[int]bool
}

// run writes the kept steps in order, with the left-out steps before them
// as comments.
func (g *gen) run() {
	g.done = map[int]bool{}
	kept := g.plan.Kept
	for k := 0; k < len(kept); k++ {
		i := kept[k]
		g.comments(i)
		st := g.steps[i]
		id := stepNumber(st, i)
		if !g.started && g.plan.Start != "" && st.Action.Type != "finish" && st.Action.Type != "request_human_auth" {
			g.started = true
			if pkg := g.launchTarget(i); pkg != "" {
				g.launch(id, st, pkg, g.anchor(k+1, pkg))
				continue
			}
			g.start(id, g.plan.Start, g.anchor(k, g.plan.Start))
		}
		switch st.Action.Type {
		case "tap", "tap_element":
			if pkg := g.launchTarget(i); pkg != "" {
				g.launch(id, st, pkg, g.anchor(k+1, pkg))
				continue
			}
			g.tap(id, i)
		case "type":
			g.typeText(id, st, i)
		case "swipe", "drag", "long_press_drag":
			k = g.swipes(k)
		case "keyevent":
			g.key(id, i)
		case "launch_app":
			pkg := st.Action.Str("packageName")
			g.launch(id, st, pkg, g.anchor(k+1, pkg))
		case "shell":
			g.shell(id, st)
		case "wait":
			g.wait(id, st)
		case "finish":
			g.finish(id, st)
		case "request_human_auth":
			g.human = st.Action.Str("capability")
			fmt.Fprintf(&g.body, "-- Step %d: request_human_auth (%s): %s\n-- The human's answer is a required parameter of the next typed text.\n\n",
				id, g.human, oneLine(st.Action.Str("instruction"), 120))
		default:
			fmt.Fprintf(&g.body, "-- Step %d: %s is not replayed (not a device action).\n\n", id, st.Action.Type)
		}
	}
	g.comments(len(g.steps))
}

// swipes writes the swipe at kept[k] — a run of swipes followed by a tap on
// an identifiable element becomes one scroll — and returns the last kept
// position it consumed.
func (g *gen) swipes(k int) int {
	kept := g.plan.Kept
	i := kept[k]
	st := g.steps[i]
	j := k
	for j+1 < len(kept) && st.Action.Type == "swipe" && g.steps[kept[j+1]].Action.Type == "swipe" {
		j++
	}
	if !g.o.CoordinatesOnly && st.Action.Type == "swipe" && j+1 < len(kept) && isTap(g.steps[kept[j+1]]) && identifiable(g.steps[kept[j+1]].Target) {
		var run []engine.TraceStep
		for _, x := range kept[k : j+1] {
			run = append(run, g.steps[x])
			g.done[x] = true
		}
		g.scroll(stepNumber(st, i), run, g.steps[kept[j+1]])
		return j
	}
	g.gesture(stepNumber(st, i), i)
	return k
}

// comments writes the left-out steps before trace index upto as comments:
// handlers (answered dialogs) and dropped steps.
func (g *gen) comments(upto int) {
	for i := 0; i < upto; i++ {
		if g.done[i] {
			continue
		}
		st := g.steps[i]
		id := stepNumber(st, i)
		if h, ok := g.plan.handlerAt(i); ok && !h.Replayed() {
			g.done[i] = true
			fmt.Fprintf(&g.body, "-- Step %d: %s — answered a %s dialog (%s) whose message was not recorded;\n--   not repeated (which permission it asked for is unknown).\n\n", id, Summary(st), h.Kind, st.AppBefore)
			continue
		} else if ok {
			g.done[i] = true
			fmt.Fprintf(&g.body, "-- Step %d: %s — answered a %s dialog (%s); not a step: HANDLERS answers it\n--   whenever it shows up during the replay, and nothing fails when it does not.\n\n",
				id, Summary(st), h.Kind, st.AppBefore)
			continue
		}
		if why := g.plan.dropped(i); why != "" {
			g.done[i] = true
			fmt.Fprintf(&g.body, "-- Step %d dropped: %s — %s.\n\n", id, g.plan.summaryOf(g.steps, i), why)
		}
	}
	if upto < len(g.steps) {
		g.done[upto] = true
	}
}

// launchTarget is the app a kept step opens as the task's launch: a
// launch_app, or a launcher icon tap (replayed as a launch).
func (g *gen) launchTarget(i int) string {
	st := g.steps[i]
	if st.Action.Type == "launch_app" {
		return st.Action.Str("packageName")
	}
	return g.plan.IconLaunch[i]
}

// anchor is the element that shows the start screen of pkg: the target of
// the kept step at position k when it acts in pkg (a scrollable list when
// that step scrolls); nil (Lua) when unknown.
func (g *gen) anchor(k int, pkg string) string {
	for ; k < len(g.plan.Kept); k++ {
		st := g.steps[g.plan.Kept[k]]
		if st.Action.Type != "wait" {
			break
		}
	}
	if k >= len(g.plan.Kept) || g.o.CoordinatesOnly {
		return "nil"
	}
	i := g.plan.Kept[k]
	st := g.steps[i]
	if st.AppBefore != "" && st.AppBefore != pkg {
		return "nil"
	}
	switch st.Action.Type {
	case "tap", "tap_element":
		if s, ok := engine.PrimarySelector(st.Target); ok && identifiable(st.Target) {
			return luaSel(s)
		}
	case "type":
		if s, _ := g.fieldFor(st, i); s.Focused == nil {
			s.Index = nil
			return luaSel(s)
		}
	case "swipe":
		return "{scrollable = true}"
	}
	return "nil"
}

func stepNumber(st engine.TraceStep, i int) int {
	if st.Step > 0 {
		return st.Step
	}
	return i + 1
}

func isTap(st engine.TraceStep) bool {
	return st.Action.Type == "tap" || st.Action.Type == "tap_element"
}

// open starts a step block: comment, step(…) header and the app check.
func (g *gen) open(id int, st engine.TraceStep, label string) {
	g.nSteps++
	fmt.Fprintf(&g.body, "-- Step %d: %s", id, label)
	if st.AppBefore != "" {
		fmt.Fprintf(&g.body, " (in %s)", st.AppBefore)
	}
	g.body.WriteByte('\n')
	if th := oneLine(st.Thought, 160); th != "" {
		fmt.Fprintf(&g.body, "-- intent: %s\n", th)
	}
	if res := firstLine(st.Result); res != "" {
		fmt.Fprintf(&g.body, "-- recorded: %s\n", oneLine(res, 160))
	}
	fmt.Fprintf(&g.body, "step({id = %d, label = %s}, function()\n", id, luasrc.Quote(label))
	if app := st.AppBefore; app != "" && !DialogPackage(app) && st.Action.Type != "launch_app" && st.Action.Type != "finish" {
		fmt.Fprintf(&g.body, "  enter(%s)\n", luasrc.Quote(app))
	}
}

func (g *gen) close() { g.body.WriteString("end)\n\n") }

// start writes the block that brings the start app up before the first
// step acting in it.
func (g *gen) start(id int, pkg, anchor string) {
	g.nSteps++
	if launcherPackage(pkg) {
		fmt.Fprintf(&g.body, "-- Start: the home screen (the task starts there).\nstep({id = %d, label = \"Go to the home screen\"}, function()\n  go_home()\nend)\n\n", id)
		return
	}
	label := "Bring up " + pkg
	fmt.Fprintf(&g.body, "-- Start: %s, the first app the task used, from whatever is in front.\n", pkg)
	fmt.Fprintf(&g.body, "step({id = %d, label = %s}, function()\n  return start_app(%s, %s)\nend)\n\n", id, luasrc.Quote(label), luasrc.Quote(pkg), anchor)
}

// appAfter is the app a kept step leaves in front: its recorded AppAfter,
// except that a system dialog that popped up is looked through (it is
// answered by a handler, or not there at all) to the app the next kept step
// starts in.
func (g *gen) appAfter(i int) string {
	st := g.steps[i]
	if !DialogPackage(st.AppAfter) {
		return st.AppAfter
	}
	for _, k := range g.plan.Kept {
		if k > i && g.steps[k].AppBefore != "" && !DialogPackage(g.steps[k].AppBefore) {
			return g.steps[k].AppBefore
		}
	}
	return st.AppBefore
}

// needsSig reports whether the effect check compares the screen before and
// after (same app, and the recorded action changed the screen).
func (g *gen) needsSig(i int) bool {
	after := g.appAfter(i)
	return g.steps[i].Changed && (after == "" || after == g.steps[i].AppBefore)
}

func (g *gen) before(i int) {
	if g.needsSig(i) {
		g.body.WriteString("  local before = signature()\n")
	}
}

// after writes the effect check.
func (g *gen) after(i int, what string) {
	st := g.steps[i]
	switch after := g.appAfter(i); {
	case after != "" && after != st.AppBefore:
		fmt.Fprintf(&g.body, "  wait_app(%s, %s)\n", luasrc.Quote(after), luasrc.Quote("app "+after+" in front after "+what))
	case g.needsSig(i):
		app := "nil"
		if st.AppBefore != "" {
			app = luasrc.Quote(st.AppBefore)
		}
		fmt.Fprintf(&g.body, "  wait_changed(before, %s, %s)\n", luasrc.Quote("the screen to change after "+what+" (it did in the recorded run)"), app)
	}
}

func (g *gen) render() string {
	var b strings.Builder
	o := g.o
	name := o.Name
	if name == "" {
		name = "SKILL"
	}
	fmt.Fprintf(&b, "-- OpenPocket replay: %s\n", oneLine(o.Task, 200))
	if o.SessionPath != "" {
		fmt.Fprintf(&b, "-- Learned from session %s", o.SessionPath)
		if o.Fingerprint != "" {
			fmt.Fprintf(&b, " (behavior_fingerprint %s)", o.Fingerprint)
		}
		b.WriteString(".\n")
	} else if o.Fingerprint != "" {
		fmt.Fprintf(&b, "-- behavior_fingerprint: %s\n", o.Fingerprint)
	}
	if o.ScreenWidth > 0 {
		fmt.Fprintf(&b, "-- Recorded on a %dx%d screen; recorded points are scaled to the current one.\n", o.ScreenWidth, o.ScreenHeight)
	}
	run := "openpocket skills run " + name
	for _, p := range g.params {
		v := p.Default
		if p.Required || v == "" {
			v = "VALUE"
		}
		run += " -e " + p.Name + "=" + shellArg(v)
	}
	fmt.Fprintf(&b, "--\n-- Run: %s\n", run)
	if len(g.params) > 0 {
		b.WriteString("-- Parameters (-e NAME=VALUE):\n")
		for _, p := range g.params {
			if p.Required {
				fmt.Fprintf(&b, "--   %s (required): %s\n", p.Name, p.About)
			} else {
				fmt.Fprintf(&b, "--   %s: %s (default %s)\n", p.Name, p.About, strconv.Quote(p.Default))
			}
		}
	}
	b.WriteString("--   timeout_ms: how long each step may look for its element or effect (default " + strconv.Itoa(o.StepTimeoutMs) + ")\n")
	if o.CoordinatesOnly {
		b.WriteString("--\n-- COORDINATE-ONLY replay: taps go to the recorded points, like upstream's\n-- replay; it breaks when the layout moves. Checks still run.\n")
	} else {
		b.WriteString("--\n-- The replay starts from anywhere: it brings up the first app the task used\n-- (from the home screen, another app, a dialog, the keyboard, a deeper screen\n-- of that app). System dialogs the run answered are HANDLERS, answered\n-- whenever they show up; a dialog the run never saw stops the replay naming\n-- it. Steps the task did not need (detours, attempts without effect) are\n-- comments below, not steps.\n")
		b.WriteString("--\n-- Each step finds its element again by the recorded selector (resource-id,\n-- text, content-desc, with class and index) and taps where it is now; the\n-- recorded point is only a last resort. Each step checks the app it starts in\n-- and the effect it should have; a failed check stops the replay naming the\n-- step, what was expected and what the screen showed.\n")
	}
	b.WriteString("\n")
	b.WriteString(strings.Replace(prelude, "DEFAULT_TIMEOUT_MS", strconv.Itoa(o.StepTimeoutMs), 1))
	if o.ScreenWidth > 0 && o.ScreenHeight > 0 {
		fmt.Fprintf(&b, "REC_W, REC_H = %d, %d\n", o.ScreenWidth, o.ScreenHeight)
	}
	b.WriteString(g.handlersTable())
	var req []string
	for _, p := range g.params {
		if p.Required {
			req = append(req, fmt.Sprintf("need(%q, %s)", p.Name, luasrc.Quote(p.About)))
		}
	}
	if len(req) > 0 {
		b.WriteString(strings.Join(req, "\n") + "\n")
	}
	b.WriteString("\n-- Steps ----------------------------------------------------------------\n\n")
	b.WriteString(g.body.String())
	return b.String()
}

// handlersTable declares the recorded dialog answers the replay gives
// whenever such a dialog shows up (the prelude reads HANDLERS).
func (g *gen) handlersTable() string {
	if len(g.plan.Handlers) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n-- System dialogs answered in the recorded run: answered again whenever they\n-- show up (the same dialog, with the same message), never required.\nHANDLERS = {\n")
	for _, h := range g.plan.Handlers {
		if !h.Replayed() {
			fmt.Fprintf(&b, "  -- step %d answered a permission prompt (%s) without a recorded message: not repeated\n", h.Step, h.Label)
			continue
		}
		fmt.Fprintf(&b, "  {step = %d, kind = %s, pkg = %s", h.Step, luasrc.Quote(h.Kind), luasrc.Quote(h.Package))
		if h.Message != "" {
			fmt.Fprintf(&b, ", message = %s", luasrc.Quote(h.Message))
		}
		if h.Back {
			b.WriteString(", back = true")
		} else {
			fmt.Fprintf(&b, ", answer = %s", luaSel(h.Answer))
		}
		fmt.Fprintf(&b, ", label = %s},\n", luasrc.Quote(h.Label))
	}
	b.WriteString("}\n")
	return b.String()
}
