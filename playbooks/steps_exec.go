package playbooks

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// Escape hatches: adb shell commands and inline Lua. Each step's parser and code generator sit together here.

func execStepDefs() []*stepDef {
	return []*stepDef{
		{Name: "shell", Short: "command", Keys: []string{"command", "expect_exit", "as", "reason"}, parse: parseShell, gen: genShell, Doc: "Run an adb shell command; fail unless it exits with expect_exit (default 0)."},
		{Name: "lua", Short: "code", Keys: []string{"code"}, parse: parseLua, gen: genLua, Doc: "Run inline Lua (params and variables are in scope)."},
	}
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

func genShell(g *gen, s *Step, id string) {
	w := g.w
	w.f("local __out, __code = flow.must(%s.shell(%s))", g.use("device"), g.literal(s.Args["command"]))
	if e := s.Args["expect_exit"]; e != nil && e.Kind == VInt {
		w.f("flow.expect_exit(__out, __code, %d)", e.Int)
	}
	if as := s.Args["as"]; as != nil {
		w.f("%s = __out", as.Str.Raw)
	}
}

func genLua(g *gen, s *Step, id string) {
	w := g.w
	code := s.Lua.Str.Raw
	g.scanModules(code)
	w.line("do")
	w.indent++
	for i, ln := range strings.Split(strings.TrimRight(code, "\n"), "\n") {
		w.cur = origin{file: s.Pos.File, line: s.Lua.Pos.Line + i, label: labelOf(s)}
		w.line(ln)
	}
	w.indent--
	w.cur = origin{file: s.Pos.File, line: s.Pos.Line, label: labelOf(s)}
	w.line("end")
}
