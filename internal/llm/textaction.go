package llm

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/openpocket/openpocket/engine/action"
)

// textAction is an action recovered from a reply without a tool call.
type textAction struct {
	action  action.Action
	notes   []string
	thought string // an explicit thought/reason given with the action
	rest    string // the text around the action
	form    string // "JSON" or "call syntax"
}

// parseTextAction looks for an action in free text: a JSON object (possibly
// in ``` fences) of the forms {"type":"tap","x":1}, {"action":{…},
// "thought":…}, {"action":"tap",…}, {"name":"tap","arguments":{…}}, or a
// call such as tap(x=1, y=2), type_text(text="hi"), finish(message="done").
func parseTextAction(text string, d action.Defaults) (textAction, bool) {
	if strings.TrimSpace(text) == "" {
		return textAction{}, false
	}
	for _, cand := range jsonCandidates(text) {
		obj, ok := decodeObject(cand.src)
		if !ok {
			continue
		}
		name, args, thought, ok := actionFromObject(obj, 0)
		if !ok {
			continue
		}
		if t := takeThought(name, args); thought == "" {
			thought = t
		}
		a, notes := action.NormalizeTool(toolNameFor(name), args, d)
		return textAction{
			action: a, notes: notes, thought: thought, form: "JSON",
			rest: strings.TrimSpace(text[:cand.start] + " " + text[cand.end:]),
		}, true
	}
	if name, args, start, end, ok := findCall(text); ok {
		thought := takeThought(name, args)
		a, notes := action.NormalizeTool(toolNameFor(name), args, d)
		return textAction{
			action: a, notes: notes, thought: thought, form: "call syntax",
			rest: strings.Trim(strings.TrimSpace(text[:start]+" "+text[end:]), "`"),
		}, true
	}
	return textAction{}, false
}

// toolNameFor maps an action or tool name to the tool name NormalizeTool
// expects ("type" -> "type_text").
func toolNameFor(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	if s, ok := action.Lookup(n); ok {
		return s.ToolName
	}
	return name
}

func known(name string) bool {
	_, ok := action.Lookup(strings.ToLower(strings.TrimSpace(name)))
	return ok
}

type span struct {
	src        string
	start, end int
}

// jsonCandidates returns fenced blocks first, then every balanced {…} in
// the text, in order.
func jsonCandidates(text string) []span {
	var out []span
	for i := 0; ; {
		j := strings.Index(text[i:], "```")
		if j < 0 {
			break
		}
		start := i + j
		body := start + 3
		k := strings.Index(text[body:], "```")
		if k < 0 {
			break
		}
		end := body + k + 3
		inner := text[body : body+k]
		if nl := strings.IndexByte(inner, '\n'); nl >= 0 && !strings.ContainsAny(inner[:nl], "{[") {
			inner = inner[nl+1:]
		}
		out = append(out, span{src: inner, start: start, end: end})
		i = end
	}
	for i := 0; i < len(text); i++ {
		if text[i] != '{' {
			continue
		}
		end := objectEnd(text, i)
		if end < 0 {
			// Unclosed (truncated) object: let the repair close it.
			out = append(out, span{src: text[i:], start: i, end: len(text)})
			break
		}
		out = append(out, span{src: text[i:end], start: i, end: end})
		i = end - 1
	}
	return out
}

// actionFromObject recognizes the JSON shapes models use for an action.
func actionFromObject(obj map[string]any, depth int) (name string, args map[string]any, thought string, ok bool) {
	if depth > 3 {
		return "", nil, "", false
	}
	str := func(k string) string { s, _ := obj[k].(string); return strings.TrimSpace(s) }
	without := func(keys ...string) map[string]any {
		m := make(map[string]any, len(obj))
		for k, v := range obj {
			m[k] = v
		}
		for _, k := range keys {
			delete(m, k)
		}
		return m
	}
	thought = str("thought")
	// {"action": {...}, "thought": "..."}
	if inner, isMap := obj["action"].(map[string]any); isMap {
		n, a, t, ok := actionFromObject(inner, depth+1)
		if t == "" {
			t = thought
		}
		return n, a, t, ok
	}
	// {"type": "tap", "x": 1} — an unknown type still counts (it becomes a wait).
	if t := str("type"); t != "" && t != "function" && t != "object" {
		return t, without("type"), thought, true
	}
	// {"action": "tap", "x": 1}
	if a := str("action"); a != "" && known(a) {
		return a, without("action", "thought"), thought, true
	}
	// {"name": "tap", "arguments": {...}} or {"function": {...}}
	if fn, isMap := obj["function"].(map[string]any); isMap {
		n, a, t, ok := actionFromObject(fn, depth+1)
		if t == "" {
			t = thought
		}
		return n, a, t, ok
	}
	if n := str("name"); n != "" && known(n) {
		for _, k := range []string{"arguments", "parameters", "args", "input"} {
			switch v := obj[k].(type) {
			case map[string]any:
				return n, v, thought, true
			case string:
				if m, ok := decodeObject(v); ok {
					return n, m, thought, true
				}
			}
		}
		return n, without("name", "thought"), thought, true
	}
	return "", nil, "", false
}

var callStart = regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_]*)\s*\(`)

// findCall finds the first call of a known action or tool in text and
// parses its arguments.
func findCall(text string) (name string, args map[string]any, start, end int, ok bool) {
	for _, m := range callStart.FindAllStringSubmatchIndex(text, -1) {
		name = text[m[2]:m[3]]
		if !known(name) {
			continue
		}
		open := m[1] - 1
		closeAt := closingParen(text, open)
		if closeAt < 0 {
			continue
		}
		args, ok = parseCallArgs(name, text[open+1:closeAt])
		if !ok {
			continue
		}
		return name, args, m[0], closeAt + 1, true
	}
	return "", nil, 0, 0, false
}

// scanUnquoted calls visit for each byte of s from start that lies outside
// quoted strings, with the bracket depth after that byte; visit returns
// false to stop. Both call-syntax helpers below walk text this way.
func scanUnquoted(s string, start int, visit func(i int, ch byte, depth int) bool) {
	depth := 0
	var quote byte
	esc := false
	for i := start; i < len(s); i++ {
		ch := s[i]
		if quote != 0 {
			switch {
			case esc:
				esc = false
			case ch == '\\':
				esc = true
			case ch == quote:
				quote = 0
			}
			continue
		}
		switch ch {
		case '"', '\'':
			quote = ch
			continue
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		}
		if !visit(i, ch, depth) {
			return
		}
	}
}

// closingParen returns the index of the ')' matching the '(' at open,
// skipping quoted strings and nested brackets, or -1.
func closingParen(s string, open int) int {
	at := -1
	scanUnquoted(s, open, func(i int, ch byte, depth int) bool {
		if depth == 0 && strings.IndexByte(")]}", ch) >= 0 {
			if ch == ')' {
				at = i
			}
			return false
		}
		return true
	})
	return at
}

// parseCallArgs parses `x=1, y=2`, `text="hi"`, `x: 1` or positional
// arguments (mapped to the spec's parameters in order).
func parseCallArgs(name, src string) (map[string]any, bool) {
	args := map[string]any{}
	parts := splitTopLevel(src)
	var params []action.Param
	if s, ok := action.Lookup(strings.ToLower(name)); ok {
		params = s.Params
	}
	pos := 0
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if k, v, isKV := splitKeyValue(p); isKV {
			args[k] = callValue(v)
			continue
		}
		if pos >= len(params) {
			return nil, false
		}
		args[params[pos].Name] = callValue(p)
		pos++
	}
	return args, true
}

// splitTopLevel splits on commas outside quotes and brackets.
func splitTopLevel(s string) []string {
	var out []string
	last := 0
	scanUnquoted(s, 0, func(i int, ch byte, depth int) bool {
		if ch == ',' && depth == 0 {
			out = append(out, s[last:i])
			last = i + 1
		}
		return true
	})
	return append(out, s[last:])
}

var keyRe = regexp.MustCompile(`^["']?([A-Za-z_][A-Za-z0-9_]*)["']?\s*[=:]\s*`)

func splitKeyValue(p string) (string, string, bool) {
	m := keyRe.FindStringSubmatchIndex(p)
	if m == nil {
		return "", "", false
	}
	return p[m[2]:m[3]], strings.TrimSpace(p[m[1]:]), true
}

// callValue converts a call-syntax literal: JSON values, single-quoted
// strings, Python True/False/None, else the bare text.
func callValue(v string) any {
	v = strings.TrimSpace(v)
	switch v {
	case "True", "true":
		return true
	case "False", "false":
		return false
	case "None", "null", "nil":
		return nil
	}
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		inner := v[1 : len(v)-1]
		inner = strings.ReplaceAll(inner, `\'`, `'`)
		inner = strings.ReplaceAll(inner, `"`, `\"`)
		if s, err := strconv.Unquote(`"` + inner + `"`); err == nil {
			return s
		}
		return v[1 : len(v)-1]
	}
	var out any
	if json.Unmarshal([]byte(v), &out) == nil {
		return out
	}
	if (strings.HasPrefix(v, "{") || strings.HasPrefix(v, "[")) && v != "" {
		if m, ok := decodeObject(v); ok {
			return m
		}
	}
	return v
}
