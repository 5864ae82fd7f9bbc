package playbooks

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// Escape hatches: adb shell commands and inline Lua. Each step's node, parser and code generator sit together here.

func execStepDefs() []*stepDef {
	return []*stepDef{
		define(stepDef{Name: "shell", Short: "command", Keys: []string{"command", "expect_exit", "as", "reason"}, Example: "shell: settings get global wifi_on",
			Doc: "Run an adb shell command; fail unless it exits with expect_exit (default 0)."}, parseShell, genShell),
		define(stepDef{Name: "lua", Short: "code", Keys: []string{"code"}, Example: "lua: log.info('hi')",
			Doc: "Run inline Lua (params and variables are in scope)."}, parseLua, genLua),
	}
}

// shellNode is shell.
type shellNode struct {
	Command *Str
	// ExpectExit is the exit code the command must end with; nil when
	// any code passes (expect_exit: any).
	ExpectExit *int
	As         string // variable that receives the output; "" = none
}

func (*shellNode) stepNode() {}

func (n *shellNode) assigns() []string {
	if n.As == "" {
		return nil
	}
	return []string{n.As}
}

// luaNode is lua: the chunk as written.
type luaNode struct {
	Code *Value // a raw string; Pos is the chunk's first line
}

func (*luaNode) stepNode() {}

func parseShell(p *parser, s *Step, f *fields, n *shellNode) {
	c := f.str("command")
	if c == nil {
		p.need(s, f, "shell needs a command, e.g. %s", exampleOf(f.def))
		return
	}
	n.Command = c
	code := 0
	n.ExpectExit = &code
	if node := f.node("expect_exit"); node != nil {
		if node.Kind == yaml.ScalarNode && node.Value == "any" {
			n.ExpectExit = nil
		} else {
			code = p.integer(node, s.Path+".expect_exit")
		}
	}
	if node := f.node("as"); node != nil {
		name := p.scalarString(node, s.Path+".as")
		if p.checkVarName(node, s.Path+".as", "variable", name) {
			n.As = name
		}
	}
	s.summary = "shell " + c.Raw
}

func parseLua(p *parser, s *Step, f *fields, node *luaNode) {
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
	node.Code = v
	first := strings.TrimSpace(strings.SplitN(n.Value, "\n", 2)[0])
	if len(first) > 40 {
		first = first[:40] + "…"
	}
	s.summary = "lua " + first
}

func genShell(g *gen, s *Step, n *shellNode, id string) {
	w := g.w
	w.f("local __out, __code = flow.must(%s.shell(%s))", g.use("device"), g.str(n.Command))
	if n.ExpectExit != nil {
		w.f("flow.expect_exit(__out, __code, %d)", *n.ExpectExit)
	}
	if n.As != "" {
		w.f("%s = __out", n.As)
	}
}

func genLua(g *gen, s *Step, n *luaNode, id string) {
	w := g.w
	code := n.Code.Str.Raw
	g.scanModules(code)
	w.line("do")
	w.indent++
	for i, ln := range strings.Split(strings.TrimRight(code, "\n"), "\n") {
		w.cur = origin{file: s.Pos.File, line: n.Code.Pos.Line + i, label: labelOf(s)}
		w.line(ln)
	}
	w.indent--
	w.cur = origin{file: s.Pos.File, line: s.Pos.Line, label: labelOf(s)}
	w.line("end")
}
