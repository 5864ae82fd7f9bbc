package skills

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/screen"
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
// parameters. Steps that are not device actions (scripts, coding and
// memory tools) are left out with a comment.
func GenerateReplay(steps []engine.TraceStep, o ReplayOptions) (string, []Param) {
	g := &gen{o: o, steps: steps}
	if g.o.StepTimeoutMs <= 0 {
		g.o.StepTimeoutMs = DefaultStepTimeoutMs
	}
	g.run()
	return g.render(), g.params
}

type gen struct {
	o      ReplayOptions
	steps  []engine.TraceStep
	params []Param
	body   strings.Builder
	first  bool // the next emitted step is the first one
	human  string
	nSteps int
}

func (g *gen) run() {
	g.first = true
	for i := 0; i < len(g.steps); i++ {
		st := g.steps[i]
		id := stepNumber(st, i)
		switch st.Action.Type {
		case "tap", "tap_element":
			g.tap(id, st)
		case "type":
			g.typeText(id, st, i)
		case "swipe", "drag", "long_press_drag":
			j := i
			for j+1 < len(g.steps) && g.steps[j+1].Action.Type == st.Action.Type && st.Action.Type == "swipe" {
				j++
			}
			if !g.o.CoordinatesOnly && st.Action.Type == "swipe" && j+1 < len(g.steps) && isTap(g.steps[j+1]) {
				if identifiable(g.steps[j+1].Target) {
					g.scroll(id, g.steps[i:j+1], g.steps[j+1])
					i = j
					continue
				}
			}
			g.gesture(id, st)
		case "keyevent":
			g.key(id, st)
		case "launch_app":
			g.launch(id, st)
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
}

// dialogPackage reports system dialog packages (runtime permission
// prompts) that may or may not show up on a replay.
func dialogPackage(pkg string) bool {
	switch pkg {
	case "com.android.permissioncontroller", "com.google.android.permissioncontroller",
		"com.android.packageinstaller", "com.google.android.packageinstaller":
		return true
	}
	return false
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
	if dialogPackage(st.AppBefore) {
		fmt.Fprintf(&g.body, "  -- a system dialog was answered here; answer it again only if it shows up\n")
		fmt.Fprintf(&g.body, "  if not dialog_shown(%s) then return \"skipped\" end\n", luasrc.Quote(st.AppBefore))
	} else if st.AppBefore != "" && st.Action.Type != "launch_app" {
		if g.first {
			fmt.Fprintf(&g.body, "  expect_app(%s, true)\n", luasrc.Quote(st.AppBefore))
		} else {
			fmt.Fprintf(&g.body, "  expect_app(%s)\n", luasrc.Quote(st.AppBefore))
		}
	}
	g.first = false
}

func (g *gen) close() { g.body.WriteString("end)\n\n") }

// needsSig reports whether the effect check compares the screen before and
// after (same app, and the recorded action changed the screen).
func needsSig(st engine.TraceStep) bool {
	return st.Changed && (st.AppAfter == "" || st.AppAfter == st.AppBefore)
}

func (g *gen) before(st engine.TraceStep) {
	if needsSig(st) {
		g.body.WriteString("  local before = signature()\n")
	}
}

// after writes the effect check.
func (g *gen) after(st engine.TraceStep, what string) {
	switch {
	case st.AppAfter != "" && st.AppAfter != st.AppBefore:
		fmt.Fprintf(&g.body, "  wait_app(%s, %s)\n", luasrc.Quote(st.AppAfter), luasrc.Quote("app "+st.AppAfter+" in front after "+what))
	case needsSig(st):
		app := "nil"
		if st.AppBefore != "" {
			app = luasrc.Quote(st.AppBefore)
		}
		fmt.Fprintf(&g.body, "  wait_changed(before, %s, %s)\n", luasrc.Quote("the screen to change after "+what+" (it did in the recorded run)"), app)
	}
}

func (g *gen) targetTable(st engine.TraceStep) string {
	var b strings.Builder
	b.WriteString("{\n")
	if cands := Candidates(st.Target); len(cands) > 0 {
		b.WriteString("    cands = {\n")
		for _, c := range cands {
			fmt.Fprintf(&b, "      {sel = %s, why = %s},\n", luaSel(c.Sel), luasrc.Quote(c.Why))
		}
		b.WriteString("    },\n")
		prim, _ := engine.PrimarySelector(st.Target)
		fmt.Fprintf(&b, "    target = %s,\n", luasrc.Quote(targetDesc(st.Target, prim)))
	} else {
		b.WriteString("    target = \"the recorded point\",\n")
	}
	if x, y, ok := devicePoint(st); ok {
		fmt.Fprintf(&b, "    point = {%d, %d},\n", x, y)
	}
	b.WriteString("  }")
	return b.String()
}

func targetDesc(t *engine.Target, prim screen.Selector) string {
	if t.Index > 0 {
		prim.Index = screen.Int(t.Index)
	}
	return prim.String()
}

// devicePoint is the recorded tap point in device pixels.
func devicePoint(st engine.TraceStep) (int, int, bool) {
	d := st.DeviceAction
	if d.Type == "tap" && d.Has("x") && d.Has("y") {
		return int(d.Float("x")), int(d.Float("y")), true
	}
	if st.Target != nil && !st.Target.Bounds.Empty() {
		c := st.Target.Bounds.Center()
		return c.X, c.Y, true
	}
	return 0, 0, false
}

func (g *gen) tap(id int, st engine.TraceStep) {
	label := Summary(st)
	_, hasSel := engine.PrimarySelector(st.Target)
	_, _, hasPoint := devicePoint(st)
	if !hasSel && !hasPoint {
		fmt.Fprintf(&g.body, "-- Step %d: %s is not replayed (no element and no point recorded).\n\n", id, label)
		return
	}
	g.open(id, st, label)
	g.before(st)
	switch {
	case g.o.CoordinatesOnly || !hasSel:
		fmt.Fprintf(&g.body, "  tap_point(%s)\n", g.targetTable(st))
	default:
		fmt.Fprintf(&g.body, "  tap_target(%s)\n", g.targetTable(st))
	}
	g.after(st, "the tap")
	g.close()
}

// fieldFor is the selector of the field a type step types into: its own
// target, else the field the previous step tapped, else the focused field.
func (g *gen) fieldFor(st engine.TraceStep, i int) (screen.Selector, string) {
	t := st.Target
	if t == nil && i > 0 && isTap(g.steps[i-1]) && g.steps[i-1].Target != nil && engine.EditableClass(g.steps[i-1].Target.ClassName) {
		t = g.steps[i-1].Target
	}
	if t != nil && engine.EditableClass(t.ClassName) {
		if s, ok := engine.PrimarySelector(t); ok {
			if t.Index > 0 {
				s.Index = screen.Int(t.Index)
			}
			return s, s.String()
		}
	}
	return screen.Selector{Focused: screen.Bool(true)}, "the focused field"
}

func (g *gen) typeText(id int, st engine.TraceStep, i int) {
	text := st.Action.Str("text")
	p := Param{Name: fmt.Sprintf("text_%d", len(g.params)+1), Default: text, Step: id}
	sel, field := g.fieldFor(st, i)
	p.About = "typed into " + field + " at step " + strconv.Itoa(id)
	if g.human != "" {
		p.Required, p.Default = true, ""
		p.About = "the human's " + g.human + " answer, " + p.About
		g.human = ""
	}
	g.params = append(g.params, p)
	label := "Type " + p.Name + " into " + field
	g.open(id, st, label)
	if p.Required {
		fmt.Fprintf(&g.body, "  local text = params.%s\n", p.Name)
	} else {
		fmt.Fprintf(&g.body, "  local text = params.%s or %s\n", p.Name, luasrc.Quote(p.Default))
	}
	what := fmt.Sprintf("%s to read back after typing it into %s", p.Name, field)
	if g.o.CoordinatesOnly {
		fmt.Fprintf(&g.body, "  type_into(nil, text, %s)\n", luasrc.Quote(what))
	} else {
		fmt.Fprintf(&g.body, "  type_into(%s, text, %s)\n", luaSel(sel), luasrc.Quote(what))
	}
	g.close()
}

// scroll replaces a run of swipes before a tap by scrolling until the tap's
// target is visible (in the recorded direction).
func (g *gen) scroll(id int, swipes []engine.TraceStep, next engine.TraceStep) {
	st := swipes[0]
	sel, _ := engine.PrimarySelector(next.Target)
	dir := swipeDirection(st.DeviceAction)
	label := fmt.Sprintf("Scroll %s until %s is visible", dir, sel.String())
	g.open(id, st, label)
	fmt.Fprintf(&g.body, "  -- replaces %d recorded swipe(s): the list may be longer or shorter now\n", len(swipes))
	fmt.Fprintf(&g.body, "  scroll_to(%s, %s, %d)\n", luaSel(sel), luasrc.Quote(dir), max(10, 3*len(swipes)))
	g.close()
}

// swipeDirection is the scroll direction of a swipe: a finger moving up
// scrolls the content down.
func swipeDirection(a action.Action) string {
	dx, dy := a.Float("x2")-a.Float("x1"), a.Float("y2")-a.Float("y1")
	if abs(dx) > abs(dy) {
		if dx < 0 {
			return "right"
		}
		return "left"
	}
	if dy < 0 {
		return "down"
	}
	return "up"
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

func (g *gen) gesture(id int, st engine.TraceStep) {
	d := st.DeviceAction
	g.open(id, st, Summary(st))
	g.before(st)
	fmt.Fprintf(&g.body, "  local x1, y1 = scale(%d, %d)\n  local x2, y2 = scale(%d, %d)\n",
		int(d.Float("x1")), int(d.Float("y1")), int(d.Float("x2")), int(d.Float("y2")))
	fn := map[string]string{"swipe": "swipe", "drag": "drag", "long_press_drag": "long_press_drag"}[st.Action.Type]
	opts := fmt.Sprintf("{duration_ms = %d}", max(d.Int("durationMs"), 100))
	if st.Action.Type == "long_press_drag" {
		opts = fmt.Sprintf("{hold_ms = %d, duration_ms = %d}", max(d.Int("holdMs"), 120), max(d.Int("durationMs"), 100))
	}
	fmt.Fprintf(&g.body, "  local ok, err = device.%s(x1, y1, x2, y2, %s)\n", fn, opts)
	fmt.Fprintf(&g.body, "  if not ok then fail(\"the %s to run (\" .. tostring(err) .. \")\") end\n", fn)
	g.after(st, "the "+fn)
	g.close()
}

func (g *gen) key(id int, st engine.TraceStep) {
	code := st.Action.Str("keycode")
	g.open(id, st, Summary(st))
	g.before(st)
	fmt.Fprintf(&g.body, "  local ok, err = device.keyevent(%s)\n", luasrc.Quote(code))
	fmt.Fprintf(&g.body, "  if not ok then fail(%s .. \" (\" .. tostring(err) .. \")\") end\n", luasrc.Quote("key "+code+" to be sent"))
	g.after(st, "key "+code)
	g.close()
}

func (g *gen) launch(id int, st engine.TraceStep) {
	pkg := st.Action.Str("packageName")
	want := st.AppAfter
	if want == "" {
		want = pkg
	}
	g.open(id, st, Summary(st))
	fmt.Fprintf(&g.body, "  local ok, err = app.launch(%s)\n", luasrc.Quote(pkg))
	fmt.Fprintf(&g.body, "  if not ok then fail(%s .. \" (\" .. tostring(err) .. \")\") end\n", luasrc.Quote("to launch "+pkg))
	fmt.Fprintf(&g.body, "  wait_app(%s)\n", luasrc.Quote(want))
	g.close()
}

func (g *gen) shell(id int, st engine.TraceStep) {
	g.open(id, st, Summary(st))
	fmt.Fprintf(&g.body, "  local out, code = device.shell(%s)\n", luasrc.Quote(st.Action.Str("command")))
	fmt.Fprintf(&g.body, "  if out == nil then fail(\"the shell command to run (\" .. tostring(code) .. \")\") end\n")
	g.close()
}

func (g *gen) wait(id int, st engine.TraceStep) {
	ms := min(max(st.Action.Int("durationMs"), 100), 10000)
	g.open(id, st, Summary(st))
	fmt.Fprintf(&g.body, "  wait.ms(%d)\n", ms)
	g.close()
}

func (g *gen) finish(id int, st engine.TraceStep) {
	g.open(id, st, Summary(st))
	fmt.Fprintf(&g.body, "  log.info(%s)\n", luasrc.Quote("replay finished: "+oneLine(st.Action.Str("message"), 200)))
	g.close()
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
		b.WriteString("--\n-- Each step finds its element again by the recorded selector (resource-id,\n-- text, content-desc, with class and index) and taps where it is now; the\n-- recorded point is only a last resort. Each step checks the app it starts in\n-- and the effect it should have; a failed check stops the replay naming the\n-- step, what was expected and what the screen showed.\n")
	}
	b.WriteString("\n")
	b.WriteString(strings.Replace(prelude, "DEFAULT_TIMEOUT_MS", strconv.Itoa(o.StepTimeoutMs), 1))
	if o.ScreenWidth > 0 && o.ScreenHeight > 0 {
		fmt.Fprintf(&b, "REC_W, REC_H = %d, %d\n", o.ScreenWidth, o.ScreenHeight)
	}
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

// Summary is a one-line description of a step's action ("Tap \"Wi-Fi\"",
// "Launch com.android.settings", "Type \"hello\"").
func Summary(st engine.TraceStep) string {
	a := st.Action
	switch a.Type {
	case "tap", "tap_element":
		if l := targetLabel(st.Target); l != "" {
			return "Tap " + l
		}
		if x, y, ok := devicePoint(st); ok {
			return fmt.Sprintf("Tap at (%d, %d)", x, y)
		}
		return "Tap"
	case "type":
		return "Type " + strconv.Quote(oneLine(a.Str("text"), 60))
	case "swipe", "drag", "long_press_drag":
		d := st.DeviceAction
		return fmt.Sprintf("%s from (%d, %d) to (%d, %d)", strings.ToUpper(a.Type[:1])+strings.ReplaceAll(a.Type[1:], "_", " "),
			int(d.Float("x1")), int(d.Float("y1")), int(d.Float("x2")), int(d.Float("y2")))
	case "keyevent":
		return "Press " + strings.TrimPrefix(a.Str("keycode"), "KEYCODE_")
	case "launch_app":
		return "Launch " + a.Str("packageName")
	case "shell":
		return "Shell: " + oneLine(a.Str("command"), 60)
	case "wait":
		return fmt.Sprintf("Wait %d ms", a.Int("durationMs"))
	case "finish":
		return "Finish: " + oneLine(a.Str("message"), 80)
	case "request_human_auth":
		return "Ask the human (" + a.Str("capability") + ")"
	}
	return a.Type
}

func targetLabel(t *engine.Target) string {
	if t == nil {
		return ""
	}
	kind := engine.SimpleClass(t.ClassName)
	switch {
	case strings.TrimSpace(t.Text) != "" && !engine.EditableClass(t.ClassName):
		return strconv.Quote(oneLine(t.Text, 60)) + " " + kind
	case strings.TrimSpace(t.ContentDesc) != "":
		return strconv.Quote(oneLine(t.ContentDesc, 60)) + " " + kind
	case t.ResourceID != "":
		id := t.ResourceID
		if i := strings.Index(id, ":id/"); i >= 0 {
			id = id[i+4:]
		}
		return id + " " + kind
	}
	return ""
}

// luaSel renders a selector (fields used by replay) as a Lua table.
func luaSel(s screen.Selector) string {
	var f []string
	add := func(k, v string) {
		if v != "" {
			f = append(f, k+" = "+luasrc.Quote(v))
		}
	}
	add("id", s.ID)
	add("text", s.Text)
	add("desc", s.Desc)
	add("class", s.Class)
	if s.Focused != nil {
		f = append(f, "focused = "+strconv.FormatBool(*s.Focused))
	}
	if s.Index != nil {
		f = append(f, "index = "+strconv.Itoa(*s.Index))
	}
	return "{" + strings.Join(f, ", ") + "}"
}

func shellArg(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.,:/@+=", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
