package maestro

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// Maestro's AI commands become the playbook's AI steps, which ask the
// model once and keep the answer (docs/playbooks.md "AI steps"):
// assertWithAI and assertNoDefectsWithAI → ai_assert, extractTextWithAI →
// ai_extract, and the "AI tapOn" Maestro users write as an extraction
// followed by a tap on its value (tapOn: ${aiOutput}) → ai_tap.

// noDefects is what assertNoDefectsWithAI asks the model to judge.
const noDefects = "the screen shows no visual defects: no text or element is cut off, overlaps another, or sits off-centre in its container"

// aiOptional is Maestro's default for AI commands: optional unless the
// flow says optional: false (an unstable answer only warns).
func aiOptional(val *yaml.Node) []pair {
	var out []pair
	if l := mapGet(val, "label"); l.Kind == yaml.ScalarNode {
		out = append(out, pair{"label", str(l.Value)})
	}
	if o := mapGet(val, "optional"); o.Kind == yaml.ScalarNode && o.Value == "false" {
		return out
	}
	return append(out, pair{"optional", boolNode(true)})
}

func convertAssertWithAI(fc *flowConv, c command) []*yaml.Node {
	n := c.val
	if c.val.Kind == yaml.MappingNode {
		n = mapGet(c.val, "assertion")
	}
	if n.Kind != yaml.ScalarNode || strings.TrimSpace(n.Value) == "" {
		return one(fc.todo(c.item, "assertWithAI needs an assertion", yamlText(c.val)))
	}
	return one(step("ai_assert", str(fc.text(n)), aiOptional(c.val)...))
}

func convertNoDefectsWithAI(fc *flowConv, c command) []*yaml.Node {
	return one(step("ai_assert", str(noDefects), aiOptional(c.val)...))
}

func convertExtractWithAI(fc *flowConv, c command) []*yaml.Node {
	q, as := c.val, "aiOutput"
	if c.val.Kind == yaml.MappingNode {
		q = mapGet(c.val, "query")
		if v := mapGet(c.val, "outputVariable"); v.Kind == yaml.ScalarNode && v.Value != "" {
			as = v.Value
		}
	}
	if q.Kind != yaml.ScalarNode || strings.TrimSpace(q.Value) == "" {
		return one(fc.todo(c.item, "extractTextWithAI needs a query", yamlText(c.val)))
	}
	query := fc.text(q)
	fc.locals[as] = true
	if fc.aiQueries == nil {
		fc.aiQueries = map[string]string{}
	}
	fc.aiQueries[as] = query
	return one(step("ai_extract", mapping(pair{"query", str(query)}, pair{"as", str(as)}), aiOptional(c.val)...))
}

// aiTap is the ai_tap a tap on an AI extraction's value becomes (tapOn:
// ${aiOutput} after extractTextWithAI: the first product's title): the
// element the query describes, resolved once and kept as a selector; nil
// for any other tap.
func (fc *flowConv) aiTap(kind string, val *yaml.Node) *yaml.Node {
	if kind != "tap" {
		return nil
	}
	v := val
	if val.Kind == yaml.MappingNode {
		if len(val.Content) != 2 || val.Content[0].Value != "text" {
			return nil
		}
		v = val.Content[1]
	}
	if v.Kind != yaml.ScalarNode {
		return nil
	}
	s := strings.TrimSpace(v.Value)
	if !strings.HasPrefix(s, "${") || !strings.HasSuffix(s, "}") {
		return nil
	}
	q, ok := fc.aiQueries[strings.TrimSpace(s[2:len(s)-1])]
	if !ok {
		return nil
	}
	return step("ai_tap", str("the element showing "+q))
}
