package playbooks

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/openpocket/openpocket/lua/luasrc"
	"go.yaml.in/yaml/v3"
)

// Checking steps: assertions, screenshots and reading text. Each step's node, parser and code generator sit together here.

func assertStepDefs() []*stepDef {
	return []*stepDef{
		define(stepDef{Name: "assert_visible", Short: "@sel", Sel: true, Keys: []string{"message", "width", "height", "tolerance"}, Example: "assert_visible: Saved",
			Doc: "Fail unless an element becomes visible within the timeout."}, parseAssertSel, genAssertSel),
		define(stepDef{Name: "assert_not_visible", Short: "@sel", Sel: true, Keys: []string{"message"}, Example: "assert_not_visible: Error",
			Doc: "Fail unless an element is (or becomes) absent within the timeout."}, parseAssertSel, genAssertSel),
		define(stepDef{Name: "assert_text", Sel: true, Keys: []string{"expected", "contains", "regex", "message"}, Example: "assert_text: {id: welcome, contains: Welcome}",
			Doc: "Fail unless an element's text equals, contains or matches a value."}, parseAssertText, genAssertText),
		define(stepDef{Name: "assert", Short: "expr", Keys: []string{"expr", "message"}, Example: "assert: count > 0",
			Doc: "Fail unless a Lua expression is truthy."}, parseAssert, genAssert),
		define(stepDef{Name: "screenshot", Short: "name", Bare: true, Keys: []string{"name"},
			Doc: "Save a screenshot (name.png) to the run's artifacts."}, parseScreenshot, genScreenshot),
		define(stepDef{Name: "copy_text", Short: "@sel", Sel: true, Keys: []string{"as"}, Example: "copy_text: {id: welcome, as: greeting}",
			Doc: "Read an element's text into a variable."}, parseCopyText, genCopyText),
	}
}

// assertSelNode is assert_visible and assert_not_visible (the element is
// the step's selector).
type assertSelNode struct {
	Message *Str // nil = the runtime's message
	// assert_visible's size check, in pixels; nil = not checked.
	Width, Height, Tolerance *int
}

func (*assertSelNode) stepNode() {}

// assertTextNode is assert_text.
type assertTextNode struct {
	Mode    string // expected, contains or regex
	Value   *Str
	Message *Str
}

func (*assertTextNode) stepNode() {}

// assertNode is assert: a Lua expression.
type assertNode struct {
	Expr    *Str // raw Lua source
	Message *Str
}

func (*assertNode) stepNode() {}

// screenshotNode is screenshot.
type screenshotNode struct {
	Name *Str
}

func (*screenshotNode) stepNode() {}

// copyTextNode is copy_text (the element is the step's selector).
type copyTextNode struct {
	As string // the variable; "" when the name was refused
}

func (*copyTextNode) stepNode() {}

func (n *copyTextNode) assigns() []string {
	if n.As == "" {
		return nil
	}
	return []string{n.As}
}

func parseAssertSel(p *parser, s *Step, f *fields, n *assertSelNode) {
	if s.Sel == nil {
		s.Sel = f.sel()
	}
	if s.Sel == nil {
		p.need(s, f, "%s needs a selector, e.g. %s", s.Kind, exampleOf(f.def))
		return
	}
	n.Message = f.str("message")
	if s.Kind == "assert_visible" {
		s.summary = "assert " + s.Sel.String() + " is visible"
	} else {
		s.summary = "assert " + s.Sel.String() + " is not visible"
	}
	sizeOptions(p, s, f, n)
}

func parseAssertText(p *parser, s *Step, f *fields, node *assertTextNode) {
	s.Sel = f.sel()
	if s.Sel == nil {
		p.need(s, f, "assert_text needs a selector, e.g. %s", exampleOf(f.def))
		return
	}
	n := 0
	for _, k := range []string{"expected", "contains", "regex"} {
		if st := f.str(k); st != nil {
			n++
			node.Mode, node.Value = k, st
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
	node.Message = f.str("message")
}

func parseAssert(p *parser, s *Step, f *fields, node *assertNode) {
	n := f.node("expr")
	if n == nil || n.Kind != yaml.ScalarNode || strings.TrimSpace(n.Value) == "" {
		p.need(s, f, "assert needs a Lua expression, e.g. `assert: count > 0`")
		return
	}
	// The expression is Lua source whatever YAML typed it as: `assert: 0`
	// or `assert: true` is the text "0" or "true".
	node.Expr = p.str(n, s.Path, true)
	node.Message = f.str("message")
	s.summary = "assert " + n.Value
}

func parseScreenshot(p *parser, s *Step, f *fields, n *screenshotNode) {
	name := f.str("name")
	if name == nil {
		name = &Str{Raw: "screenshot", Parts: []StrPart{{Text: "screenshot"}}}
	}
	n.Name = name
	s.summary = "screenshot " + name.Raw
}

func parseCopyText(p *parser, s *Step, f *fields, node *copyTextNode) {
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
		node.As = name
	}
	if s.Sel != nil {
		s.summary = "copy text of " + s.Sel.String() + " to " + name
	}
}

func genAssertSel(g *gen, s *Step, n *assertSelNode, id string) {
	w := g.w
	to := strconv.FormatInt(g.timeoutMs(s), 10)
	if g.genAssertSize(s, n, to) {
		return
	}
	fn := strings.TrimPrefix(s.Kind, "assert_")
	w.f("%s.%s(%s, %s)", g.use("assert"), fn, g.sel(s.Sel), g.opts("timeout_ms", to, "message", g.strOpt(n.Message)))
}

func genAssertText(g *gen, s *Step, n *assertTextNode, id string) {
	w := g.w
	to := strconv.FormatInt(g.timeoutMs(s), 10)
	g.use("ui")
	w.f("flow.assert_text(%s, %s, %s, %s)", g.sel(s.Sel), luasrc.Quote(n.Mode), g.str(n.Value),
		g.opts("timeout_ms", to, "message", g.strOpt(n.Message)))
}

func genAssert(g *gen, s *Step, n *assertNode, id string) {
	w := g.w
	expr := n.Expr.Raw
	g.checkExpr(expr, n.Expr.Pos, s.Path)
	msg := g.strOpt(n.Message)
	if msg == "" {
		msg = luasrc.Quote("assertion failed: " + strings.TrimSpace(expr))
	}
	w.f("if not (%s) then flow.fail(%s) end", expr, msg)
}

func genScreenshot(g *gen, s *Step, n *screenshotNode, id string) {
	w := g.w
	w.f("flow.screenshot(%s)", g.str(n.Name))
}

func genCopyText(g *gen, s *Step, n *copyTextNode, id string) {
	w := g.w
	to := strconv.FormatInt(g.timeoutMs(s), 10)
	w.f("%s = flow.must(%s.text(%s, {timeout_ms = %s}))", n.As, g.use("ui"), g.sel(s.Sel), to)
}
