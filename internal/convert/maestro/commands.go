package maestro

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// list converts a command list; nil or non-list input gives no steps.
func (fc *flowConv) list(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	var out []*yaml.Node
	for _, item := range n.Content {
		name, val := commandOf(item)
		if name == "" {
			fc.warn(item, "not a command: %s", describe(item))
			continue
		}
		fc.commands++
		out = append(out, fc.command(name, val, item)...)
	}
	return out
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return strconv.Quote(n.Value)
}

// common carries label and optional over to the step.
func common(val *yaml.Node) []pair {
	var out []pair
	if l := mapGet(val, "label"); l.Kind == yaml.ScalarNode {
		out = append(out, pair{"label", str(l.Value)})
	}
	if o := mapGet(val, "optional"); o.Kind == yaml.ScalarNode && o.Value == "true" {
		out = append(out, pair{"optional", boolNode(true)})
	}
	return out
}

// command converts one command into zero or more steps through the
// command table (table.go); an unknown command becomes a TODO.
func (fc *flowConv) command(name string, val, item *yaml.Node) []*yaml.Node {
	if conv, ok := commandTable[name]; ok {
		return conv(fc, command{name: name, val: val, item: item})
	}
	return []*yaml.Node{fc.todo(item, "unknown Maestro command "+name, name+": "+yamlText(val))}
}

func strOrNil(n *yaml.Node) *yaml.Node {
	if n.Kind != yaml.ScalarNode {
		return nil
	}
	return str(n.Value)
}

func intOrNil(n *yaml.Node) *yaml.Node {
	if n.Kind != yaml.ScalarNode {
		return nil
	}
	return raw("!!int", n.Value)
}

func number(n *yaml.Node) *yaml.Node {
	if _, err := strconv.ParseFloat(n.Value, 64); err != nil {
		return str(n.Value) // the compiler reports it with the line
	}
	return raw("!!float", n.Value)
}

// scalarOr is the value itself when scalar, else the mapping's key.
func scalarOr(val *yaml.Node, key string) *yaml.Node {
	if val.Kind == yaml.ScalarNode {
		return val
	}
	return mapGet(val, key)
}

func yamlText(n *yaml.Node) string {
	out, err := yaml.Marshal(n)
	if err != nil {
		return n.Value
	}
	return strings.TrimSpace(string(out))
}

func (fc *flowConv) launch(val *yaml.Node) *yaml.Node {
	if val.Kind == yaml.ScalarNode && val.Tag != "!!null" {
		return step("launch", mapping(pair{"app", str(val.Value)}, pair{"stop", boolNode(true)}))
	}
	m := mapping(pair{"app", strOrNil(mapGet(val, "appId"))})
	if v := mapGet(val, "clearState"); v.Value == "true" {
		m.Content = append(m.Content, str("clear_state"), boolNode(true))
	}
	// Maestro stops the app before launching unless stopApp: false.
	m.Content = append(m.Content, str("stop"), boolNode(mapGet(val, "stopApp").Value != "false"))
	if p := mapGet(val, "permissions"); p.Kind == yaml.MappingNode {
		m.Content = append(m.Content, str("permissions"), fc.permissions(p))
	}
	if a := mapGet(val, "arguments"); a.Kind == yaml.MappingNode {
		args := &yaml.Node{Kind: yaml.MappingNode}
		for i := 0; i+1 < len(a.Content); i += 2 {
			v := a.Content[i+1]
			nv := &yaml.Node{Kind: yaml.ScalarNode, Tag: v.Tag, Value: v.Value}
			if v.Tag == "!!str" {
				nv.Value = fc.text(v)
			}
			args.Content = append(args.Content, str(a.Content[i].Value), nv)
		}
		m.Content = append(m.Content, str("arguments"), args)
	}
	if k := mapGet(val, "clearKeychain"); k.Kind != 0 {
		fc.warn(k, "clearKeychain is iOS only; ignored")
	}
	return step("launch", m, common(val)...)
}

func (fc *flowConv) permissions(p *yaml.Node) *yaml.Node {
	out := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(p.Content); i += 2 {
		out.Content = append(out.Content, str(p.Content[i].Value), str(strings.ToLower(p.Content[i+1].Value)))
	}
	return out
}

// regexMeta tells a Maestro text or id that is meant as a regular
// expression from plain text that merely has a dot or question mark ("Dr.
// Who", "Save?"), which Maestro also matches literally.
var regexMeta = regexp.MustCompile(`\.[*+]|[\\\[\](){}|^$]`)

// selector converts a Maestro selector (a text string or a mapping) into a
// playbook selector node; rest lists the mapping's non-selector keys.
func (fc *flowConv) selector(val *yaml.Node, sized bool) (*yaml.Node, []string) {
	if val.Kind == yaml.ScalarNode {
		return fc.textSel(val), nil
	}
	var out []pair
	var rest []string
	for i := 0; i+1 < len(val.Content); i += 2 {
		k, v := val.Content[i].Value, val.Content[i+1]
		switch k {
		case "text":
			t := fc.text(v)
			if regexMeta.MatchString(v.Value) && !strings.Contains(v.Value, "${") {
				out = append(out, pair{"text_regex", str(t)})
			} else {
				out = append(out, pair{"text", str(t)})
			}
		case "id":
			if regexMeta.MatchString(v.Value) {
				out = append(out, pair{"id_regex", str(v.Value)})
			} else {
				out = append(out, pair{"id", str(fc.text(v))})
			}
		case "index":
			out = append(out, pair{"index", raw("!!int", v.Value)})
		case "enabled", "checked", "focused", "selected":
			out = append(out, pair{k, boolNode(v.Value == "true")})
		case "below", "above", "leftOf", "rightOf", "childOf":
			sub, _ := fc.selector(v, false)
			out = append(out, pair{map[string]string{"below": "below", "above": "above", "leftOf": "left_of", "rightOf": "right_of", "childOf": "child_of"}[k], sub})
		case "containsChild":
			sub, _ := fc.selector(v, false)
			out = append(out, pair{"contains_child", sub})
		case "containsDescendants":
			var subs []*yaml.Node
			for _, d := range v.Content {
				sub, _ := fc.selector(d, false)
				subs = append(subs, sub)
			}
			switch {
			case len(subs) == 1:
				out = append(out, pair{"contains", subs[0]})
			case len(subs) > 1:
				out = append(out, pair{"contains", seq(subs)}) // each one a descendant
			}
		case "width", "height", "tolerance":
			if sized {
				out = append(out, pair{k, raw("!!int", v.Value)})
			} else {
				fc.warn(v, "%s only narrows assertVisible here; dropped from this selector", k)
			}
		case "traits", "css":
			fc.warn(v, "selector %s is not supported on Android views; dropped", k)
		default:
			rest = append(rest, k)
		}
	}
	if len(out) == 0 {
		return nil, rest
	}
	return mapping(out...), rest
}

// textSel is Maestro's short form: a regular expression over the text.
func (fc *flowConv) textSel(v *yaml.Node) *yaml.Node {
	t := fc.text(v)
	if regexMeta.MatchString(v.Value) && !strings.Contains(v.Value, "${") {
		return mapping(pair{"text_regex", str(t)})
	}
	return str(t)
}

// unused warns about command options the conversion dropped.
func (fc *flowConv) unused(val *yaml.Node, rest []string) {
	for _, k := range rest {
		if k == "label" || k == "optional" {
			continue
		}
		fc.warn(mapGet(val, k), "option %s has no playbook equivalent; dropped", k)
	}
}

// merge puts the selector's keys into the step's own mapping.
func merge(sel *yaml.Node, extra ...pair) *yaml.Node {
	if sel == nil {
		sel = &yaml.Node{Kind: yaml.MappingNode}
	}
	if sel.Kind == yaml.ScalarNode {
		sel = mapping(pair{"text", sel})
	}
	for _, p := range extra {
		if p.v != nil {
			sel.Content = append(sel.Content, str(p.k), p.v)
		}
	}
	return sel
}

func (fc *flowConv) tap(name string, val *yaml.Node) *yaml.Node {
	kind := map[string]string{"tapOn": "tap", "doubleTapOn": "double_tap", "longPressOn": "long_press"}[name]
	if ai := fc.aiTap(kind, val); ai != nil {
		return ai
	}
	if val.Kind == yaml.ScalarNode {
		return step(kind, fc.textSel(val))
	}
	sel, rest := fc.selector(val, false)
	var extra []pair
	var dropped []string
	for _, k := range rest {
		v := mapGet(val, k)
		switch {
		case k == "repeat" && kind == "tap":
			extra = append(extra, pair{"repeat", raw("!!int", v.Value)})
		case k == "delay" && kind == "tap":
			extra = append(extra, pair{"delay", str(v.Value + "ms")})
		case k == "retryTapIfNoChange":
			if v.Value == "true" {
				fc.warn(v, "retryTapIfNoChange: set defaults.tap_retry: 1 in the header to re-tap when nothing changed")
			}
		case k == "waitToSettleTimeoutMs", k == "waitUntilVisible":
			// Finds already poll until the element is there.
		default:
			dropped = append(dropped, k)
		}
	}
	if p := mapGet(val, "point"); p.Kind == yaml.ScalarNode {
		if sel != nil {
			fc.warn(p, "point together with a selector: the point (relative to the element in Maestro) is used as a screen point")
		}
		return step(kind, mapping(append([]pair{{"point", str(p.Value)}}, extra...)...), common(val)...)
	}
	fc.unused(val, dropped)
	return step(kind, merge(sel, extra...), common(val)...)
}

func (fc *flowConv) waitUntil(val *yaml.Node) *yaml.Node {
	var extra []pair
	if t := mapGet(val, "timeout"); t.Kind == yaml.ScalarNode {
		extra = append(extra, pair{"timeout", str(t.Value + "ms")})
	}
	extra = append(extra, common(val)...)
	if v := mapGet(val, "visible"); v.Kind != 0 {
		sel, _ := fc.selector(v, false)
		return step("wait_for", mapping(pair{"visible", sel}), extra...)
	}
	if v := mapGet(val, "notVisible"); v.Kind != 0 {
		sel, _ := fc.selector(v, false)
		return step("wait_for", mapping(pair{"gone", sel}), extra...)
	}
	return fc.todo(val, "extendedWaitUntil without visible/notVisible", yamlText(val))
}

func (fc *flowConv) scrollUntil(val *yaml.Node) *yaml.Node {
	el := mapGet(val, "element")
	if val.Kind == yaml.ScalarNode {
		el = val
	}
	sel, _ := fc.selector(el, false)
	extra := []pair{}
	if d := mapGet(val, "direction"); d.Kind == yaml.ScalarNode {
		extra = append(extra, pair{"direction", str(strings.ToLower(d.Value))})
	}
	if s := mapGet(val, "speed"); s.Kind == yaml.ScalarNode {
		extra = append(extra, pair{"speed", raw("!!int", s.Value)})
	}
	if v := mapGet(val, "visibilityPercentage"); v.Kind == yaml.ScalarNode {
		extra = append(extra, pair{"visibility_percentage", raw("!!int", v.Value)})
	}
	if c := mapGet(val, "centerElement"); c.Value == "true" {
		extra = append(extra, pair{"centered", boolNode(true)})
	}
	if t := mapGet(val, "timeout"); t.Kind == yaml.ScalarNode {
		extra = append(extra, pair{"timeout", str(t.Value + "ms")})
		extra = append(extra, pair{"max_swipes", intNode(50)})
	}
	return step("scroll_until_visible", merge(sel, extra...), common(val)...)
}

func (fc *flowConv) swipe(val *yaml.Node) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	if d := mapGet(val, "direction"); d.Kind == yaml.ScalarNode {
		m.Content = append(m.Content, str("direction"), str(strings.ToLower(d.Value)))
	}
	if s := mapGet(val, "start"); s.Kind == yaml.ScalarNode {
		m.Content = append(m.Content, str("from"), str(s.Value), str("to"), str(mapGet(val, "end").Value))
	}
	if f := mapGet(val, "from"); f.Kind != 0 {
		sel, _ := fc.selector(f, false)
		m.Content = append(m.Content, str("from"), sel)
	}
	if d := mapGet(val, "duration"); d.Kind == yaml.ScalarNode {
		m.Content = append(m.Content, str("duration"), str(d.Value+"ms"))
	}
	return step("swipe", m, common(val)...)
}

func (fc *flowConv) travel(val *yaml.Node) []*yaml.Node {
	var out []*yaml.Node
	pts := mapGet(val, "points").Content
	for i, p := range pts {
		parts := strings.Split(p.Value, ",")
		if len(parts) != 2 {
			out = append(out, fc.todo(p, "travel point is not \"lat,lng\"", p.Value))
			continue
		}
		out = append(out, step("set_location", mapping(pair{"latitude", number(str(strings.TrimSpace(parts[0])))},
			pair{"longitude", number(str(strings.TrimSpace(parts[1])))})))
		if i < len(pts)-1 {
			out = append(out, step("sleep", str("1s")))
		}
	}
	if s := mapGet(val, "speed"); s.Kind != 0 {
		fc.warn(s, "travel speed is approximated by one point per second")
	}
	return out
}

func (fc *flowConv) assertScreenshot(val *yaml.Node) *yaml.Node {
	p := scalarOr(val, "path")
	m := mapping(pair{"reference", str(p.Value)})
	if t := mapGet(val, "thresholdPercentage"); t.Kind == yaml.ScalarNode {
		if f, err := strconv.ParseFloat(t.Value, 64); err == nil {
			m.Content = append(m.Content, str("tolerance"), raw("!!float", strconv.FormatFloat(100-f, 'f', -1, 64)))
		}
	}
	return step("assert_screenshot", m, common(val)...)
}

func (fc *flowConv) runScript(val *yaml.Node) *yaml.Node {
	file := scalarOr(val, "file").Value
	if mapGet(val, "env").Kind != 0 {
		fc.warn(mapGet(val, "env"), "runScript env is not passed; the script sees the playbook's variables")
	}
	path := filepath.Join(filepath.Dir(fc.f.path), file)
	src, err := readSmall(path)
	if err != nil {
		return fc.todo(val, fmt.Sprintf("runScript %s could not be read (%v)", file, err), "runScript: "+file)
	}
	return fc.script(val, src, "runScript "+file)
}

func (fc *flowConv) repeat(val *yaml.Node) *yaml.Node {
	body := fc.list(mapGet(val, "commands"))
	times := mapGet(val, "times")
	while := mapGet(val, "while")
	switch {
	case while.Kind == yaml.MappingNode:
		c, ok := fc.when(while)
		if !ok {
			return fc.todo(while, "repeat while condition", yamlText(while))
		}
		if times.Kind == yaml.ScalarNode {
			// Maestro stops quietly after times iterations; our while fails
			// at max, so check the condition inside a counted loop instead.
			guarded := mapping(pair{"if", c}, pair{"then", seq(body)})
			return step("repeat", raw("!!int", times.Value), append(common(val), pair{"steps", seq([]*yaml.Node{guarded})})...)
		}
		return step("repeat", mapping(pair{"while", c}, pair{"max", intNode(1000)}), append(common(val), pair{"steps", seq(body)})...)
	case times.Kind == yaml.ScalarNode:
		t := times.Value
		if strings.Contains(t, "${") {
			return step("repeat", mapping(pair{"times", str(fc.text(times))}), append(common(val), pair{"steps", seq(body)})...)
		}
		return step("repeat", raw("!!int", t), append(common(val), pair{"steps", seq(body)})...)
	}
	fc.warn(val, "repeat without times or while runs forever in Maestro; converted as while true with max 1000")
	return step("repeat", mapping(pair{"while", str("true")}, pair{"max", intNode(1000)}), pair{"steps", seq(body)})
}

func (fc *flowConv) retry(val *yaml.Node) *yaml.Node {
	attempts := 2 // Maestro's maxRetries defaults to 1: one retry after the first try
	if m := mapGet(val, "maxRetries"); m.Kind == yaml.ScalarNode {
		if n, err := strconv.Atoi(m.Value); err == nil {
			attempts = n + 1
		}
	}
	var body []*yaml.Node
	if f := mapGet(val, "file"); f.Kind == yaml.ScalarNode {
		body = fc.runFlow(mapping(pair{"file", str(f.Value)}, pair{"env", nilIfEmpty(mapGet(val, "env"))}))
	} else {
		body = fc.list(mapGet(val, "commands"))
	}
	return step("retry", intNode(attempts), append(common(val), pair{"steps", seq(body)})...)
}

func nilIfEmpty(n *yaml.Node) *yaml.Node {
	if n.Kind == 0 {
		return nil
	}
	return n
}
