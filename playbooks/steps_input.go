package playbooks

import (
	"strconv"
	"strings"

	"github.com/openpocket/openpocket/engine/action"
)

// Keyboard steps: typing, erasing and keys. Each step's parser and code generator sit together here.

func inputStepDefs() []*stepDef {
	return []*stepDef{
		{Name: "input", Short: "text", Keys: []string{"text", "into", "clear", "secret"}, parse: parseInput, gen: genInput, Doc: "Type text, optionally into an element (tapped and cleared first)."},
		{Name: "erase", Short: "chars", Bare: true, Keys: []string{"chars"}, parse: parseErase, gen: genErase, Doc: "Delete characters before the cursor of the focused field (default 50)."},
		{Name: "key", Short: "code", Keys: []string{"code"}, parse: parseKey, gen: genKey, Doc: "Press a key (BACK, ENTER, KEYCODE_HOME, 66, ...)."},
		{Name: "back", Bare: true, parse: parseNothing, gen: genBackHome, Doc: "Press BACK."},
		{Name: "home", Bare: true, parse: parseNothing, gen: genBackHome, Doc: "Press HOME."},
	}
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
			if kc, ok := MaestroKeyCode(st); ok {
				st = kc
			} else if strings.Contains(strings.TrimSpace(st), " ") {
				p.errAt(n, s.Path, "unknown key name %q: use a key code (KEYCODE_DPAD_LEFT, 21) or a Maestro key name (%s)", st, maestroKeyList())
				return
			}
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

func genInput(g *gen, s *Step, id string) {
	w := g.w
	to := strconv.FormatInt(g.timeoutMs(s), 10)
	text := g.literal(s.Args["text"])
	secret := s.Args["secret"].Bool
	if secret {
		text = "flow.secret(" + text + ")"
	}
	if s.Sel != nil {
		sel := g.sel(s.Sel)
		if s.Args["clear"].Bool && !secret {
			w.f("flow.must(%s.set_text(%s, %s, {timeout_ms = %s}))", g.use("ui"), sel, text, to)
			g.settle()
			return
		}
		if s.Args["clear"].Bool {
			w.f("flow.clear(flow.must(%s.tap(%s, {timeout_ms = %s})))", g.use("ui"), sel, to)
		} else {
			w.f("flow.must(%s.tap(%s, {timeout_ms = %s}))", g.use("ui"), sel, to)
		}
	}
	w.f("flow.must(%s.type(%s))", g.use("device"), text)
	g.settle()
}

func genErase(g *gen, s *Step, id string) {
	w := g.w
	g.use("device")
	w.f("flow.erase(%s)", g.typed(s.Args["chars"]))
	g.settle()
}

func genKey(g *gen, s *Step, id string) {
	w := g.w
	w.f("flow.must(%s.key(%s))", g.use("device"), g.literal(s.Args["code"])) // names are canonical, numbers stay numbers
	g.settle()
}

func genBackHome(g *gen, s *Step, id string) {
	w := g.w
	w.f("flow.must(%s.%s())", g.use("device"), s.Kind)
	g.settle()
}
