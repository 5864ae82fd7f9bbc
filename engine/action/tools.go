package action

import (
	"fmt"
	"strconv"
	"strings"
)

// Tools returns the model tool schemas of the specs accepted by filter (nil
// = all), in spec order. Each Parameters value is a fresh JSON Schema object
// {type: object, properties, required, additionalProperties: false}; the
// tool name stands for the action type, so there is no "type" property.
// Defaults are mentioned in the descriptions; Min bounds become "minimum".
func Tools(filter func(Spec) bool) []Tool {
	out := make([]Tool, 0, len(specs))
	for i := range specs {
		s := &specs[i]
		if filter != nil && !filter(s.clone()) {
			continue
		}
		out = append(out, Tool{Name: s.ToolName, Description: s.Doc, Parameters: toolSchema(s)})
	}
	return out
}

func toolSchema(s *Spec) map[string]any {
	props := make(map[string]any, len(s.Params))
	required := []any{}
	for i := range s.Params {
		p := &s.Params[i]
		props[p.Name] = paramSchema(p)
		if p.Required {
			required = append(required, p.Name)
		}
	}
	return map[string]any{
		"type":                 "object",
		"properties":           props,
		"required":             required,
		"additionalProperties": false,
	}
}

func paramSchema(p *Param) map[string]any {
	var m map[string]any
	if p.Kind == KindObject && p.schema != nil {
		m = p.schema()
	} else {
		m = map[string]any{"type": p.Kind.jsonType()}
	}
	if p.Enum != nil {
		m["enum"] = toAnySlice(p.Enum)
	}
	if p.Min != nil {
		m["minimum"] = *p.Min
	}
	m["description"] = paramDoc(p)
	return m
}

// paramDoc is the parameter's doc plus its default, if any.
func paramDoc(p *Param) string {
	doc := p.Doc
	if p.Default != nil && !(p.Required && isZeroDefault(p.Default)) {
		doc = strings.TrimSpace(doc + " Default: " + literal(p.Default) + ".")
	}
	return doc
}

// isZeroDefault reports repair-only defaults of required parameters (0, "")
// that are not worth advertising to the model.
func isZeroDefault(v any) bool {
	switch x := v.(type) {
	case int:
		return x == 0
	case string:
		return x == ""
	}
	return false
}

// literal renders a default as it would appear in JSON.
func literal(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}
