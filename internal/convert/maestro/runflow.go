package maestro

import (
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// runFlow converts `runFlow: file`, `runFlow: {file, env, when}` and
// `runFlow: {commands, when}` (inline); when becomes an if around it.
func (fc *flowConv) runFlow(val *yaml.Node) []*yaml.Node {
	var body []*yaml.Node
	switch {
	case val.Kind == yaml.ScalarNode:
		return []*yaml.Node{step("run", str(val.Value))}
	case mapGet(val, "commands").Kind == yaml.SequenceNode:
		body = fc.list(mapGet(val, "commands"))
		if env := mapGet(val, "env"); env.Kind == yaml.MappingNode {
			vars := &yaml.Node{Kind: yaml.MappingNode}
			for i := 0; i+1 < len(env.Content); i += 2 {
				k := env.Content[i].Value
				fc.locals[k] = true
				vars.Content = append(vars.Content, str(k), str(fc.text(env.Content[i+1])))
			}
			body = append([]*yaml.Node{step("set", vars)}, body...)
		}
	default:
		file := mapGet(val, "file")
		m := mapping(pair{"file", str(file.Value)})
		if env := mapGet(val, "env"); env.Kind == yaml.MappingNode {
			params := &yaml.Node{Kind: yaml.MappingNode}
			for i := 0; i+1 < len(env.Content); i += 2 {
				params.Content = append(params.Content, str(env.Content[i].Value), str(fc.text(env.Content[i+1])))
			}
			m.Content = append(m.Content, str("params"), params)
		}
		body = []*yaml.Node{step("run", m, common(val)...)}
	}
	when := mapGet(val, "when")
	if when.Kind != yaml.MappingNode {
		return body
	}
	return fc.wrapWhen(when, body)
}

// wrapWhen nests body in one if per condition (Maestro ANDs them).
func (fc *flowConv) wrapWhen(when *yaml.Node, body []*yaml.Node) []*yaml.Node {
	for i := len(when.Content) - 2; i >= 0; i -= 2 {
		k, v := when.Content[i].Value, when.Content[i+1]
		var cond *yaml.Node
		switch k {
		case "platform":
			if !strings.EqualFold(v.Value, "android") {
				return []*yaml.Node{note("runFlow only for platform " + v.Value + ": skipped on Android")}
			}
			continue
		case "visible":
			sel, _ := fc.selector(v, false)
			cond = mapping(pair{"visible", sel})
		case "notVisible":
			sel, _ := fc.selector(v, false)
			cond = mapping(pair{"gone", sel})
		case "true":
			lua, ok := fc.cond(v)
			if !ok {
				return []*yaml.Node{fc.todo(v, "when.true condition", v.Value)}
			}
			cond = mapping(pair{"expr", str(lua)})
		default:
			fc.warn(v, "when.%s is not supported; condition dropped", k)
			continue
		}
		body = []*yaml.Node{mapping(pair{"if", cond}, pair{"then", seq(body)})}
	}
	return body
}

// when converts a repeat.while condition (visible, notVisible, true).
func (fc *flowConv) when(w *yaml.Node) (*yaml.Node, bool) {
	switch {
	case mapGet(w, "visible").Kind != 0:
		sel, _ := fc.selector(mapGet(w, "visible"), false)
		return mapping(pair{"visible", sel}), true
	case mapGet(w, "notVisible").Kind != 0:
		sel, _ := fc.selector(mapGet(w, "notVisible"), false)
		return mapping(pair{"gone", sel}), true
	case mapGet(w, "true").Kind != 0:
		lua, ok := fc.cond(mapGet(w, "true"))
		if !ok {
			return nil, false
		}
		return mapping(pair{"expr", str(lua)}), true
	}
	return nil, false
}

// readSmall reads a script file, refusing very large ones.
func readSmall(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if info.Size() > 64<<10 {
		return "", os.ErrInvalid
	}
	b, err := os.ReadFile(path)
	return string(b), err
}
