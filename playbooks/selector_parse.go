package playbooks

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Selectors in steps: the short text form and the mapping form with
// relations, parsed into a Selector.

// selector parses a selector node: a string (text, content-desc or hint) or
// a mapping of selector keys.
func (p *parser) selector(n *yaml.Node, path string, _ bool) *Selector {
	if n == nil || isNull(n) {
		p.errAt(n, path, "expected a selector (a text or a mapping like {id: save}), got nothing")
		return nil
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return &Selector{Pos: p.pos(n), Short: p.str(n, path, false)}
	case yaml.MappingNode:
		vals, keys := map[string]*yaml.Node{}, map[string]*yaml.Node{}
		var order []string
		p.eachPair(n, path, func(k string, kn, v *yaml.Node) {
			if !contains(selectorKeys, k) {
				p.errAt(kn, path, "unknown selector key %q%s (valid keys: %s)", k, didYouMean(k, selectorKeys), strings.Join(selectorKeys, ", "))
				return
			}
			order = append(order, k)
			vals[k], keys[k] = v, kn
		})
		if len(order) == 0 {
			if len(n.Content) == 0 {
				p.errAt(n, path, "empty selector")
			}
			return nil
		}
		return p.selectorFields(n, path, order, vals, keys)
	}
	p.errAt(n, path, "expected a selector (a text or a mapping like {id: save}), got %s", describeNode(n))
	return nil
}

func (p *parser) selectorFields(at *yaml.Node, path string, order []string, vals, keys map[string]*yaml.Node) *Selector {
	sel := &Selector{Pos: p.pos(at)}
	if kn := keys[order[0]]; kn != nil {
		sel.Pos = p.pos(kn)
	}
	for _, k := range order {
		n := vals[k]
		switch {
		case contains(selectorStrKeys, k):
			if n.Kind != yaml.ScalarNode || isNull(n) {
				p.errAt(n, path, "selector %s must be a string, got %s", k, describeNode(n))
				continue
			}
			st := p.str(n, path+"."+k, false)
			if k == "text_regex" || k == "id_regex" {
				if re, ok := st.Static(); ok {
					if _, err := regexp.Compile(re); err != nil {
						p.errAt(n, path, "invalid %s: %v", k, err)
					}
				}
			}
			sel.Fields = append(sel.Fields, SelField{Name: k, Value: &Value{Kind: VString, Pos: p.pos(n), Str: st}})
		case k == "index":
			v := p.value(n, path+".index", false)
			if v.Kind != VInt || v.Int < 0 {
				if _, whole := exprOf(v); !whole {
					p.errAt(n, path, "selector index must be a non-negative integer, got %s", describeNode(n))
					continue
				}
			}
			sel.Fields = append(sel.Fields, SelField{Name: k, Value: v})
		case contains(selectorBoolKeys, k):
			sel.Fields = append(sel.Fields, SelField{Name: k, Value: &Value{Kind: VBool, Pos: p.pos(n), Bool: p.boolean(n, path+"."+k)}})
		case k == "contains" && n.Kind == yaml.SequenceNode:
			// contains: [sel, sel]: each is a descendant (containsDescendants).
			if len(n.Content) == 0 {
				p.errAt(n, path, "contains needs at least one selector")
			}
			for i, item := range n.Content {
				if r := p.selector(item, fmt.Sprintf("%s.contains[%d]", path, i), false); r != nil {
					sel.Relations = append(sel.Relations, SelRelation{Name: k, Sel: r})
				}
			}
		case contains(selectorRelKeys, k):
			if r := p.selector(n, path+"."+k, false); r != nil {
				sel.Relations = append(sel.Relations, SelRelation{Name: k, Sel: r})
			}
		}
	}
	return sel
}

func exprOf(v *Value) (string, bool) {
	if v != nil && v.Kind == VString {
		return v.Str.Whole()
	}
	return "", false
}

// String renders the selector readably: "Save", id=wifi_switch,
// text="Title" below(id=header).
func (s *Selector) String() string {
	if s == nil {
		return "?"
	}
	if s.Short != nil {
		return strconv.Quote(s.Short.Raw)
	}
	var parts []string
	for _, f := range s.Fields {
		switch f.Value.Kind {
		case VString:
			if f.Name == "id" || f.Name == "class" {
				parts = append(parts, f.Name+"="+f.Value.Str.Raw)
			} else {
				parts = append(parts, f.Name+"="+strconv.Quote(f.Value.Str.Raw))
			}
		default:
			parts = append(parts, f.Name+"="+scalarText(f.Value))
		}
	}
	for _, r := range s.Relations {
		parts = append(parts, r.Name+"("+r.Sel.String()+")")
	}
	return strings.Join(parts, " ")
}
