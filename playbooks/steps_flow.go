package playbooks

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/openpocket/openpocket/lua/luasrc"
	"go.yaml.in/yaml/v3"
)

// Flow steps: variables, conditions, loops, retries and sub-playbooks. Each step's node, parser and code generator sit together here.

func flowStepDefs() []*stepDef {
	return []*stepDef{
		define(stepDef{Name: "set", Example: "set: {count: 1}",
			Doc: "Set variables (values may interpolate ${expr}; a whole ${expr} keeps its Lua type)."}, parseSet, genSet),
		define(stepDef{Name: "if", Short: "expr", Keys: []string{"visible", "gone", "expr", "then", "elif", "else"}, Example: "if: {visible: Allow}",
			Doc: "Run steps when a condition holds, with elif and else branches."}, parseIf, genIf),
		define(stepDef{Name: "repeat", Short: "times", Keys: []string{"times", "while", "until", "max", "steps"}, Example: "repeat: 3",
			Doc: "Repeat steps a number of times, while or until a condition holds."}, parseRepeat, genRepeat),
		define(stepDef{Name: "for_each", Short: "in", Keys: []string{"in", "as", "steps"}, Example: "for_each: notes",
			Doc: "Run steps for each item of a list."}, parseForEach, genForEach),
		define(stepDef{Name: "retry", Short: "max", Keys: []string{"max", "steps"}, Example: "retry: 3",
			Doc: "Run steps again (up to max attempts) until they pass."}, parseRetry, genRetry),
		define(stepDef{Name: "run", Short: "file", Keys: []string{"file", "params"}, Example: "run: flows/login.yaml",
			Doc: "Run another playbook (path relative to this file) with parameters."}, parseRun, genRun),
	}
}

// setNode is set.
type setNode struct {
	Vars *Value // a mapping: variable → value
}

func (*setNode) stepNode() {}

func (n *setNode) assigns() []string { return n.Vars.Keys }

// ifNode is if: its branches are the step's Branches (if, then each elif)
// and Else.
type ifNode struct{}

func (*ifNode) stepNode() {}

// repeatNode is repeat; the body is the step's Steps, and the while/until
// condition its only branch.
type repeatNode struct {
	Times *Value // an integer or ${expr}; nil = while/until
	Until bool   // repeat until the condition holds (else while it holds)
	Max   *Value // while/until: the most iterations (nil = 20)
}

func (*repeatNode) stepNode() {}

// forEachNode is for_each; the body is the step's Steps.
type forEachNode struct {
	In *Value // a list, a variable name or ${expr}
	As string // the loop variable
}

func (*forEachNode) stepNode() {}

// retryNode is retry; the body is the step's Steps.
type retryNode struct {
	Max *Value // attempts: an integer or ${expr}
}

func (*retryNode) stepNode() {}

// runNode is run: another playbook, resolved by Compile.
type runNode struct {
	File    string    // path as written
	Params  *Value    // a mapping; nil = none
	Sub     *Playbook // the included playbook, once loaded
	SubPath string    // its resolved path
}

func (*runNode) stepNode() {}

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

// parseSet reads the variables from the kind's value: set's mapping holds
// variables, not keys.
func parseSet(p *parser, s *Step, f *fields, n *setNode) {
	n.Vars = p.setVars(f.kindVal, s.Path)
	s.summary = "set " + strings.Join(n.Vars.Keys, ", ")
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

func parseIf(p *parser, s *Step, f *fields, _ *ifNode) {
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

func parseRepeat(p *parser, s *Step, f *fields, r *repeatNode) {
	n := 0
	if v := f.intValue("times"); v != nil {
		r.Times = v
		n++
		s.summary = "repeat " + valueSummary(v) + " times"
	}
	for _, k := range []string{"while", "until"} {
		if node := f.node(k); node != nil {
			n++
			if c := p.cond(node, s.Path+"."+k); c != nil {
				s.Branches = append(s.Branches, &Branch{Pos: c.Pos, Cond: c})
				r.Until = k == "until"
				s.summary = "repeat " + k + " " + c.String()
			}
		}
	}
	if n != 1 {
		p.need(s, f, "repeat needs exactly one of times, while or until")
	}
	if v := f.intValue("max"); v != nil {
		if r.Times != nil {
			p.errAt(f.key["max"], s.Path, "max goes with while/until, not times")
		}
		r.Max = v
	}
	if !f.has("steps") {
		p.need(s, f, "repeat needs steps: [steps]")
	}
	s.Steps = f.steps("steps")
}

func parseForEach(p *parser, s *Step, f *fields, node *forEachNode) {
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
		node.In = v
	}
	as := "item"
	if an := f.node("as"); an != nil {
		as = p.scalarString(an, s.Path+".as")
		p.checkVarName(an, s.Path+".as", "variable", as)
	}
	node.As = as
	if !f.has("steps") {
		p.need(s, f, "for_each needs steps: [steps]")
	}
	s.Steps = f.steps("steps")
	if v := node.In; v != nil {
		s.summary = "for each " + as + " in " + valueSummary(v)
	}
}

func parseRetry(p *parser, s *Step, f *fields, n *retryNode) {
	v := f.intValue("max")
	if v == nil {
		v = &Value{Kind: VInt, Int: 3}
	}
	if v.Kind == VInt && (v.Int < 1 || v.Int > 100) {
		p.errAt(f.node("max"), s.Path, "max must be between 1 and 100")
	}
	n.Max = v
	if !f.has("steps") {
		p.need(s, f, "retry needs steps: [steps]")
	}
	s.Steps = f.steps("steps")
	s.summary = "retry up to " + valueSummary(v) + " times"
}

func parseRun(p *parser, s *Step, f *fields, node *runNode) {
	n := f.node("file")
	if n == nil {
		p.need(s, f, "run needs a file, e.g. `run: flows/login.yaml`")
		return
	}
	node.File = p.scalarString(n, s.Path+".file")
	if pn := f.node("params"); pn != nil {
		v := p.value(pn, s.Path+".params", false)
		if v.Kind != VMap {
			p.errAt(pn, s.Path, "params must be a mapping, got %s", describeNode(pn))
		} else {
			node.Params = v
		}
	}
	s.summary = "run " + node.File
}

func genSet(g *gen, s *Step, n *setNode, id string) {
	w := g.w
	v := n.Vars
	for i, k := range v.Keys {
		w.f("%s = %s", k, g.typed(v.Map[i]))
	}
}

func genIf(g *gen, s *Step, _ *ifNode, id string) {
	w := g.w
	ids := &childIDs{prefix: id}
	for i, b := range s.Branches {
		kw := "if"
		if i > 0 {
			kw = "elseif"
		}
		w.f("%s %s then", kw, g.cond(b.Cond, s))
		w.indent++
		g.children(b.Steps, ids)
		w.indent--
		w.cur = origin{file: s.Pos.File, line: s.Pos.Line, label: labelOf(s)}
	}
	w.line("else")
	w.indent++
	if len(s.Else) > 0 {
		g.children(s.Else, ids)
	} else {
		w.line("return flow.SKIPPED")
	}
	w.indent--
	w.cur = origin{file: s.Pos.File, line: s.Pos.Line, label: labelOf(s)}
	w.line("end")
}

func genRepeat(g *gen, s *Step, n *repeatNode, id string) {
	w := g.w
	ids := &childIDs{prefix: id}
	if t := n.Times; t != nil {
		w.f("for _ = 1, %s do", g.intExpr(t))
		w.indent++
		g.children(s.Steps, ids)
		w.indent--
		w.line("end")
		return
	}
	if len(s.Branches) == 0 {
		return
	}
	maxN := "20"
	if m := n.Max; m != nil {
		maxN = g.intExpr(m)
	}
	cond := g.cond(s.Branches[0].Cond, s)
	condSrc := s.Branches[0].Cond.String()
	failMsg := func(what string) string {
		if _, err := strconv.Atoi(maxN); err == nil {
			return luasrc.Quote(fmt.Sprintf("repeat: %s after %s iterations: %s", what, maxN, condSrc))
		}
		return fmt.Sprintf("%s .. %s .. %s", luasrc.Quote("repeat: "+what+" after "), maxN, luasrc.Quote(" iterations: "+condSrc))
	}
	if !n.Until {
		w.line("local __n = 0")
		w.f("while %s do", cond)
		w.indent++
		w.line("__n = __n + 1")
		w.f("if __n > %s then flow.fail(%s) end", maxN, failMsg("still true"))
		g.children(s.Steps, ids)
		w.indent--
		w.line("end")
		return
	}
	w.line("local __done = false")
	w.f("for _ = 1, %s do", maxN)
	w.indent++
	g.children(s.Steps, ids)
	w.f("if %s then __done = true break end", cond)
	w.indent--
	w.line("end")
	w.f("if not __done then flow.fail(%s) end", failMsg("not true"))
}

func genForEach(g *gen, s *Step, n *forEachNode, id string) {
	w := g.w
	as := n.As
	list := g.listExpr(n.In, s)
	w.f("for _, %s in ipairs(flow.list(%s)) do", as, list)
	g.scope = append(g.scope, map[string]bool{as: true})
	w.indent++
	g.children(s.Steps, &childIDs{prefix: id})
	w.indent--
	g.scope = g.scope[:len(g.scope)-1]
	w.line("end")
}

func genRetry(g *gen, s *Step, n *retryNode, id string) {
	w := g.w
	w.f("flow.retry(%s, function()", g.intExpr(n.Max))
	w.indent++
	g.children(s.Steps, &childIDs{prefix: id})
	w.indent--
	w.line("end)")
}

func genRun(g *gen, s *Step, n *runNode, id string) {
	w := g.w
	if n.Sub == nil {
		return
	}
	args := "{}"
	if v := n.Params; v != nil {
		var parts []string
		for i, k := range v.Keys {
			parts = append(parts, luaKey(k)+" = "+g.typed(v.Map[i]))
		}
		args = "{" + strings.Join(parts, ", ") + "}"
	}
	w.f("flow.sub(%s, %s, %s, %q)", g.meta[n.Sub], g.fnName[n.Sub], args, id)
}
