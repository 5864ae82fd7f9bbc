package llm

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
)

// interpret turns an endpoint reply into a ModelReply (Mode and Latency are
// filled by the caller).
func (c *Client) interpret(r reply, _ engine.ModelRequest) (engine.ModelReply, error) {
	return interpretReply(r, c.opts.Defaults)
}

func interpretReply(r reply, d action.Defaults) (engine.ModelReply, error) {
	out := engine.ModelReply{Usage: r.usage}
	if len(r.calls) > 0 {
		tc := r.calls[0]
		out.Raw = strings.TrimSpace(tc.name + " " + tc.arguments)
		if n := len(r.calls); n > 1 {
			out.Problems = append(out.Problems, fmt.Sprintf(
				"reply had %d tool calls; only the first (%s) was used — call exactly one tool per step", n, tc.name))
		}
		args, probs := parseArguments(tc.arguments)
		out.Problems = append(out.Problems, probs...)
		thought := takeThought(tc.name, args)
		a, notes := action.NormalizeTool(tc.name, args, d)
		out.Problems = append(out.Problems, notes...)
		out.Action = a
		out.Thought = firstNonEmpty(thought, r.text, r.reasoning)
		return out, nil
	}

	out.Raw = r.text
	if ta, ok := parseTextAction(r.text, d); ok {
		out.Action = ta.action
		out.Problems = append(out.Problems, "reply had no tool call; the action was parsed from its text ("+ta.form+") — call a tool instead")
		out.Problems = append(out.Problems, ta.notes...)
		out.Thought = firstNonEmpty(ta.thought, ta.rest, r.reasoning)
		return out, nil
	}
	shown := snippet(r.text, 200)
	if shown == "" {
		shown = "(empty reply)"
	}
	return out, fmt.Errorf("%w: %s", ErrNoAction, shown)
}

// takeThought removes a "thought" argument (which no action has) and
// returns it, else the "reason" argument (which is kept: actions accept it).
func takeThought(toolName string, args map[string]any) string {
	var thought string
	for _, k := range []string{"thought", "thinking"} {
		if v, ok := args[k]; ok {
			if spec, found := action.Lookup(toolName); !found || !hasParam(spec, k) {
				delete(args, k)
			}
			if s, ok := v.(string); ok && thought == "" {
				thought = strings.TrimSpace(s)
			}
		}
	}
	if thought != "" {
		return thought
	}
	if s, ok := args["reason"].(string); ok {
		return strings.TrimSpace(s)
	}
	return ""
}

func hasParam(s action.Spec, name string) bool {
	_, ok := s.Param(name)
	return ok
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}

// parseArguments decodes tool-call arguments. Invalid JSON is repaired when
// possible; what was wrong is returned as problems for the model. The map
// is never nil.
func parseArguments(raw string) (map[string]any, []string) {
	s := strings.TrimSpace(raw)
	if s == "" || s == "null" {
		return map[string]any{}, nil
	}
	var v any
	err := json.Unmarshal([]byte(s), &v)
	if err == nil {
		switch t := v.(type) {
		case map[string]any:
			return t, nil
		case string:
			// Double-encoded arguments: a JSON string holding the object.
			if m, ok := decodeObject(t); ok {
				return m, []string{"arguments were a JSON string holding the object; send the object itself"}
			}
		}
		return map[string]any{}, []string{fmt.Sprintf(
			"arguments were not valid JSON: expected an object, got %s; used the defaults", action.JSONKind(v))}
	}
	if m, steps, ok := repairObject(s); ok {
		return m, []string{fmt.Sprintf("arguments were not valid JSON: %v; repaired by %s",
			err, strings.Join(steps, ", "))}
	}
	return map[string]any{}, []string{fmt.Sprintf(
		"arguments were not valid JSON: %v; ignored them and used the defaults: %s", err, snippet(s, 120))}
}

// decodeObject decodes s as a JSON object, with repairs.
func decodeObject(s string) (map[string]any, bool) {
	var m map[string]any
	if json.Unmarshal([]byte(strings.TrimSpace(s)), &m) == nil && m != nil {
		return m, true
	}
	m, _, ok := repairObject(s)
	return m, ok
}

// repairObject tries common fixes of almost-JSON objects: code fences,
// text around the object, single quotes, trailing commas, Python literals
// and missing closing brackets (truncated output). It reports the fixes
// that were needed.
func repairObject(s string) (map[string]any, []string, bool) {
	var steps []string
	s = strings.TrimSpace(s)
	if inner, ok := stripFences(s); ok {
		s = inner
		steps = append(steps, "removing code fences")
	}
	if i := strings.IndexByte(s, '{'); i > 0 {
		s = s[i:]
		steps = append(steps, "dropping text before the object")
	}
	if i := strings.IndexByte(s, '{'); i < 0 {
		return nil, nil, false
	}
	if end := objectEnd(s, 0); end > 0 && end < len(s) && strings.TrimSpace(s[end:]) != "" {
		s = s[:end]
		steps = append(steps, "dropping text after the object")
	}
	if !strings.Contains(s, `"`) && strings.Contains(s, `'`) {
		s = strings.ReplaceAll(s, `'`, `"`)
		steps = append(steps, "replacing single quotes")
	}
	fixed, fixSteps := fixStructure(s)
	steps = append(steps, fixSteps...)
	var m map[string]any
	if err := json.Unmarshal([]byte(fixed), &m); err != nil || m == nil {
		return nil, nil, false
	}
	if len(steps) == 0 {
		steps = []string{"re-parsing"}
	}
	return m, steps, true
}

// stripFences returns the content of the first ``` fenced block.
func stripFences(s string) (string, bool) {
	i := strings.Index(s, "```")
	if i < 0 {
		return s, false
	}
	rest := s[i+3:]
	// Skip an info string such as "json".
	if nl := strings.IndexByte(rest, '\n'); nl >= 0 && !strings.ContainsAny(rest[:nl], "{[") {
		rest = rest[nl+1:]
	} else {
		rest = strings.TrimLeft(rest, "abcdefghijklmnopqrstuvwxyzJSON")
	}
	if j := strings.Index(rest, "```"); j >= 0 {
		rest = rest[:j]
	}
	return strings.TrimSpace(rest), true
}

// objectEnd returns the index just past the bracket closing the one at
// start, or -1 when it is not closed. Strings are skipped.
func objectEnd(s string, start int) int {
	depth := 0
	inStr := false
	esc := false
	for i := start; i < len(s); i++ {
		ch := s[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case ch == '\\':
				esc = true
			case ch == '"':
				inStr = false
			}
			continue
		}
		switch ch {
		case '"':
			inStr = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// fixStructure removes trailing commas, maps Python literals (True, False,
// None) outside strings, and closes an unterminated string and unclosed
// brackets.
func fixStructure(s string) (string, []string) {
	var (
		b         strings.Builder
		stack     []byte
		inStr     bool
		esc       bool
		trailing  bool
		python    bool
		truncated bool
	)
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if inStr {
			b.WriteByte(ch)
			switch {
			case esc:
				esc = false
			case ch == '\\':
				esc = true
			case ch == '"':
				inStr = false
			}
			continue
		}
		switch ch {
		case '"':
			inStr = true
		case '{':
			stack = append(stack, '}')
		case '[':
			stack = append(stack, ']')
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			// Drop a comma directly before the closing bracket.
			out := b.String()
			if t := strings.TrimRight(out, " \t\r\n"); strings.HasSuffix(t, ",") {
				b.Reset()
				b.WriteString(t[:len(t)-1])
				trailing = true
			}
		default:
			for lit, repl := range map[string]string{"True": "true", "False": "false", "None": "null"} {
				if strings.HasPrefix(s[i:], lit) && !identByte(prevByte(s, i)) && !identByte(byteAt(s, i+len(lit))) {
					b.WriteString(repl)
					i += len(lit) - 1
					python = true
					ch = 0
					break
				}
			}
			if ch == 0 {
				continue
			}
		}
		b.WriteByte(ch)
	}
	if inStr {
		b.WriteByte('"')
		truncated = true
	}
	out := b.String()
	if len(stack) > 0 {
		out = strings.TrimRight(out, " \t\r\n")
		if strings.HasSuffix(out, ",") {
			out = out[:len(out)-1]
		}
		for i := len(stack) - 1; i >= 0; i-- {
			out += string(stack[i])
		}
		truncated = true
	}
	var steps []string
	if trailing {
		steps = append(steps, "removing trailing commas")
	}
	if python {
		steps = append(steps, "replacing Python literals")
	}
	if truncated {
		steps = append(steps, "closing unterminated strings/brackets")
	}
	return out, steps
}

func byteAt(s string, i int) byte {
	if i < 0 || i >= len(s) {
		return 0
	}
	return s[i]
}

func prevByte(s string, i int) byte { return byteAt(s, i-1) }

func identByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
