package playbooks

import "reflect"

// Typed step nodes. Every step kind has a node struct in its family file
// (steps_*.go, device_steps.go) with named, typed fields; its parser fills
// one and its generator reads it. define ties the two to the same node
// type, so a parser and generator that disagree about a field do not
// compile.

// stepNode is a kind's own fields: implemented by a pointer to the node
// struct of its family file (the method only marks node types).
type stepNode interface{ stepNode() }

// define completes a step definition with a parser and a generator of one
// node type N. The parser gets a fresh node, already in s.Node; the
// generator gets it back typed. d.node records the type for the registry
// test.
func define[N any, P interface {
	*N
	stepNode
}](d stepDef, parseFn func(p *parser, s *Step, f *fields, n P), genFn func(g *gen, s *Step, n P, id string)) *stepDef {
	d.node = reflect.TypeFor[P]()
	d.parse = func(p *parser, s *Step, f *fields) {
		n := P(new(N))
		s.Node = n
		parseFn(p, s, f, n)
	}
	d.gen = func(g *gen, s *Step, id string) {
		n, ok := s.Node.(P)
		if !ok {
			g.errAt(s.Pos, s.Path, "internal: %s step has node %T, want %T", s.Kind, s.Node, n)
			return
		}
		genFn(g, s, n, id)
	}
	return &d
}

// bareNode is the node of steps that take nothing but the common keys
// (back, home, wait_idle, hide_keyboard).
type bareNode struct{}

func (*bareNode) stepNode() {}

func parseNothing(p *parser, s *Step, f *fields, n *bareNode) {
	s.summary = s.Kind
}

// nodeValues calls fn with every literal value of a step's node: its
// *Value and *Str fields and the parameters of a device action. It reads
// the fields by reflection so that a field added to a node is never left
// out: a generated label interpolates only the ${expr}s its step uses.
// Nested steps and included playbooks are not the step's own values.
func nodeValues(n stepNode, fn func(*Value)) {
	rv := reflect.ValueOf(n)
	if n == nil || rv.IsNil() {
		return
	}
	rv = rv.Elem()
	for i := range rv.NumField() {
		if !rv.Type().Field(i).IsExported() {
			continue
		}
		switch x := rv.Field(i).Interface().(type) {
		case *Value:
			if x != nil {
				fn(x)
			}
		case *Str:
			if x != nil {
				fn(&Value{Kind: VString, Str: x})
			}
		case *actionNode:
			nodeValues(x, fn)
		case []ActionParam:
			for _, a := range x {
				fn(a.Value)
			}
		}
	}
}
