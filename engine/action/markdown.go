package action

import (
	"fmt"
	"sort"
	"strings"
)

// Markdown renders the docs page of all actions (docs/actions.md) from the
// spec table: an index, then one section per action with a parameter table.
func Markdown() string {
	var b strings.Builder
	b.WriteString("# Actions\n\n")
	b.WriteString("<!-- Generated from engine/action by `go test ./engine/action -run TestMarkdownUpToDate -update`. Do not edit. -->\n\n")
	b.WriteString("Every step of a run executes one action. The model calls each action as a tool of the same name, " +
		"except `type`, whose tool is `type_text`. Lua scripts and playbooks build the same actions.\n\n")
	b.WriteString("Missing or invalid values are repaired, never fatal: they get the default shown below (config can " +
		"override defaults), unknown parameters are dropped, an unknown or missing type becomes `wait`. " +
		"Coordinates are in the pixels of the screenshot the model sees. " +
		"The executors enforce the minimums; normalization does not clamp them.\n\n")

	b.WriteString("| Action | Tool | Category | Description |\n|---|---|---|---|\n")
	for _, s := range specs {
		fmt.Fprintf(&b, "| [`%s`](#%s) | `%s` | %s | %s |\n", s.Name, s.Name, s.ToolName, s.Category, cell(s.Doc))
	}
	for _, s := range specs {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n", s.Name, s.Doc)
		fmt.Fprintf(&b, "Tool: `%s` · Category: `%s`\n\n", s.ToolName, s.Category)
		b.WriteString("| Parameter | Type | Required | Default | Min | Description |\n|---|---|---|---|---|---|\n")
		for i := range s.Params {
			p := &s.Params[i]
			def, min := "", ""
			if p.Default != nil {
				def = "`" + literal(p.Default) + "`"
			}
			if p.Min != nil {
				min = literal(*p.Min)
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n",
				p.Name, typeCell(p.Kind, p.Enum), yes(p.Required), def, min, cell(p.Doc))
		}
		for i := range s.Params {
			p := &s.Params[i]
			if p.Kind != KindObject || p.schema == nil {
				continue
			}
			fmt.Fprintf(&b, "\nFields of `%s`:\n\n| Field | Type | Required | Description |\n|---|---|---|---|\n", p.Name)
			flatten(&b, p.Name, p.schema())
		}
	}
	return b.String()
}

// flatten writes one row per leaf or container of a nested schema, with
// dotted paths (uiTemplate.fields[].id).
func flatten(b *strings.Builder, path string, schema map[string]any) {
	props, _ := schema["properties"].(map[string]any)
	req := map[string]bool{}
	if r, _ := schema["required"].([]any); r != nil {
		for _, n := range r {
			req[fmt.Sprint(n)] = true
		}
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		sub, _ := props[n].(map[string]any)
		typ, _ := sub["type"].(string)
		doc, _ := sub["description"].(string)
		full := path + "." + n
		var enum []string
		if e, _ := sub["enum"].([]any); e != nil {
			for _, v := range e {
				enum = append(enum, fmt.Sprint(v))
			}
		}
		typeText := typ
		if enum != nil {
			typeText = typeCell(KindEnum, enum)
		}
		if typ == "array" {
			items, _ := sub["items"].(map[string]any)
			it, _ := items["type"].(string)
			typeText = "array of " + it
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", full, typeText, yes(req[n]), cell(doc))
		switch typ {
		case "object":
			flatten(b, full, sub)
		case "array":
			if items, _ := sub["items"].(map[string]any); items != nil && items["type"] == "object" {
				flatten(b, full+"[]", items)
			}
		}
	}
}

func typeCell(k Kind, enum []string) string {
	if k != KindEnum && enum == nil {
		return k.String()
	}
	quoted := make([]string, len(enum))
	for i, e := range enum {
		quoted[i] = "`" + e + "`"
	}
	return "one of " + strings.Join(quoted, ", ")
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return ""
}

// cell escapes text for a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}
