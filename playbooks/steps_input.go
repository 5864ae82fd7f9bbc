package playbooks

import (
	"strconv"
	"strings"

	"github.com/openpocket/openpocket/engine/action"
)

// Keyboard steps: typing, erasing and keys. Each step's node, parser and code generator sit together here.

func inputStepDefs() []*stepDef {
	return []*stepDef{
		define(stepDef{Name: "input", Short: "text", Keys: []string{"text", "into", "clear", "secret"}, Example: "input: hello",
			Doc: "Type text, optionally into an element (tapped and cleared first)."}, parseInput, genInput),
		define(stepDef{Name: "erase", Short: "chars", Bare: true, Keys: []string{"chars"},
			Doc: "Delete characters before the cursor of the focused field (default 50)."}, parseErase, genErase),
		define(stepDef{Name: "key", Short: "code", Keys: []string{"code"}, Example: "key: ENTER",
			Doc: "Press a key (BACK, ENTER, KEYCODE_HOME, 66, ...)."}, parseKey, genKey),
		define(stepDef{Name: "back", Bare: true, Doc: "Press BACK."}, parseNothing, genBackHome),
		define(stepDef{Name: "home", Bare: true, Doc: "Press HOME."}, parseNothing, genBackHome),
	}
}

// inputNode is input: text typed into the step's selector (Sel) or the
// focused field.
type inputNode struct {
	Text   *Str
	Clear  bool // clear the field first (default: when there is a selector)
	Secret bool // masked in labels and reports; no screenshot after it
}

func (*inputNode) stepNode() {}

// isSecret reports whether a step types a secret: its report entry says so
// and takes no screenshot.
func isSecret(s *Step) bool {
	n, ok := s.Node.(*inputNode)
	return ok && n.Secret
}

// eraseNode is erase.
type eraseNode struct {
	Chars *Value // an integer or ${expr}
}

func (*eraseNode) stepNode() {}

// keyNode is key.
type keyNode struct {
	Code *Value // a canonical key name (KEYCODE_…), a number or ${expr}
}

func (*keyNode) stepNode() {}

func parseInput(p *parser, s *Step, f *fields, n *inputNode) {
	t := f.str("text")
	if t == nil {
		p.need(s, f, "input needs text, e.g. `input: hello` or `input: {text: hello, into: {id: note_input}}`")
		t = &Str{Parts: []StrPart{{}}}
	}
	n.Text = t
	if node := f.node("into"); node != nil {
		s.Sel = p.selector(node, s.Path+".into", false)
	}
	n.Clear = s.Sel != nil
	if f.has("clear") {
		n.Clear = f.boolean("clear")
	}
	n.Secret = f.boolean("secret")
	shown := strconv.Quote(t.Raw)
	if n.Secret {
		shown = `"•••"`
	}
	s.summary = "input " + shown
	if s.Sel != nil {
		s.summary += " into " + s.Sel.String()
	}
}

func parseErase(p *parser, s *Step, f *fields, n *eraseNode) {
	v := f.intValue("chars")
	if v == nil {
		v = &Value{Kind: VInt, Int: 50}
	}
	n.Chars = v
	s.summary = "erase " + valueSummary(v)
}

func parseKey(p *parser, s *Step, f *fields, node *keyNode) {
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
	node.Code = v
	s.summary = "key " + valueSummary(v)
}

func genInput(g *gen, s *Step, n *inputNode, id string) {
	w := g.w
	to := strconv.FormatInt(g.timeoutMs(s), 10)
	text := g.str(n.Text)
	secret := isSecret(s)
	if secret {
		text = "flow.secret(" + text + ")"
	}
	if s.Sel != nil {
		sel := g.sel(s.Sel)
		if n.Clear && !secret {
			w.f("flow.must(%s.set_text(%s, %s, {timeout_ms = %s}))", g.use("ui"), sel, text, to)
			g.settle()
			return
		}
		if n.Clear {
			w.f("flow.clear(flow.must(%s.tap(%s, {timeout_ms = %s})))", g.use("ui"), sel, to)
		} else {
			w.f("flow.must(%s.tap(%s, {timeout_ms = %s}))", g.use("ui"), sel, to)
		}
	}
	w.f("flow.must(%s.type(%s))", g.use("device"), text)
	g.settle()
}

func genErase(g *gen, s *Step, n *eraseNode, id string) {
	w := g.w
	g.use("device")
	w.f("flow.erase(%s)", g.typed(n.Chars))
	g.settle()
}

func genKey(g *gen, s *Step, n *keyNode, id string) {
	w := g.w
	w.f("flow.must(%s.key(%s))", g.use("device"), g.literal(n.Code)) // names are canonical, numbers stay numbers
	g.settle()
}

func genBackHome(g *gen, s *Step, _ *bareNode, id string) {
	w := g.w
	w.f("flow.must(%s.%s())", g.use("device"), s.Kind)
	g.settle()
}
