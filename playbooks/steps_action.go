package playbooks

import (
	"sort"
	"strings"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/lua/luasrc"
	"go.yaml.in/yaml/v3"
)

// Action steps: every action of the action table is a step under its spec
// name, its parameters checked against the spec.

// actionNode is a device action: its parameters, in spec order. tap and
// swipe hold one for their x/y forms, which are the tap and swipe actions.
type actionNode struct {
	Params []ActionParam
}

func (*actionNode) stepNode() {}

// ActionParam is one parameter of a device action step, in spec order.
type ActionParam struct {
	Name  string
	Value *Value
	str   bool // a string parameter: ${expr} is converted with tostring
}

// parseAction validates a device action step against its spec.
func parseAction(p *parser, s *Step, f *fields, n *actionNode) {
	spec, _ := action.Lookup(s.Kind)
	p.actionParams(s, spec, f, n)
}

// genAction emits device.act with the step's kind as the action type.
func genAction(g *gen, s *Step, n *actionNode, id string) {
	parts := []string{"type = " + luasrc.Quote(s.Kind)}
	for _, ap := range n.Params {
		if ap.str {
			parts = append(parts, luaKey(ap.Name)+" = "+g.literal(ap.Value))
		} else {
			parts = append(parts, luaKey(ap.Name)+" = "+g.typed(ap.Value))
		}
	}
	g.w.f("flow.must(%s.act({%s}))", g.use("device"), strings.Join(parts, ", "))
	if s.Kind != "wait" && s.Kind != "finish" {
		g.settle()
	}
}

func (p *parser) actionParams(s *Step, spec action.Spec, f *fields, n *actionNode) {
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
		kn := f.node(k)
		v := p.value(kn, s.Path+"."+k, false)
		if v.Kind == VString {
			if _, static := v.Str.Static(); !static {
				_, whole := v.Str.Whole()
				if prm.Kind == action.KindString || whole {
					dynamic = true
					n.Params = append(n.Params, ActionParam{Name: k, Value: v, str: prm.Kind == action.KindString})
					continue
				}
			}
		}
		goVal, okKind, refused := p.staticParam(s, spec, prm, k, kn, v)
		if refused {
			continue
		}
		if !okKind {
			p.errAt(kn, s.Path, "parameter %q of action %s must be %s, got %s", k, spec.Name, kindName(prm.Kind), describeValue(v))
			continue
		}
		static[k] = goVal
		n.Params = append(n.Params, ActionParam{Name: k, Value: v, str: prm.Kind == action.KindString})
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
			for i, ap := range n.Params {
				if sv, ok := a.Params[ap.Name].(string); ok {
					n.Params[i].Value = &Value{Kind: VString, Pos: ap.Value.Pos, Str: &Str{Raw: sv, Parts: []StrPart{{Text: sv}}}}
				}
			}
		}
	}
	// Spec order.
	sort.SliceStable(n.Params, func(i, j int) bool {
		return paramIndex(spec, n.Params[i].Name) < paramIndex(spec, n.Params[j].Name)
	})
	var parts []string
	for _, ap := range n.Params {
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

// strSummary is a string as written, for labels; "" when absent.
func strSummary(s *Str) string {
	if s == nil {
		return ""
	}
	return s.Raw
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

// staticParam converts a static parameter value to the Go value the
// action table expects; ok=false means the value has the wrong kind,
// refused that an error was already reported (an enum value it lacks).
func (p *parser) staticParam(s *Step, spec action.Spec, prm action.Param, k string, n *yaml.Node, v *Value) (goVal any, ok, refused bool) {
	switch prm.Kind {
	case action.KindInt:
		return v.Int, v.Kind == VInt, false
	case action.KindNumber:
		if v.Kind == VInt {
			return float64(v.Int), true, false
		}
		return v.Num, v.Kind == VNumber, false
	case action.KindString:
		if v.Kind == VString {
			st, _ := v.Str.Static()
			return st, true, false
		}
		return v.Int, v.Kind == VInt, false
	case action.KindBool:
		return v.Bool, v.Kind == VBool, false
	case action.KindEnum:
		if v.Kind != VString {
			return nil, false, false
		}
		st, _ := v.Str.Static()
		if !contains(prm.Enum, st) {
			p.errAt(n, s.Path, "parameter %q of action %s must be one of %s, got %q%s", k, spec.Name, strings.Join(prm.Enum, ", "), st, didYouMean(st, prm.Enum))
			return nil, false, true
		}
		return st, true, false
	case action.KindObject:
		return valueToGo(v), v.Kind == VMap, false
	}
	return nil, false, false
}
