package playbooks

import "go.yaml.in/yaml/v3"

// Size limits, each reported with the line where it was crossed: a
// playbook is a script a person writes, so these are far beyond real use
// and keep a generated or hostile file from taking minutes or gigabytes.
const (
	// MaxSteps bounds the steps of one playbook, nested steps included.
	MaxSteps = 10000
	// MaxAliasExpansion bounds the nodes YAML aliases may add by reference
	// (an "alias bomb" expands a few lines into billions of nodes).
	MaxAliasExpansion = 100000
	// MaxExprBytes bounds one ${expr}: an expression is a value or a
	// condition, and a long one (a+a+… over 64 KB) cost the Lua compiler
	// quadratic time. Longer logic belongs in a Lua step or script.
	MaxExprBytes = 4096
)

// exhausted reports (once) and returns true when the node budget is
// spent, so parsing stops with a message instead of reading on with
// values silently missing.
func (p *parser) exhausted(at *yaml.Node, path string) bool {
	if p.budget >= 0 {
		return false
	}
	if !p.overBudget {
		p.overBudget = true
		p.errAt(at, path, "playbook too large: more than %d YAML nodes to read; split it into playbooks called with run:", nodeBudget)
	}
	return true
}

// checkAliases measures what the document's aliases expand to, before
// anything walks it: past MaxAliasExpansion nodes it is rejected at the
// alias that crossed the limit.
func (p *parser) checkAliases(doc *yaml.Node) bool {
	sizes := map[*yaml.Node]int{}
	added := 0
	var bad *yaml.Node
	// size is the expanded node count of n, saturating past the limit.
	var size func(n *yaml.Node, depth int) int
	size = func(n *yaml.Node, depth int) int {
		if n == nil || bad != nil {
			return 0
		}
		if depth > 10000 {
			bad = n
			return 0
		}
		if n.Kind == yaml.AliasNode {
			target, ok := sizes[n.Alias]
			if !ok {
				target = size(n.Alias, depth+1)
			}
			added += target
			if added > MaxAliasExpansion && bad == nil {
				bad = n
			}
			return target
		}
		if v, ok := sizes[n]; ok {
			return v
		}
		total := 1
		for _, c := range n.Content {
			total = min(total+size(c, depth+1), MaxAliasExpansion+1)
		}
		sizes[n] = total
		return total
	}
	size(doc, 0)
	if bad == nil {
		return true
	}
	p.errAt(bad, "", "YAML aliases expand to more than %d nodes (an alias bomb?); expected anchors (&) and aliases (*) to reuse small pieces", MaxAliasExpansion)
	return false
}
