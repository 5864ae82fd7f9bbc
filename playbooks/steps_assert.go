package playbooks

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/openpocket/openpocket/lua/luasrc"
	"go.yaml.in/yaml/v3"
)

// Checking steps: assertions, screenshots and reading text. Each step's parser and code generator sit together here.

func assertStepDefs() []*stepDef {
	return []*stepDef{
		{Name: "assert_visible", Short: "@sel", Sel: true, Keys: []string{"message", "width", "height", "tolerance"}, parse: parseAssertSel, gen: genAssertSel, Doc: "Fail unless an element becomes visible within the timeout."},
		{Name: "assert_not_visible", Short: "@sel", Sel: true, Keys: []string{"message"}, parse: parseAssertSel, gen: genAssertSel, Doc: "Fail unless an element is (or becomes) absent within the timeout."},
		{Name: "assert_text", Sel: true, Keys: []string{"expected", "contains", "regex", "message"}, parse: parseAssertText, gen: genAssertText, Doc: "Fail unless an element's text equals, contains or matches a value."},
		{Name: "assert", Short: "expr", Keys: []string{"expr", "message"}, parse: parseAssert, gen: genAssert, Doc: "Fail unless a Lua expression is truthy."},
		{Name: "screenshot", Short: "name", Bare: true, Keys: []string{"name"}, parse: parseScreenshot, gen: genScreenshot, Doc: "Save a screenshot (name.png) to the run's artifacts."},
		{Name: "copy_text", Short: "@sel", Sel: true, Keys: []string{"as"}, parse: parseCopyText, gen: genCopyText, Doc: "Read an element's text into a variable."},
	}
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
	sizeOptions(p, s, f)
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

func genAssertSel(g *gen, s *Step, id string) {
	w := g.w
	to := strconv.FormatInt(g.timeoutMs(s), 10)
	if g.genAssertSize(s, to) {
		return
	}
	fn := strings.TrimPrefix(s.Kind, "assert_")
	w.f("%s.%s(%s, %s)", g.use("assert"), fn, g.sel(s.Sel), g.opts("timeout_ms", to, "message", g.argStr(s, "message")))
}

func genAssertText(g *gen, s *Step, id string) {
	w := g.w
	to := strconv.FormatInt(g.timeoutMs(s), 10)
	g.use("ui")
	w.f("flow.assert_text(%s, %s, %s, %s)", g.sel(s.Sel), g.literal(s.Args["mode"]), g.literal(s.Args["value"]),
		g.opts("timeout_ms", to, "message", g.argStr(s, "message")))
}

func genAssert(g *gen, s *Step, id string) {
	w := g.w
	expr := s.Args["expr"].Str.Raw
	g.checkExpr(expr, s.Args["expr"].Pos, s.Path)
	msg := g.argStr(s, "message")
	if msg == "" {
		msg = luasrc.Quote("assertion failed: " + strings.TrimSpace(expr))
	}
	w.f("if not (%s) then flow.fail(%s) end", expr, msg)
}

func genScreenshot(g *gen, s *Step, id string) {
	w := g.w
	w.f("flow.screenshot(%s)", g.literal(s.Args["name"]))
}

func genCopyText(g *gen, s *Step, id string) {
	w := g.w
	to := strconv.FormatInt(g.timeoutMs(s), 10)
	w.f("%s = flow.must(%s.text(%s, {timeout_ms = %s}))", s.Args["as"].Str.Raw, g.use("ui"), g.sel(s.Sel), to)
}
