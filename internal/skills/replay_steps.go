package skills

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/lua/luasrc"
)

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
		if st.Target.Near != "" {
			fmt.Fprintf(&b, "    near = %s,\n", luasrc.Quote(st.Target.Near))
		}
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
	if t.Index > 0 && t.Near == "" {
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

func (g *gen) tap(id int, i int) {
	st := g.steps[i]
	label := Summary(st)
	_, hasSel := engine.PrimarySelector(st.Target)
	_, _, hasPoint := devicePoint(st)
	if !hasSel && !hasPoint {
		fmt.Fprintf(&g.body, "-- Step %d: %s is not replayed (no element and no point recorded).\n\n", id, label)
		return
	}
	g.open(id, st, label)
	if field, ok := g.focusCheck(i); ok {
		// Tapping a text field focuses it, which may not change the
		// screen (it may be focused already): check the focus instead.
		fn := "tap_target"
		if g.o.CoordinatesOnly || !hasSel {
			fn = "tap_point"
		}
		fmt.Fprintf(&g.body, "  %s(%s)\n", fn, g.targetTable(st))
		fmt.Fprintf(&g.body, "  wait_focused(%s)\n", field)
		g.close()
		return
	}
	g.before(i)
	switch {
	case g.o.CoordinatesOnly || !hasSel:
		fmt.Fprintf(&g.body, "  tap_point(%s)\n", g.targetTable(st))
	default:
		fmt.Fprintf(&g.body, "  tap_target(%s)\n", g.targetTable(st))
	}
	g.after(i, "the tap")
	g.close()
}

// focusCheck is the selector of the focused field a tap on a text field
// should leave (the tap stays in the app); ok is false for other taps.
func (g *gen) focusCheck(i int) (string, bool) {
	st := g.steps[i]
	if st.Target == nil || !engine.EditableClass(st.Target.ClassName) || g.appAfter(i) != st.AppBefore && g.appAfter(i) != "" {
		return "", false
	}
	s, ok := engine.PrimarySelector(st.Target)
	if !ok {
		return "", false
	}
	s.Focused = screen.Bool(true)
	return luaSel(s), true
}

// fieldFor is the selector of the field a type step types into: its own
// target, else the field the previous step tapped, else the focused field.
func (g *gen) fieldFor(st engine.TraceStep, i int) (screen.Selector, string) {
	t := st.Target
	if p := g.prevKept(i); t == nil && p >= 0 && isTap(g.steps[p]) && g.steps[p].Target != nil && engine.EditableClass(g.steps[p].Target.ClassName) {
		t = g.steps[p].Target
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
	if g.plan.Secret[i] {
		p.Required, p.Default = true, ""
		p.About = "a secret (password field; never written into the skill), " + p.About
	}
	g.params = append(g.params, p)
	label := "Type " + p.Name + " into " + field
	if g.plan.Secret[i] {
		st.Thought, st.Result = "", "" // the model's words may repeat the secret
	}
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

// prevKept is the kept step before trace index i (-1 when none).
func (g *gen) prevKept(i int) int {
	p := -1
	for _, k := range g.plan.Kept {
		if k >= i {
			break
		}
		p = k
	}
	return p
}

func (g *gen) gesture(id int, i int) {
	st := g.steps[i]
	d := st.DeviceAction
	g.open(id, st, Summary(st))
	g.before(i)
	fmt.Fprintf(&g.body, "  local x1, y1 = scale(%d, %d)\n  local x2, y2 = scale(%d, %d)\n",
		int(d.Float("x1")), int(d.Float("y1")), int(d.Float("x2")), int(d.Float("y2")))
	fn := map[string]string{"swipe": "swipe", "drag": "drag", "long_press_drag": "long_press_drag"}[st.Action.Type]
	opts := fmt.Sprintf("{duration_ms = %d}", max(d.Int("durationMs"), 100))
	if st.Action.Type == "long_press_drag" {
		opts = fmt.Sprintf("{hold_ms = %d, duration_ms = %d}", max(d.Int("holdMs"), 120), max(d.Int("durationMs"), 100))
	}
	fmt.Fprintf(&g.body, "  local ok, err = device.%s(x1, y1, x2, y2, %s)\n", fn, opts)
	fmt.Fprintf(&g.body, "  if not ok then fail(\"the %s to run (\" .. tostring(err) .. \")\") end\n", fn)
	g.after(i, "the "+fn)
	g.close()
}

func (g *gen) key(id int, i int) {
	st := g.steps[i]
	code := st.Action.Str("keycode")
	g.open(id, st, Summary(st))
	g.before(i)
	fmt.Fprintf(&g.body, "  local ok, err = device.keyevent(%s)\n", luasrc.Quote(code))
	fmt.Fprintf(&g.body, "  if not ok then fail(%s .. \" (\" .. tostring(err) .. \")\") end\n", luasrc.Quote("key "+code+" to be sent"))
	g.after(i, "key "+code)
	g.close()
}

// launch writes a launch: it always brings pkg up (from any state) and
// skips only when pkg is already in front on the screen the next step
// needs (anchor). A launcher icon tap is replayed this way too.
func (g *gen) launch(id int, st engine.TraceStep, pkg, anchor string) {
	label := "Launch " + pkg
	if st.Action.Type != "launch_app" {
		label = Summary(st) + ": launch " + pkg
	}
	g.nSteps++
	fmt.Fprintf(&g.body, "-- Step %d: %s", id, label)
	if st.AppBefore != "" {
		fmt.Fprintf(&g.body, " (recorded in %s; replayed from whatever is in front)", st.AppBefore)
	}
	g.body.WriteByte('\n')
	if th := oneLine(st.Thought, 160); th != "" {
		fmt.Fprintf(&g.body, "-- intent: %s\n", th)
	}
	fmt.Fprintf(&g.body, "step({id = %d, label = %s}, function()\n", id, luasrc.Quote(label))
	if g.o.CoordinatesOnly {
		fmt.Fprintf(&g.body, "  local ok, err = app.launch(%s)\n", luasrc.Quote(pkg))
		fmt.Fprintf(&g.body, "  if not ok then fail(%s .. \" (\" .. tostring(err) .. \")\") end\n", luasrc.Quote("to launch "+pkg))
		fmt.Fprintf(&g.body, "  wait_app(%s)\n", luasrc.Quote(pkg))
	} else {
		fmt.Fprintf(&g.body, "  return start_app(%s, %s)\n", luasrc.Quote(pkg), anchor)
	}
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

// summaryOf is [Summary] with a secret's text left out.
func (p Plan) summaryOf(steps []engine.TraceStep, i int) string {
	if p.Secret[i] {
		return "Type a secret into the password field (not recorded)"
	}
	return Summary(steps[i])
}

// Summary is a one-line description of a step's action ("Tap \"Wi-Fi\"",
// "Launch com.android.settings", "Type \"hello\"").
func Summary(st engine.TraceStep) string {
	a := st.Action
	switch a.Type {
	case "tap", "tap_element":
		if l := targetLabel(st.Target); l != "" {
			if t := st.Target; t.Near != "" && strings.TrimSpace(t.Text) == "" && strings.TrimSpace(t.ContentDesc) == "" {
				l += " beside " + strconv.Quote(oneLine(t.Near, 60))
			}
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
