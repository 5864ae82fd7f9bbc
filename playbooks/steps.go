package playbooks

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/openpocket/openpocket/engine/action"
	"go.yaml.in/yaml/v3"
)

// stepDef describes one step kind: its keys, short form and parser.
type stepDef struct {
	Name   string
	Short  string   // key the scalar short form fills; "@sel" = a text selector; "" = none
	Bare   bool     // may be written without a value (`- back`)
	Sel    bool     // the mapping form accepts selector keys
	Keys   []string // kind-specific keys
	Action bool     // a device action of the action table
	Doc    string
	parse  func(p *parser, s *Step, f *fields)
}

var commonKeys = []string{"label", "optional", "timeout"}

var selectorStrKeys = []string{"text", "text_contains", "text_regex", "id", "desc", "desc_contains", "class", "package"}
var selectorBoolKeys = []string{"clickable", "enabled", "checked", "focused", "selected", "scrollable", "checkable"}
var selectorRelKeys = []string{"below", "above", "left_of", "right_of", "child_of", "contains"}

var selectorKeys = func() []string {
	out := append([]string{}, selectorStrKeys...)
	out = append(out, "index")
	out = append(out, selectorBoolKeys...)
	return append(out, selectorRelKeys...)
}()

// stepDefs is the step catalogue: built-in steps plus every action of the
// action table under its spec name.
var stepDefs = map[string]*stepDef{}

// stepNames lists the catalogue in documentation order.
var stepNames []string

func init() {
	builtin := []*stepDef{
		{Name: "launch", Short: "app", Bare: true, Keys: []string{"app", "clear_state", "stop"}, parse: parseAppStep,
			Doc: "Start an app (default: the header's app), optionally stopping it and clearing its data first."},
		{Name: "stop", Short: "app", Bare: true, Keys: []string{"app"}, parse: parseAppStep, Doc: "Force-stop an app."},
		{Name: "clear_state", Short: "app", Bare: true, Keys: []string{"app"}, parse: parseAppStep, Doc: "Clear an app's data (pm clear)."},
		{Name: "tap", Short: "@sel", Sel: true, Keys: []string{"point", "x", "y", "reason"}, parse: parseTap, Doc: "Tap an element (or a point; x/y is the tap action)."},
		{Name: "double_tap", Short: "@sel", Sel: true, Keys: []string{"point"}, parse: parseTap, Doc: "Double-tap an element or point."},
		{Name: "long_press", Short: "@sel", Sel: true, Keys: []string{"point", "duration"}, parse: parseTap, Doc: "Long-press an element or point."},
		{Name: "input", Short: "text", Keys: []string{"text", "into", "clear", "secret"}, parse: parseInput, Doc: "Type text, optionally into an element (tapped and cleared first)."},
		{Name: "erase", Short: "chars", Bare: true, Keys: []string{"chars"}, parse: parseErase, Doc: "Delete characters before the cursor of the focused field (default 50)."},
		{Name: "key", Short: "code", Keys: []string{"code"}, parse: parseKey, Doc: "Press a key (BACK, ENTER, KEYCODE_HOME, 66, ...)."},
		{Name: "back", Bare: true, parse: parseNothing, Doc: "Press BACK."},
		{Name: "home", Bare: true, parse: parseNothing, Doc: "Press HOME."},
		{Name: "swipe", Short: "direction", Keys: []string{"direction", "from", "to", "duration", "x1", "y1", "x2", "y2", "durationMs", "reason"}, parse: parseSwipe,
			Doc: "Swipe in a direction (the finger's movement), from a point or element, or between two points."},
		{Name: "scroll_until_visible", Short: "@sel", Sel: true, Keys: []string{"direction", "max_swipes"}, parse: parseScroll, Doc: "Scroll until an element is visible."},
		{Name: "wait_for", Short: "@sel", Sel: true, Keys: []string{"visible", "gone"}, parse: parseWaitFor, Doc: "Wait until an element is visible (or gone)."},
		{Name: "wait_idle", Bare: true, parse: parseNothing, Doc: "Wait until the screen stops changing."},
		{Name: "sleep", Short: "duration", Keys: []string{"duration"}, parse: parseSleep, Doc: "Wait a fixed time (prefer wait_for)."},
		{Name: "assert_visible", Short: "@sel", Sel: true, Keys: []string{"message"}, parse: parseAssertSel, Doc: "Fail unless an element becomes visible within the timeout."},
		{Name: "assert_not_visible", Short: "@sel", Sel: true, Keys: []string{"message"}, parse: parseAssertSel, Doc: "Fail unless an element is (or becomes) absent within the timeout."},
		{Name: "assert_text", Sel: true, Keys: []string{"expected", "contains", "regex", "message"}, parse: parseAssertText, Doc: "Fail unless an element's text equals, contains or matches a value."},
		{Name: "assert", Short: "expr", Keys: []string{"expr", "message"}, parse: parseAssert, Doc: "Fail unless a Lua expression is truthy."},
		{Name: "screenshot", Short: "name", Bare: true, Keys: []string{"name"}, parse: parseScreenshot, Doc: "Save a screenshot (name.png) to the run's artifacts."},
		{Name: "copy_text", Short: "@sel", Sel: true, Keys: []string{"as"}, parse: parseCopyText, Doc: "Read an element's text into a variable."},
		{Name: "set", parse: parseSet, Doc: "Set variables (values may interpolate ${expr}; a whole ${expr} keeps its Lua type)."},
		{Name: "if", Short: "expr", Keys: []string{"visible", "gone", "expr", "then", "elif", "else"}, parse: parseIf, Doc: "Run steps when a condition holds, with elif and else branches."},
		{Name: "repeat", Short: "times", Keys: []string{"times", "while", "until", "max", "steps"}, parse: parseRepeat, Doc: "Repeat steps a number of times, while or until a condition holds."},
		{Name: "for_each", Short: "in", Keys: []string{"in", "as", "steps"}, parse: parseForEach, Doc: "Run steps for each item of a list."},
		{Name: "retry", Short: "max", Keys: []string{"max", "steps"}, parse: parseRetry, Doc: "Run steps again (up to max attempts) until they pass."},
		{Name: "run", Short: "file", Keys: []string{"file", "params"}, parse: parseRun, Doc: "Run another playbook (path relative to this file) with parameters."},
		{Name: "shell", Short: "command", Keys: []string{"command", "expect_exit", "as", "reason"}, parse: parseShell, Doc: "Run an adb shell command; fail unless it exits with expect_exit (default 0)."},
		{Name: "lua", Short: "code", Keys: []string{"code"}, parse: parseLua, Doc: "Run inline Lua (params and variables are in scope)."},
	}
	for _, d := range builtin {
		stepDefs[d.Name] = d
		stepNames = append(stepNames, d.Name)
	}
	for _, spec := range action.Specs() {
		if _, ok := stepDefs[spec.Name]; ok {
			continue // tap, swipe and shell cover their actions
		}
		d := &stepDef{Name: spec.Name, Action: true, Doc: spec.Doc, parse: parseAction}
		for _, prm := range spec.Params {
			d.Keys = append(d.Keys, prm.Name)
		}
		if len(spec.Params) > 0 && spec.Params[0].Kind != action.KindObject {
			d.Short = spec.Params[0].Name
		}
		d.Bare = true
		for _, prm := range spec.Params {
			if prm.Required {
				d.Bare = false
			}
		}
		stepDefs[d.Name] = d
		stepNames = append(stepNames, d.Name)
	}
}

// StepKinds returns the names of every step kind, built-ins first, then the
// device actions of the action table.
func StepKinds() []string { return append([]string(nil), stepNames...) }

// fields is a step's keys: the kind's mapping value merged with the keys
// beside it.
type fields struct {
	p     *parser
	s     *Step
	def   *stepDef
	order []string
	val   map[string]*yaml.Node
	key   map[string]*yaml.Node
	depth int
	errs0 int // errors before this step
}

func (f *fields) has(k string) bool { _, ok := f.val[k]; return ok }

func (f *fields) node(k string) *yaml.Node { return f.val[k] }

func (f *fields) path(k string) string { return f.s.Path + "." + k }

func (f *fields) str(k string) *Str {
	n := f.val[k]
	if n == nil {
		return nil
	}
	if n.Kind != yaml.ScalarNode || isNull(n) {
		f.p.errAt(n, f.s.Path, "%s must be a string, got %s", k, describeNode(n))
		return &Str{Parts: []StrPart{{}}, Pos: f.p.pos(n)}
	}
	return f.p.str(n, f.s.Path, false)
}

func (f *fields) boolean(k string) bool {
	n := f.val[k]
	if n == nil {
		return false
	}
	return f.p.boolean(n, f.path(k))
}

// intValue is an integer literal or a whole ${expr}.
func (f *fields) intValue(k string) *Value {
	n := f.val[k]
	if n == nil {
		return nil
	}
	v := f.p.value(n, f.path(k), false)
	if v.Kind == VInt {
		return v
	}
	if v.Kind == VString {
		if _, ok := v.Str.Whole(); ok {
			return v
		}
	}
	f.p.errAt(n, f.s.Path, "%s must be an integer or ${expr}, got %s", k, describeNode(n))
	return &Value{Kind: VInt, Pos: v.Pos}
}

func (f *fields) steps(k string) []*Step {
	n := f.val[k]
	if n == nil {
		return nil
	}
	return f.p.steps(n, f.path(k), f.depth+1)
}

// sel builds the step's selector from its selector keys (or the short form).
func (f *fields) sel() *Selector {
	var keys []string
	for _, k := range f.order {
		if contains(selectorKeys, k) && !contains(f.def.Keys, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	return f.p.selectorFields(f.val[keys[0]], f.s.Path, keys, f.val, f.key)
}

const maxDepth = 40

// steps parses a list of steps.
func (p *parser) steps(n *yaml.Node, path string, depth int) []*Step {
	if n == nil || isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		p.errAt(n, path, "expected a list of steps, got %s", describeNode(n))
		return nil
	}
	if depth > maxDepth {
		p.errAt(n, path, "steps nested deeper than %d levels", maxDepth)
		return nil
	}
	var out []*Step
	for i, c := range n.Content {
		if p.exhausted(c, path) {
			break
		}
		if p.stepCount++; p.stepCount > MaxSteps {
			p.errAt(c, fmt.Sprintf("%s[%d]", path, i), "playbook has more than %d steps; split it into playbooks called with run:", MaxSteps)
			break
		}
		if s := p.step(p.deref(c), fmt.Sprintf("%s[%d]", path, i), depth); s != nil {
			out = append(out, s)
		}
	}
	return out
}

func (p *parser) step(n *yaml.Node, path string, depth int) *Step {
	if n == nil {
		p.errAt(n, path, "invalid step")
		return nil
	}
	switch n.Kind {
	case yaml.ScalarNode:
		name := n.Value
		def, ok := stepDefs[name]
		if !ok {
			p.errAt(n, path, "unknown step %q%s", name, didYouMean(name, stepNames))
			return nil
		}
		s := &Step{Kind: name, Pos: p.pos(n), Path: path + "." + name, Args: map[string]*Value{}}
		if !def.Bare {
			p.errAt(n, s.Path, "%s needs a value, e.g. %s", name, exampleOf(def))
			return nil
		}
		f := &fields{p: p, s: s, def: def, val: map[string]*yaml.Node{}, key: map[string]*yaml.Node{}, depth: depth, errs0: len(p.errs)}
		def.parse(p, s, f)
		return s
	case yaml.MappingNode:
	default:
		p.errAt(n, path, "a step is a mapping like `- tap: Save` or a bare name like `- back`, got %s", describeNode(n))
		return nil
	}
	// Find the kind: the first key naming a step.
	var kindKey, kindVal *yaml.Node
	var def *stepDef
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := p.deref(n.Content[i])
		if k != nil && k.Kind == yaml.ScalarNode {
			if d, ok := stepDefs[k.Value]; ok {
				kindKey, kindVal, def = k, p.deref(n.Content[i+1]), d
				break
			}
		}
	}
	if def == nil {
		reported := false
		p.eachPair(n, path, func(k string, kn, _ *yaml.Node) {
			if reported || contains(commonKeys, k) {
				return
			}
			reported = true
			p.errAt(kn, path, "unknown key %q in step%s", k, didYouMean(k, append(append([]string{}, stepNames...), commonKeys...)))
		})
		if !reported {
			p.errAt(n, path, "step has no kind: add one of tap, input, assert_visible, ... (see docs/playbooks.md)")
		}
		return nil
	}
	s := &Step{Kind: def.Name, Pos: p.pos(kindKey), Path: path + "." + def.Name, Args: map[string]*Value{}}
	f := &fields{p: p, s: s, def: def, val: map[string]*yaml.Node{}, key: map[string]*yaml.Node{}, depth: depth, errs0: len(p.errs)}
	valid := append(append([]string{}, commonKeys...), def.Keys...)
	if def.Sel {
		valid = append(valid, selectorKeys...)
	}
	add := func(k string, kn, v *yaml.Node, where string) {
		if _, dup := f.val[k]; dup {
			p.errAt(kn, s.Path, "duplicate key %q", k)
			return
		}
		if !contains(valid, k) {
			hint := didYouMean(k, valid)
			if _, isStep := stepDefs[k]; isStep && hint == "" {
				hint = fmt.Sprintf("; %q is a step of its own: write it as a separate list item", k)
			}
			p.errAt(kn, s.Path, "unknown key %q in %s%s (valid keys: %s)", k, where, hint, strings.Join(sortedCopy(valid), ", "))
			return
		}
		f.order = append(f.order, k)
		f.val[k] = v
		f.key[k] = kn
	}
	// Keys beside the kind.
	p.eachPair(n, path, func(k string, kn, v *yaml.Node) {
		if kn == kindKey {
			return
		}
		add(k, kn, v, def.Name+" step")
	})
	if def.Name == "set" {
		s.Args["vars"] = p.setVars(kindVal, s.Path)
		s.summary = setSummary(s.Args["vars"])
		p.common(s, f)
		return s
	}
	switch {
	case isNull(kindVal):
		if !def.Bare && !hasNonCommon(f) {
			p.errAt(kindKey, s.Path, "%s needs a value, e.g. %s", def.Name, exampleOf(def))
			return nil
		}
	case kindVal.Kind == yaml.MappingNode:
		p.eachPair(kindVal, s.Path, func(k string, kn, v *yaml.Node) { add(k, kn, v, def.Name) })
	case kindVal.Kind == yaml.ScalarNode:
		switch def.Short {
		case "":
			p.errAt(kindVal, s.Path, "%s takes a mapping, e.g. %s", def.Name, exampleOf(def))
			return nil
		case "@sel":
			s.Sel = &Selector{Pos: p.pos(kindVal), Short: p.str(kindVal, s.Path, false)}
		default:
			if f.has(def.Short) {
				p.errAt(f.key[def.Short], s.Path, "%s is given twice (short form and key)", def.Short)
			}
			f.order = append([]string{def.Short}, f.order...)
			f.val[def.Short] = kindVal
			f.key[def.Short] = kindKey
		}
	default:
		p.errAt(kindVal, s.Path, "%s takes a value or a mapping, not %s; e.g. %s", def.Name, describeNode(kindVal), exampleOf(def))
		return nil
	}
	p.common(s, f)
	def.parse(p, s, f)
	return s
}

func hasNonCommon(f *fields) bool {
	for _, k := range f.order {
		if !contains(commonKeys, k) {
			return true
		}
	}
	return false
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// common reads label, optional and timeout.
func (p *parser) common(s *Step, f *fields) {
	if n := f.node("label"); n != nil {
		s.Label = p.scalarString(n, s.Path+".label")
	}
	if n := f.node("optional"); n != nil {
		s.Optional = p.boolean(n, s.Path+".optional")
	}
	if n := f.node("timeout"); n != nil {
		s.Timeout = p.duration(n, s.Path+".timeout")
	}
}

func exampleOf(d *stepDef) string {
	if ex, ok := examples[d.Name]; ok {
		return "`" + ex + "`"
	}
	if d.Action {
		spec, _ := action.Lookup(d.Name)
		var parts []string
		for _, prm := range spec.Params {
			if prm.Required {
				parts = append(parts, prm.Name+": …")
			}
		}
		return fmt.Sprintf("`%s: {%s}`", d.Name, strings.Join(parts, ", "))
	}
	return "`" + d.Name + ": …`"
}

var examples = map[string]string{
	"tap": "tap: Save", "double_tap": "double_tap: Save", "long_press": "long_press: {id: note_item}",
	"input": "input: hello", "key": "key: ENTER", "swipe": "swipe: up", "scroll_until_visible": "scroll_until_visible: Zoe Zimmerman",
	"wait_for": "wait_for: Welcome", "sleep": "sleep: 500ms", "assert_visible": "assert_visible: Saved",
	"assert_not_visible": "assert_not_visible: Error", "assert_text": "assert_text: {id: welcome, contains: Welcome}",
	"assert": "assert: count > 0", "copy_text": "copy_text: {id: welcome, as: greeting}", "set": "set: {count: 1}",
	"if": "if: {visible: Allow}", "repeat": "repeat: 3", "for_each": "for_each: notes", "retry": "retry: 3",
	"run": "run: flows/login.yaml", "shell": "shell: settings get global wifi_on", "lua": "lua: log.info('hi')",
}

func parseNothing(p *parser, s *Step, f *fields) {
	switch s.Kind {
	case "back":
		s.summary = "back"
	case "home":
		s.summary = "home"
	default:
		s.summary = s.Kind
	}
}

func parseAppStep(p *parser, s *Step, f *fields) {
	if a := f.str("app"); a != nil {
		s.Args["app"] = &Value{Kind: VString, Pos: a.Pos, Str: a}
	}
	if s.Kind == "launch" {
		for _, k := range []string{"clear_state", "stop"} {
			if f.has(k) {
				s.Args[k] = &Value{Kind: VBool, Bool: f.boolean(k), Pos: p.pos(f.node(k))}
			}
		}
	}
	s.summary = s.Kind
	if a := s.Args["app"]; a != nil {
		s.summary += " " + a.Str.Raw
	}
}

func parseTap(p *parser, s *Step, f *fields) {
	if s.Kind == "tap" && (f.has("x") || f.has("y")) {
		if s.Sel != nil || f.sel() != nil || f.has("point") {
			p.errAt(f.key["x"], s.Path, "tap takes either a selector, a point or x/y, not several")
		}
		spec, _ := action.Lookup("tap")
		p.actionParams(s, spec, f)
		return
	}
	if f.has("reason") {
		p.errAt(f.key["reason"], s.Path, "reason only goes with the x/y form of tap")
	}
	if pt := f.node("point"); pt != nil {
		if s.Sel != nil || f.sel() != nil {
			p.errAt(f.key["point"], s.Path, "%s takes either a selector or a point, not both", s.Kind)
		}
		s.Args["point"] = p.point(pt, s.Path+".point")
		s.summary = fmt.Sprintf("%s point %s", s.Kind, pt.Value)
	} else {
		if s.Sel == nil {
			s.Sel = f.sel()
		}
		if s.Sel == nil {
			p.need(s, f, "%s needs a selector or point, e.g. %s", s.Kind, exampleOf(f.def))
			return
		}
		s.summary = s.Kind + " " + s.Sel.String()
	}
	if f.has("duration") {
		d := p.duration(f.node("duration"), s.Path+".duration")
		s.Args["duration_ms"] = &Value{Kind: VInt, Int: d.Milliseconds()}
	}
}

// kindNode is a node for errors about the step as a whole.
func (p *parser) kindNode(s *Step, f *fields) *yaml.Node {
	return &yaml.Node{Line: s.Pos.Line, Column: s.Pos.Column}
}

// need reports something missing from a step, unless the step already has
// an error (a misspelt key usually explains the missing one).
func (p *parser) need(s *Step, f *fields, format string, args ...any) {
	if len(p.errs) > f.errs0 {
		return
	}
	p.errAt(p.kindNode(s, f), s.Path, format, args...)
}

// Point is a screen point: fractions of the screen (Pct) or pixels.
type Point struct {
	X, Y float64
	Pct  bool
}

var pointRe = regexp.MustCompile(`^\s*(-?[0-9.]+)\s*(%?)\s*,\s*(-?[0-9.]+)\s*(%?)\s*$`)

func (p *parser) point(n *yaml.Node, path string) *Value {
	bad := func() *Value {
		p.errAt(n, path, "point must be \"x%%,y%%\" (e.g. \"50%%,80%%\") or pixels \"x,y\" (e.g. \"540,1200\"), got %s", describeNode(n))
		return &Value{Kind: VList}
	}
	if n.Kind != yaml.ScalarNode {
		return bad()
	}
	m := pointRe.FindStringSubmatch(n.Value)
	if m == nil || (m[2] == "%") != (m[4] == "%") {
		return bad()
	}
	x, err1 := strconv.ParseFloat(m[1], 64)
	y, err2 := strconv.ParseFloat(m[3], 64)
	if err1 != nil || err2 != nil || x < 0 || y < 0 {
		return bad()
	}
	pct := m[2] == "%"
	if pct && (x > 100 || y > 100) {
		p.errAt(n, path, "percentages must be between 0%% and 100%%")
	}
	if !pct && (x != float64(int(x)) || y != float64(int(y))) {
		return bad()
	}
	return &Value{Kind: VList, Pos: p.pos(n), Bool: pct, List: []*Value{{Kind: VNumber, Num: x}, {Kind: VNumber, Num: y}}}
}

func parseInput(p *parser, s *Step, f *fields) {
	t := f.str("text")
	if t == nil {
		p.need(s, f, "input needs text, e.g. `input: hello` or `input: {text: hello, into: {id: note_input}}`")
		t = &Str{Parts: []StrPart{{}}}
	}
	s.Args["text"] = &Value{Kind: VString, Str: t, Pos: t.Pos}
	if n := f.node("into"); n != nil {
		s.Sel = p.selector(n, s.Path+".into", false)
	}
	clear := s.Sel != nil
	if f.has("clear") {
		clear = f.boolean("clear")
	}
	s.Args["clear"] = &Value{Kind: VBool, Bool: clear}
	secret := f.boolean("secret")
	s.Args["secret"] = &Value{Kind: VBool, Bool: secret}
	shown := strconv.Quote(t.Raw)
	if secret {
		shown = `"•••"`
	}
	s.summary = "input " + shown
	if s.Sel != nil {
		s.summary += " into " + s.Sel.String()
	}
}

func parseErase(p *parser, s *Step, f *fields) {
	v := f.intValue("chars")
	if v == nil {
		v = &Value{Kind: VInt, Int: 50}
	}
	s.Args["chars"] = v
	s.summary = "erase " + valueSummary(v)
}

func parseKey(p *parser, s *Step, f *fields) {
	n := f.node("code")
	if n == nil {
		p.need(s, f, "key needs a key code, e.g. `key: ENTER`")
		return
	}
	v := p.value(n, s.Path+".code", false)
	switch v.Kind {
	case VInt:
		if v.Int < 0 || v.Int > 1000 {
			p.errAt(n, s.Path, "invalid key code %d", v.Int)
		}
	case VString:
		if st, ok := v.Str.Static(); ok {
			a, err := action.New("keyevent", map[string]any{"keycode": st})
			if err != nil {
				p.errAt(n, s.Path, "invalid key code %q: expected KEYCODE_HOME, home, ENTER or a number", st)
			} else {
				kc := a.Str("keycode")
				v = &Value{Kind: VString, Pos: v.Pos, Str: &Str{Raw: kc, Parts: []StrPart{{Text: kc}}}}
			}
		}
	default:
		p.errAt(n, s.Path, "key code must be a name or number, got %s", describeNode(n))
	}
	s.Args["code"] = v
	s.summary = "key " + valueSummary(v)
}

var directions = []string{"up", "down", "left", "right"}

func parseSwipe(p *parser, s *Step, f *fields) {
	if f.has("x1") || f.has("y1") || f.has("x2") || f.has("y2") {
		for _, k := range []string{"direction", "from", "to", "duration"} {
			if f.has(k) {
				p.errAt(f.key[k], s.Path, "%s cannot be combined with x1/y1/x2/y2 (the swipe action)", k)
			}
		}
		spec, _ := action.Lookup("swipe")
		p.actionParams(s, spec, f)
		return
	}
	for _, k := range []string{"durationMs", "reason"} {
		if f.has(k) {
			p.errAt(f.key[k], s.Path, "%s only goes with the x1/y1/x2/y2 form of swipe (use duration)", k)
		}
	}
	if f.has("direction") {
		d := f.str("direction")
		ds, _ := d.Static()
		if !contains(directions, ds) {
			p.errAt(f.node("direction"), s.Path, "direction must be up, down, left or right, got %q%s", d.Raw, didYouMean(d.Raw, directions))
		}
		s.Args["direction"] = &Value{Kind: VString, Str: d}
	}
	if n := f.node("from"); n != nil {
		if n.Kind == yaml.ScalarNode && pointRe.MatchString(n.Value) {
			s.Args["from"] = p.point(n, s.Path+".from")
		} else {
			s.Sel = p.selector(n, s.Path+".from", false)
		}
	}
	if n := f.node("to"); n != nil {
		s.Args["to"] = p.point(n, s.Path+".to")
		if s.Args["from"] == nil {
			p.errAt(f.key["to"], s.Path, "to needs from: a point (e.g. from: \"50%%,80%%\", to: \"50%%,20%%\")")
		}
		if f.has("direction") {
			p.errAt(f.key["direction"], s.Path, "give either direction or to, not both")
		}
	} else if !f.has("direction") {
		p.need(s, f, "swipe needs a direction (up, down, left, right) or from/to points")
	}
	if f.has("duration") {
		d := p.duration(f.node("duration"), s.Path+".duration")
		s.Args["duration_ms"] = &Value{Kind: VInt, Int: d.Milliseconds()}
	}
	switch {
	case s.Args["to"] != nil && s.Args["from"] != nil:
		s.summary = fmt.Sprintf("swipe %s → %s", f.node("from").Value, f.node("to").Value)
	default:
		s.summary = "swipe " + valueSummary(s.Args["direction"])
		if s.Sel != nil {
			s.summary += " from " + s.Sel.String()
		} else if s.Args["from"] != nil {
			s.summary += " from " + f.node("from").Value
		}
	}
}

func parseScroll(p *parser, s *Step, f *fields) {
	if s.Sel == nil {
		s.Sel = f.sel()
	}
	if s.Sel == nil {
		p.need(s, f, "scroll_until_visible needs a selector, e.g. %s", exampleOf(f.def))
		return
	}
	dir := "down"
	if f.has("direction") {
		d := f.str("direction")
		dir, _ = d.Static()
		if !contains(directions, dir) {
			p.errAt(f.node("direction"), s.Path, "direction must be up, down, left or right, got %q%s", d.Raw, didYouMean(d.Raw, directions))
		}
	}
	s.Args["direction"] = &Value{Kind: VString, Str: &Str{Raw: dir, Parts: []StrPart{{Text: dir}}}}
	if f.has("max_swipes") {
		s.Args["max_swipes"] = f.intValue("max_swipes")
	}
	s.summary = "scroll " + dir + " until " + s.Sel.String() + " is visible"
}

func parseWaitFor(p *parser, s *Step, f *fields) {
	mode := "visible"
	if s.Sel == nil {
		s.Sel = f.sel()
	}
	for _, k := range []string{"visible", "gone"} {
		if n := f.node(k); n != nil {
			if s.Sel != nil {
				p.errAt(f.key[k], s.Path, "wait_for takes one selector: either %s: or selector keys", k)
				continue
			}
			s.Sel = p.selector(n, s.Path+"."+k, false)
			mode = k
		}
	}
	if s.Sel == nil {
		p.need(s, f, "wait_for needs a selector, e.g. `wait_for: Welcome` or `wait_for: {gone: Loading}`")
		return
	}
	s.Args["mode"] = &Value{Kind: VString, Str: &Str{Raw: mode, Parts: []StrPart{{Text: mode}}}}
	s.summary = "wait for " + s.Sel.String()
	if mode == "gone" {
		s.summary += " to be gone"
	}
}

func parseSleep(p *parser, s *Step, f *fields) {
	n := f.node("duration")
	if n == nil {
		p.need(s, f, "sleep needs a duration, e.g. `sleep: 500ms`")
		return
	}
	d := p.duration(n, s.Path+".duration")
	s.Args["ms"] = &Value{Kind: VInt, Int: d.Milliseconds()}
	s.summary = "sleep " + d.String()
	p.warnAt(s.Pos, s.Path, "sleep waits a fixed time; prefer wait_for or wait_idle")
}

func parseAssertSel(p *parser, s *Step, f *fields) {
	if s.Sel == nil {
		s.Sel = f.sel()
	}
	if s.Sel == nil {
		p.need(s, f, "%s needs a selector, e.g. %s", s.Kind, exampleOf(f.def))
		return
	}
	if m := f.str("message"); m != nil {
		s.Args["message"] = &Value{Kind: VString, Str: m}
	}
	if s.Kind == "assert_visible" {
		s.summary = "assert " + s.Sel.String() + " is visible"
	} else {
		s.summary = "assert " + s.Sel.String() + " is not visible"
	}
}

func parseAssertText(p *parser, s *Step, f *fields) {
	s.Sel = f.sel()
	if s.Sel == nil {
		p.need(s, f, "assert_text needs a selector, e.g. %s", exampleOf(f.def))
		return
	}
	n := 0
	for _, k := range []string{"expected", "contains", "regex"} {
		if st := f.str(k); st != nil {
			n++
			s.Args["mode"] = &Value{Kind: VString, Str: &Str{Raw: k, Parts: []StrPart{{Text: k}}}}
			s.Args["value"] = &Value{Kind: VString, Str: st, Pos: st.Pos}
			if k == "regex" {
				if re, ok := st.Static(); ok {
					if _, err := regexp.Compile(re); err != nil {
						p.errAt(f.node(k), s.Path, "invalid regex: %v", err)
					}
				}
			}
			s.summary = fmt.Sprintf("assert text of %s %s %q", s.Sel.String(), map[string]string{"expected": "is", "contains": "contains", "regex": "matches"}[k], st.Raw)
		}
	}
	if n != 1 {
		p.need(s, f, "assert_text needs exactly one of expected, contains or regex")
	}
	if m := f.str("message"); m != nil {
		s.Args["message"] = &Value{Kind: VString, Str: m}
	}
}

func parseAssert(p *parser, s *Step, f *fields) {
	n := f.node("expr")
	if n == nil || n.Kind != yaml.ScalarNode || strings.TrimSpace(n.Value) == "" {
		p.need(s, f, "assert needs a Lua expression, e.g. `assert: count > 0`")
		return
	}
	// The expression is Lua source whatever YAML typed it as: `assert: 0`
	// or `assert: true` is the text "0" or "true".
	s.Args["expr"] = &Value{Kind: VString, Pos: p.pos(n), Str: p.str(n, s.Path, true)}
	if m := f.str("message"); m != nil {
		s.Args["message"] = &Value{Kind: VString, Str: m}
	}
	s.summary = "assert " + n.Value
}

func parseScreenshot(p *parser, s *Step, f *fields) {
	name := f.str("name")
	if name == nil {
		name = &Str{Raw: "screenshot", Parts: []StrPart{{Text: "screenshot"}}}
	}
	s.Args["name"] = &Value{Kind: VString, Str: name}
	s.summary = "screenshot " + name.Raw
}

func parseCopyText(p *parser, s *Step, f *fields) {
	if s.Sel == nil {
		s.Sel = f.sel()
	}
	if s.Sel == nil {
		p.need(s, f, "copy_text needs a selector, e.g. %s", exampleOf(f.def))
	}
	n := f.node("as")
	if n == nil {
		p.need(s, f, "copy_text needs as: <variable name>, e.g. %s", exampleOf(f.def))
		return
	}
	name := p.scalarString(n, s.Path+".as")
	if p.checkVarName(n, s.Path+".as", "variable", name) {
		s.Args["as"] = &Value{Kind: VString, Pos: p.pos(n), Str: &Str{Raw: name, Parts: []StrPart{{Text: name}}}}
	}
	if s.Sel != nil {
		s.summary = "copy text of " + s.Sel.String() + " to " + name
	}
}

func (p *parser) setVars(n *yaml.Node, path string) *Value {
	if n == nil || n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		p.errAt(n, path, "set takes a mapping of variables, e.g. `set: {count: 1}`, got %s", describeNode(n))
		return &Value{Kind: VMap}
	}
	v := &Value{Kind: VMap, Pos: p.pos(n)}
	p.eachPair(n, path, func(k string, kn, c *yaml.Node) {
		if !p.checkVarName(kn, path, "variable", k) {
			return
		}
		v.Keys = append(v.Keys, k)
		v.Map = append(v.Map, p.value(c, path+"."+k, false))
	})
	return v
}

func parseSet(p *parser, s *Step, f *fields) {}

func setSummary(v *Value) string {
	return "set " + strings.Join(v.Keys, ", ")
}

// cond parses a condition from a node: a scalar is a Lua expression; a
// mapping has one of visible, gone or expr.
func (p *parser) cond(n *yaml.Node, path string) *Cond {
	c := &Cond{Pos: p.pos(n)}
	if n == nil || isNull(n) {
		p.errAt(n, path, "expected a condition: a Lua expression or {visible: sel}, {gone: sel}, {expr: lua}")
		return nil
	}
	if n.Kind == yaml.ScalarNode {
		c.Kind, c.Expr = "expr", n.Value
		if strings.TrimSpace(n.Value) == "" {
			p.errAt(n, path, "empty condition")
		}
		return c
	}
	if n.Kind != yaml.MappingNode {
		p.errAt(n, path, "expected a condition, got %s", describeNode(n))
		return nil
	}
	keys := []string{"visible", "gone", "expr"}
	p.eachPair(n, path, func(k string, kn, v *yaml.Node) {
		if c.Kind != "" {
			p.errAt(kn, path, "a condition has exactly one of visible, gone or expr")
			return
		}
		switch k {
		case "visible", "gone":
			c.Kind, c.Sel = k, p.selector(v, path+"."+k, false)
		case "expr":
			c.Kind, c.Expr = k, p.scalarString(v, path+".expr")
		default:
			p.errAt(kn, path, "unknown key %q in condition%s (valid keys: visible, gone, expr)", k, didYouMean(k, keys))
		}
	})
	if c.Kind == "" {
		return nil
	}
	return c
}

func condFromFields(p *parser, f *fields, path string) *Cond {
	var c *Cond
	for _, k := range []string{"visible", "gone", "expr"} {
		n := f.node(k)
		if n == nil {
			continue
		}
		if c != nil {
			p.errAt(f.key[k], path, "a condition has exactly one of visible, gone or expr")
			continue
		}
		c = &Cond{Pos: p.pos(n), Kind: k}
		if k == "expr" {
			c.Expr = p.scalarString(n, path+".expr")
		} else {
			c.Sel = p.selector(n, path+"."+k, false)
		}
	}
	return c
}

func (c *Cond) String() string {
	if c == nil {
		return "?"
	}
	switch c.Kind {
	case "visible":
		return c.Sel.String() + " is visible"
	case "gone":
		return c.Sel.String() + " is gone"
	}
	return c.Expr
}

func parseIf(p *parser, s *Step, f *fields) {
	c := condFromFields(p, f, s.Path)
	if c == nil {
		p.need(s, f, "if needs a condition: `if: <lua expr>`, `if: {visible: sel}` or `if: {gone: sel}`")
	}
	if !f.has("then") {
		p.need(s, f, "if needs then: [steps]")
	}
	s.Branches = append(s.Branches, &Branch{Pos: s.Pos, Cond: c, Steps: f.steps("then")})
	if n := f.node("elif"); n != nil {
		items := []*yaml.Node{n}
		if n.Kind == yaml.SequenceNode {
			items = n.Content
		}
		for i, it := range items {
			it = p.deref(it)
			path := fmt.Sprintf("%s.elif[%d]", s.Path, i)
			if it == nil || it.Kind != yaml.MappingNode {
				p.errAt(it, path, "elif entries are mappings {visible|gone|expr: ..., then: [steps]}")
				continue
			}
			b := &Branch{Pos: p.pos(it)}
			sawThen := false
			p.eachPair(it, path, func(k string, kn, v *yaml.Node) {
				switch k {
				case "visible", "gone":
					b.Cond = &Cond{Pos: p.pos(v), Kind: k, Sel: p.selector(v, path+"."+k, false)}
				case "expr":
					b.Cond = &Cond{Pos: p.pos(v), Kind: k, Expr: p.scalarString(v, path+".expr")}
				case "then":
					sawThen = true
					b.Steps = p.steps(v, path+".then", f.depth+1)
				default:
					p.errAt(kn, path, "unknown key %q in elif%s (valid keys: visible, gone, expr, then)", k, didYouMean(k, []string{"visible", "gone", "expr", "then"}))
				}
			})
			if b.Cond == nil {
				p.errAt(it, path, "elif needs a condition (visible, gone or expr)")
			}
			if !sawThen {
				p.errAt(it, path, "elif needs then: [steps]")
			}
			s.Branches = append(s.Branches, b)
		}
	}
	s.Else = f.steps("else")
	s.summary = "if " + c.String()
}

func parseRepeat(p *parser, s *Step, f *fields) {
	n := 0
	if v := f.intValue("times"); v != nil {
		s.Args["times"] = v
		n++
		s.summary = "repeat " + valueSummary(v) + " times"
	}
	for _, k := range []string{"while", "until"} {
		if node := f.node(k); node != nil {
			n++
			if c := p.cond(node, s.Path+"."+k); c != nil {
				s.Branches = append(s.Branches, &Branch{Pos: c.Pos, Cond: c})
				s.Args["mode"] = &Value{Kind: VString, Str: &Str{Raw: k, Parts: []StrPart{{Text: k}}}}
				s.summary = "repeat " + k + " " + c.String()
			}
		}
	}
	if n != 1 {
		p.need(s, f, "repeat needs exactly one of times, while or until")
	}
	if v := f.intValue("max"); v != nil {
		if s.Args["times"] != nil {
			p.errAt(f.key["max"], s.Path, "max goes with while/until, not times")
		}
		s.Args["max"] = v
	}
	if !f.has("steps") {
		p.need(s, f, "repeat needs steps: [steps]")
	}
	s.Steps = f.steps("steps")
}

func parseForEach(p *parser, s *Step, f *fields) {
	n := f.node("in")
	if n == nil {
		p.need(s, f, "for_each needs in: a list, a variable or ${expr}")
	} else {
		v := p.value(n, s.Path+".in", false)
		switch v.Kind {
		case VList, VString:
		default:
			p.errAt(n, s.Path, "in must be a list, a variable name or ${expr}, got %s", describeNode(n))
		}
		s.Args["in"] = v
	}
	as := "item"
	if an := f.node("as"); an != nil {
		as = p.scalarString(an, s.Path+".as")
		p.checkVarName(an, s.Path+".as", "variable", as)
	}
	s.Args["as"] = &Value{Kind: VString, Str: &Str{Raw: as, Parts: []StrPart{{Text: as}}}}
	if !f.has("steps") {
		p.need(s, f, "for_each needs steps: [steps]")
	}
	s.Steps = f.steps("steps")
	if v := s.Args["in"]; v != nil {
		s.summary = "for each " + as + " in " + valueSummary(v)
	}
}

func parseRetry(p *parser, s *Step, f *fields) {
	v := f.intValue("max")
	if v == nil {
		v = &Value{Kind: VInt, Int: 3}
	}
	if v.Kind == VInt && (v.Int < 1 || v.Int > 100) {
		p.errAt(f.node("max"), s.Path, "max must be between 1 and 100")
	}
	s.Args["max"] = v
	if !f.has("steps") {
		p.need(s, f, "retry needs steps: [steps]")
	}
	s.Steps = f.steps("steps")
	s.summary = "retry up to " + valueSummary(v) + " times"
}

func parseRun(p *parser, s *Step, f *fields) {
	n := f.node("file")
	if n == nil {
		p.need(s, f, "run needs a file, e.g. `run: flows/login.yaml`")
		return
	}
	s.SubFile = p.scalarString(n, s.Path+".file")
	if pn := f.node("params"); pn != nil {
		v := p.value(pn, s.Path+".params", false)
		if v.Kind != VMap {
			p.errAt(pn, s.Path, "params must be a mapping, got %s", describeNode(pn))
		} else {
			s.Args["params"] = v
		}
	}
	s.summary = "run " + s.SubFile
}

func parseShell(p *parser, s *Step, f *fields) {
	c := f.str("command")
	if c == nil {
		p.need(s, f, "shell needs a command, e.g. %s", exampleOf(f.def))
		return
	}
	s.Args["command"] = &Value{Kind: VString, Str: c}
	if n := f.node("expect_exit"); n != nil {
		if n.Kind == yaml.ScalarNode && n.Value == "any" {
			s.Args["expect_exit"] = &Value{Kind: VNull}
		} else {
			s.Args["expect_exit"] = &Value{Kind: VInt, Int: int64(p.integer(n, s.Path+".expect_exit"))}
		}
	} else {
		s.Args["expect_exit"] = &Value{Kind: VInt, Int: 0}
	}
	if n := f.node("as"); n != nil {
		name := p.scalarString(n, s.Path+".as")
		if p.checkVarName(n, s.Path+".as", "variable", name) {
			s.Args["as"] = &Value{Kind: VString, Str: &Str{Raw: name, Parts: []StrPart{{Text: name}}}}
		}
	}
	s.summary = "shell " + c.Raw
}

func parseLua(p *parser, s *Step, f *fields) {
	n := f.node("code")
	if n == nil || n.Kind != yaml.ScalarNode {
		p.need(s, f, "lua needs a chunk of code, e.g. `lua: log.info('hi')`")
		return
	}
	v := p.value(n, s.Path, true)
	v.Kind = VString
	if v.Str == nil {
		v.Str = &Str{Raw: n.Value, Parts: []StrPart{{Text: n.Value}}}
	}
	// Block scalars start on the line after the indicator.
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		v.Pos.Line++
	}
	s.Lua = v
	first := strings.TrimSpace(strings.SplitN(n.Value, "\n", 2)[0])
	if len(first) > 40 {
		first = first[:40] + "…"
	}
	s.summary = "lua " + first
}

// parseAction validates a device action step against its spec.
func parseAction(p *parser, s *Step, f *fields) {
	spec, _ := action.Lookup(s.Kind)
	p.actionParams(s, spec, f)
}

func (p *parser) actionParams(s *Step, spec action.Spec, f *fields) {
	static := map[string]any{}
	dynamic := false
	for _, k := range f.order {
		if contains(commonKeys, k) {
			continue
		}
		prm, ok := spec.Param(k)
		if !ok {
			var names []string
			for _, q := range spec.Params {
				names = append(names, q.Name)
			}
			p.errAt(f.key[k], s.Path, "unknown parameter %q of action %s%s (parameters: %s)", k, spec.Name, didYouMean(k, names), strings.Join(names, ", "))
			continue
		}
		n := f.node(k)
		v := p.value(n, s.Path+"."+k, false)
		if v.Kind == VString {
			if _, static := v.Str.Static(); !static {
				_, whole := v.Str.Whole()
				if prm.Kind == action.KindString || whole {
					dynamic = true
					s.Action = append(s.Action, ActionParam{Name: k, Value: v, str: prm.Kind == action.KindString})
					continue
				}
			}
		}
		okKind := false
		var goVal any
		switch prm.Kind {
		case action.KindInt:
			okKind = v.Kind == VInt
			goVal = v.Int
		case action.KindNumber:
			okKind = v.Kind == VInt || v.Kind == VNumber
			if v.Kind == VInt {
				goVal = float64(v.Int)
			} else {
				goVal = v.Num
			}
		case action.KindString:
			okKind = v.Kind == VString || v.Kind == VInt
			if v.Kind == VString {
				goVal, _ = v.Str.Static()
			} else {
				goVal = v.Int
			}
		case action.KindBool:
			okKind = v.Kind == VBool
			goVal = v.Bool
		case action.KindEnum:
			if v.Kind == VString {
				st, _ := v.Str.Static()
				if !contains(prm.Enum, st) {
					p.errAt(n, s.Path, "parameter %q of action %s must be one of %s, got %q%s", k, spec.Name, strings.Join(prm.Enum, ", "), st, didYouMean(st, prm.Enum))
					continue
				}
				okKind, goVal = true, st
			}
		case action.KindObject:
			okKind = v.Kind == VMap
			goVal = valueToGo(v)
		}
		if !okKind {
			p.errAt(n, s.Path, "parameter %q of action %s must be %s, got %s", k, spec.Name, kindName(prm.Kind), describeValue(v))
			continue
		}
		static[k] = goVal
		s.Action = append(s.Action, ActionParam{Name: k, Value: v, str: prm.Kind == action.KindString})
	}
	for _, prm := range spec.Params {
		if prm.Required && !f.has(prm.Name) {
			p.need(s, f, "action %s needs parameter %q (%s)", spec.Name, prm.Name, kindName(prm.Kind))
			return
		}
	}
	if !dynamic && len(p.errs) == 0 {
		a, err := action.New(spec.Name, static)
		if err != nil {
			p.need(s, f, "%s", strings.TrimPrefix(err.Error(), "action "))
		} else {
			// Keep canonical forms (KEYCODE_HOME for "home").
			for i, ap := range s.Action {
				if sv, ok := a.Params[ap.Name].(string); ok {
					s.Action[i].Value = &Value{Kind: VString, Pos: ap.Value.Pos, Str: &Str{Raw: sv, Parts: []StrPart{{Text: sv}}}}
				}
			}
		}
	}
	// Spec order.
	sort.SliceStable(s.Action, func(i, j int) bool {
		return paramIndex(spec, s.Action[i].Name) < paramIndex(spec, s.Action[j].Name)
	})
	var parts []string
	for _, ap := range s.Action {
		if ap.Name == "reason" {
			continue
		}
		parts = append(parts, ap.Name+"="+valueSummary(ap.Value))
	}
	s.summary = spec.Name + " " + strings.Join(parts, " ")
	s.summary = strings.TrimSpace(s.summary)
}

func paramIndex(spec action.Spec, name string) int {
	for i, p := range spec.Params {
		if p.Name == name {
			return i
		}
	}
	return len(spec.Params)
}

func kindName(k action.Kind) string {
	switch k {
	case action.KindInt:
		return "an integer"
	case action.KindNumber:
		return "a number"
	case action.KindBool:
		return "a boolean"
	case action.KindEnum:
		return "one of the allowed values"
	case action.KindObject:
		return "a mapping"
	}
	return "a string"
}

func valueToGo(v *Value) any {
	switch v.Kind {
	case VBool:
		return v.Bool
	case VInt:
		return v.Int
	case VNumber:
		return v.Num
	case VString:
		s, _ := v.Str.Static()
		return s
	case VList:
		out := make([]any, len(v.List))
		for i, c := range v.List {
			out[i] = valueToGo(c)
		}
		return out
	case VMap:
		out := map[string]any{}
		for i, k := range v.Keys {
			out[k] = valueToGo(v.Map[i])
		}
		return out
	}
	return nil
}

func valueSummary(v *Value) string {
	if v == nil {
		return ""
	}
	switch v.Kind {
	case VString:
		return v.Str.Raw
	case VList:
		parts := make([]string, len(v.List))
		for i, c := range v.List {
			parts[i] = valueSummary(c)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case VMap:
		return "{…}"
	}
	return scalarText(v)
}

// --- selectors -----------------------------------------------------------------

// selector parses a selector node: a string (text, content-desc or hint) or
// a mapping of selector keys.
func (p *parser) selector(n *yaml.Node, path string, _ bool) *Selector {
	if n == nil || isNull(n) {
		p.errAt(n, path, "expected a selector (a text or a mapping like {id: save}), got nothing")
		return nil
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return &Selector{Pos: p.pos(n), Short: p.str(n, path, false)}
	case yaml.MappingNode:
		vals, keys := map[string]*yaml.Node{}, map[string]*yaml.Node{}
		var order []string
		p.eachPair(n, path, func(k string, kn, v *yaml.Node) {
			if !contains(selectorKeys, k) {
				p.errAt(kn, path, "unknown selector key %q%s (valid keys: %s)", k, didYouMean(k, selectorKeys), strings.Join(selectorKeys, ", "))
				return
			}
			order = append(order, k)
			vals[k], keys[k] = v, kn
		})
		if len(order) == 0 {
			if len(n.Content) == 0 {
				p.errAt(n, path, "empty selector")
			}
			return nil
		}
		return p.selectorFields(n, path, order, vals, keys)
	}
	p.errAt(n, path, "expected a selector (a text or a mapping like {id: save}), got %s", describeNode(n))
	return nil
}

func (p *parser) selectorFields(at *yaml.Node, path string, order []string, vals, keys map[string]*yaml.Node) *Selector {
	sel := &Selector{Pos: p.pos(at)}
	if kn := keys[order[0]]; kn != nil {
		sel.Pos = p.pos(kn)
	}
	for _, k := range order {
		n := vals[k]
		switch {
		case contains(selectorStrKeys, k):
			if n.Kind != yaml.ScalarNode || isNull(n) {
				p.errAt(n, path, "selector %s must be a string, got %s", k, describeNode(n))
				continue
			}
			st := p.str(n, path+"."+k, false)
			if k == "text_regex" {
				if re, ok := st.Static(); ok {
					if _, err := regexp.Compile(re); err != nil {
						p.errAt(n, path, "invalid text_regex: %v", err)
					}
				}
			}
			sel.Fields = append(sel.Fields, SelField{Name: k, Value: &Value{Kind: VString, Pos: p.pos(n), Str: st}})
		case k == "index":
			v := p.value(n, path+".index", false)
			if v.Kind != VInt || v.Int < 0 {
				if _, whole := exprOf(v); !whole {
					p.errAt(n, path, "selector index must be a non-negative integer, got %s", describeNode(n))
					continue
				}
			}
			sel.Fields = append(sel.Fields, SelField{Name: k, Value: v})
		case contains(selectorBoolKeys, k):
			sel.Fields = append(sel.Fields, SelField{Name: k, Value: &Value{Kind: VBool, Pos: p.pos(n), Bool: p.boolean(n, path+"."+k)}})
		case contains(selectorRelKeys, k):
			if r := p.selector(n, path+"."+k, false); r != nil {
				sel.Relations = append(sel.Relations, SelRelation{Name: k, Sel: r})
			}
		}
	}
	return sel
}

func exprOf(v *Value) (string, bool) {
	if v != nil && v.Kind == VString {
		return v.Str.Whole()
	}
	return "", false
}

// String renders the selector readably: "Save", id=wifi_switch,
// text="Title" below(id=header).
func (s *Selector) String() string {
	if s == nil {
		return "?"
	}
	if s.Short != nil {
		return strconv.Quote(s.Short.Raw)
	}
	var parts []string
	for _, f := range s.Fields {
		switch f.Value.Kind {
		case VString:
			if f.Name == "id" || f.Name == "class" {
				parts = append(parts, f.Name+"="+f.Value.Str.Raw)
			} else {
				parts = append(parts, f.Name+"="+strconv.Quote(f.Value.Str.Raw))
			}
		default:
			parts = append(parts, f.Name+"="+scalarText(f.Value))
		}
	}
	for _, r := range s.Relations {
		parts = append(parts, r.Name+"("+r.Sel.String()+")")
	}
	return strings.Join(parts, " ")
}
