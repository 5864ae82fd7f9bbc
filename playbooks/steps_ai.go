package playbooks

import (
	"regexp"
	"strconv"
	"strings"
)

// AI steps: ai_tap, ai_assert, ai_extract and agent. The model answers
// once (the runtime module `ai`, stdlib/aistep) and the answer is kept in
// <playbook>.ai.json beside the playbook, so later runs need no model.
// Each step's node, parser and code generator sit together here.

func aiStepDefs() []*stepDef {
	return []*stepDef{
		define(stepDef{Name: "ai_tap", Short: "description", Keys: []string{"description"}, Example: "ai_tap: the send button",
			Doc: "Tap the element a description means: resolved by one model call, then kept as a selector in <playbook>.ai.json (no model call while it finds the element)."}, parseAIText, genAITap),
		define(stepDef{Name: "ai_assert", Short: "condition", Keys: []string{"condition"}, Example: "ai_assert: the message shows as sent",
			Doc: "Fail unless the model judges the condition true on the screen (screenshot and elements); the step fails with the model's reason."}, parseAIText, genAIAssert),
		define(stepDef{Name: "ai_extract", Keys: []string{"query", "as"}, Example: "ai_extract: {query: the order total, as: total}",
			Doc: "Read a value from the screen into a variable, answered by the model."}, parseAIExtract, genAIExtract),
		define(stepDef{Name: "agent", Short: "task", Keys: []string{"task", "max_steps"}, Example: "agent: {task: turn on dark mode, max_steps: 8}",
			Doc: "A model-driven sub-task: the agent loop runs until the model finishes (its steps show in the report)."}, parseAgent, genAgent),
	}
}

// aiTextNode is ai_tap and ai_assert: what the model is asked about.
type aiTextNode struct {
	Text *Str
}

func (*aiTextNode) stepNode() {}

// aiExtractNode is ai_extract.
type aiExtractNode struct {
	Query *Str
	As    string // "" when the name was refused
}

func (*aiExtractNode) stepNode() {}

func (n *aiExtractNode) assigns() []string {
	if n.As == "" {
		return nil
	}
	return []string{n.As}
}

// agentNode is agent.
type agentNode struct {
	Task     *Str
	MaxSteps int // 0 = the runtime's default
}

func (*agentNode) stepNode() {}

// aiText reads a step's required text key: missing or blank is an error
// at the step's line saying what was expected.
func aiText(p *parser, s *Step, f *fields, key, what string) *Str {
	st := f.str(key)
	if st == nil {
		p.need(s, f, "%s needs %s, e.g. %s", s.Kind, what, exampleOf(f.def))
		return nil
	}
	if v, ok := st.Static(); ok && strings.TrimSpace(v) == "" {
		n := f.node(key)
		p.errAt(n, s.Path, "%s needs %s, got an empty %s (e.g. %s)", s.Kind, what, key, exampleOf(f.def))
		return nil
	}
	return st
}

func parseAIText(p *parser, s *Step, f *fields, n *aiTextNode) {
	key, what := "description", "a description of the element"
	if s.Kind == "ai_assert" {
		key, what = "condition", "a condition to judge"
	}
	n.Text = aiText(p, s, f, key, what)
	if n.Text != nil {
		s.summary = s.Kind + " " + n.Text.Raw
	}
}

func parseAIExtract(p *parser, s *Step, f *fields, n *aiExtractNode) {
	n.Query = aiText(p, s, f, "query", "a query (what to read)")
	an := f.node("as")
	if an == nil {
		p.need(s, f, "ai_extract needs as: <variable name>, e.g. %s", exampleOf(f.def))
		return
	}
	name := p.scalarString(an, s.Path+".as")
	if p.checkVarName(an, s.Path+".as", "variable", name) {
		n.As = name
	}
	if n.Query != nil {
		s.summary = "ai_extract " + n.Query.Raw + " to " + name
	}
}

func parseAgent(p *parser, s *Step, f *fields, n *agentNode) {
	n.Task = aiText(p, s, f, "task", "a task")
	if mn := f.node("max_steps"); mn != nil {
		n.MaxSteps = p.integer(mn, s.Path+".max_steps")
		if n.MaxSteps < 1 {
			p.errAt(mn, s.Path, "max_steps must be at least 1, got %s", mn.Value)
		}
	}
	if n.Task != nil {
		s.summary = "agent: " + n.Task.Raw
	}
}

// noSecret refuses a text that interpolates a secret parameter: it would
// go to the model and into <playbook>.ai.json (meant to be committed).
func (g *gen) noSecret(s *Step, st *Str) {
	if st == nil {
		return
	}
	for _, prm := range g.pb.Params {
		if !prm.Secret {
			continue
		}
		ident := regexp.MustCompile(`\b` + regexp.QuoteMeta(prm.Name) + `\b`)
		for _, part := range st.Parts {
			if part.IsExpr && ident.MatchString(part.Text) {
				g.errAt(st.Pos, s.Path, "%s would send the secret parameter %s to the model and keep it in the .ai.json beside the playbook; describe it without the secret", s.Kind, prm.Name)
				return
			}
		}
	}
}

func genAITap(g *gen, s *Step, n *aiTextNode, id string) {
	g.noSecret(s, n.Text)
	w := g.w
	w.f("local note = flow.must(%s.tap(%s, {timeout_ms = %d}))", g.use("ai"), g.str(n.Text), g.timeoutMs(s))
	g.settle()
	w.line("return flow.note(note)")
}

func genAIAssert(g *gen, s *Step, n *aiTextNode, id string) {
	g.noSecret(s, n.Text)
	g.w.f("return flow.note(flow.must(%s.assert(%s)))", g.use("ai"), g.str(n.Text))
}

func genAIExtract(g *gen, s *Step, n *aiExtractNode, id string) {
	g.noSecret(s, n.Query)
	g.w.f("%s = flow.must(%s.extract(%s))", n.As, g.use("ai"), g.str(n.Query))
}

func genAgent(g *gen, s *Step, n *agentNode, id string) {
	g.noSecret(s, n.Task)
	opts := "{step = flow.current()"
	if n.MaxSteps > 0 {
		opts += ", max_steps = " + strconv.Itoa(n.MaxSteps)
	}
	opts += "}"
	g.w.f("local summary = flow.must(%s.agent(%s, %s))", g.use("ai"), g.str(n.Task), opts)
	g.settle()
	g.w.line("return flow.note(summary)")
}
