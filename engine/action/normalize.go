package action

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Defaults overrides parameter defaults per action, e.g. from config:
// Defaults{"run_script": {"timeoutSec": 30}}. Keys are action names (tool
// names work too). An override wins over the seed default; an override of
// the wrong kind is ignored with a note.
type Defaults map[string]map[string]any

// Check reports the first override that names an unknown action or
// parameter or has the wrong kind, so config loading can reject it.
func (d Defaults) Check() error {
	names := make([]string, 0, len(d))
	for n := range d {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := lookup(n)
		if s == nil {
			return fmt.Errorf("action defaults: unknown action %q", n)
		}
		for _, pn := range sortedKeys(d[n]) {
			i := s.index(pn)
			if i < 0 {
				return fmt.Errorf("action defaults: %s has no parameter %q (parameters: %s)", s.Name, pn, paramNames(s))
			}
			if _, err := strictValue(s, &s.Params[i], d[n][pn]); err != nil {
				return fmt.Errorf("action defaults: %w", err)
			}
		}
	}
	return nil
}

// lookupDefault returns the override for the parameter, if any.
func (d Defaults) lookupDefault(s *Spec, p *Param) (any, bool) {
	if d == nil {
		return nil, false
	}
	if m, ok := d[s.Name]; ok {
		if v, ok := m[p.Name]; ok && v != nil {
			return v, true
		}
	}
	if s.ToolName != s.Name {
		if m, ok := d[s.ToolName]; ok {
			if v, ok := m[p.Name]; ok && v != nil {
				return v, true
			}
		}
	}
	return nil, false
}

// defaultFor resolves the effective default: a valid config override, else
// the seed default (nil = none). An invalid override adds a note.
func defaultFor(s *Spec, p *Param, d Defaults, notes *[]string) any {
	if v, ok := d.lookupDefault(s, p); ok {
		if nv, ok, _ := coerce(p, v, nil, ""); ok {
			return nv
		}
		*notes = append(*notes, fmt.Sprintf("config default %s.%s %s is not %s, using %s",
			s.Name, p.Name, describe(v), kindPhrase(p), describe(p.Default)))
	}
	return p.Default
}

// coerce converts a loose value to the parameter's Go kind. rounded reports
// a non-integer rounded for KindInt. Object problems are recorded as notes
// prefixed with prefix (when notes is non-nil).
func coerce(p *Param, v any, notes *[]string, prefix string) (out any, ok, rounded bool) {
	switch p.Kind {
	case KindInt:
		n, ok, r := coerceInt(v, true)
		if !ok {
			return nil, false, false
		}
		out, rounded = n, r
	case KindNumber:
		f, ok := toFloat(v, true)
		if !ok {
			return nil, false, false
		}
		out = f
	case KindString:
		s, ok := coerceString(v)
		if !ok {
			return nil, false, false
		}
		out = s
	case KindBool:
		b, ok := coerceBool(v)
		if !ok {
			return nil, false, false
		}
		out = b
	case KindEnum:
		e, ok := coerceEnum(v, p.Enum)
		if !ok {
			return nil, false, false
		}
		out = e
	case KindObject:
		if s, isStr := v.(string); isStr {
			// Models sometimes send nested objects as JSON text.
			var m map[string]any
			if json.Unmarshal([]byte(s), &m) != nil || m == nil {
				return nil, false, false
			}
			v = m
		}
		if _, isMap := v.(map[string]any); !isMap {
			return nil, false, false
		}
		w := walker{}
		o, ok, _ := w.walk(v, p.schema(), p.Name)
		if notes != nil {
			for _, n := range w.notes {
				*notes = append(*notes, prefix+n)
			}
		}
		if !ok {
			return nil, false, false
		}
		out = o
	default:
		return nil, false, false
	}
	if p.canon != nil {
		c, ok := p.canon(out)
		if !ok {
			return nil, false, false
		}
		out = c
	}
	return out, true, rounded
}

// pointAlias lets an [x, y] array stand for two coordinate parameters.
type pointAlias struct {
	keys []string // accepted keys, first wins
	x, y string
}

var pointAliases = map[string][]pointAlias{
	"tap":             {{keys: []string{"coordinate", "position"}, x: "x", y: "y"}},
	"swipe":           {{keys: []string{"start"}, x: "x1", y: "y1"}, {keys: []string{"end"}, x: "x2", y: "y2"}},
	"drag":            {{keys: []string{"start"}, x: "x1", y: "y1"}, {keys: []string{"end"}, x: "x2", y: "y2"}},
	"long_press_drag": {{keys: []string{"start"}, x: "x1", y: "y1"}, {keys: []string{"end"}, x: "x2", y: "y2"}},
}

// pair splits [x, y], "x,y", "(x, y)" or "[x, y]" into two values.
func pair(v any) (any, any, bool) {
	switch l := v.(type) {
	case []any:
		if len(l) == 2 {
			return l[0], l[1], true
		}
	case []float64:
		if len(l) == 2 {
			return l[0], l[1], true
		}
	case []int:
		if len(l) == 2 {
			return l[0], l[1], true
		}
	case string:
		s := strings.Trim(strings.TrimSpace(l), "[]()")
		parts := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
		if len(parts) == 2 {
			return parts[0], parts[1], true
		}
	}
	return nil, nil, false
}

// Normalize turns a loose action object ({"type": "tap", "x": 1, ...}) into
// a valid Action. It never fails: missing or invalid values get their
// defaults, unknown parameters are dropped, an unknown or missing type
// becomes a wait. Every repair is described in the returned notes.
func Normalize(raw map[string]any, d Defaults) (Action, []string) {
	tv := raw["type"]
	name, isStr := tv.(string)
	if s := lookup(strings.ToLower(strings.TrimSpace(name))); s != nil && isStr {
		return normalizeSpec(s, raw, d, true)
	}
	var why string
	switch {
	case tv == nil:
		why = "missing type"
	case !isStr:
		why = fmt.Sprintf("type %s is not a string", describe(tv))
	default:
		why = fmt.Sprintf("unknown type %s", describe(tv))
	}
	return fallbackWait(why, raw, d)
}

// NormalizeTool turns a model tool call (tool name + arguments) into a valid
// Action, like Normalize. "type_text" becomes the type action.
func NormalizeTool(toolName string, args map[string]any, d Defaults) (Action, []string) {
	s := lookup(strings.TrimSpace(toolName))
	if s == nil {
		s = lookup(strings.ToLower(strings.TrimSpace(toolName)))
	}
	if s == nil {
		return fallbackWait(fmt.Sprintf("unknown tool %s", describe(toolName)), args, d)
	}
	// A redundant "type" naming the same action is tolerated silently.
	skip := false
	if t, ok := args["type"].(string); ok && lookup(strings.ToLower(strings.TrimSpace(t))) == s {
		skip = true
	}
	return normalizeSpec(s, args, d, skip)
}

// fallbackWait is the action for unknown input: wait (durationMs default),
// keeping a string reason.
func fallbackWait(why string, raw map[string]any, d Defaults) (Action, []string) {
	s := lookup("wait")
	var notes []string
	p := &s.Params[s.index("durationMs")]
	ms := defaultFor(s, p, d, &notes)
	notes = append(notes, fmt.Sprintf("%s: waiting %v ms", why, ms))
	params := map[string]any{"durationMs": ms}
	if r, ok := raw["reason"].(string); ok {
		params["reason"] = r
	}
	return Action{Type: "wait", Params: params}, notes
}

func normalizeSpec(s *Spec, raw map[string]any, d Defaults, skipType bool) (Action, []string) {
	var notes []string
	params := make(map[string]any, len(s.Params))
	prefix := s.Name + ": "
	aliases := pointAliases[s.Name]

	for i := range s.Params {
		p := &s.Params[i]
		v := raw[p.Name]
		if v == nil {
			v = aliasValue(s, aliases, raw, p.Name, &notes)
		}
		if v == nil {
			def := defaultFor(s, p, d, &notes)
			switch {
			case def != nil:
				params[p.Name] = def
				if p.Required {
					notes = append(notes, fmt.Sprintf("%s%s missing, using %s", prefix, p.Name, describe(def)))
				}
			case p.Required:
				z := zero(p.Kind)
				params[p.Name] = z
				notes = append(notes, fmt.Sprintf("%s%s missing, using %s", prefix, p.Name, describe(z)))
			}
			continue
		}
		out, ok, rounded := coerce(p, v, &notes, prefix)
		if ok {
			if str, isStr := out.(string); isStr && str == "" {
				if def := defaultFor(s, p, d, &notes); def != nil && def != "" {
					params[p.Name] = def
					notes = append(notes, fmt.Sprintf("%s%s is empty, using %s", prefix, p.Name, describe(def)))
					continue
				}
			}
			params[p.Name] = out
			if rounded {
				notes = append(notes, fmt.Sprintf("%s%s %s rounded to %v", prefix, p.Name, describe(v), out))
			}
			continue
		}
		def := defaultFor(s, p, d, &notes)
		if def == nil && p.Required {
			def = zero(p.Kind)
		}
		if def == nil {
			notes = append(notes, fmt.Sprintf("%s%s %s is not %s, dropped", prefix, p.Name, describe(v), kindPhrase(p)))
			continue
		}
		params[p.Name] = def
		notes = append(notes, fmt.Sprintf("%s%s %s is not %s, using %s", prefix, p.Name, describe(v), kindPhrase(p), describe(def)))
	}

	// Unknown parameters: count first so the common case allocates nothing.
	unknown := 0
	for k := range raw {
		if !knownKey(s, aliases, k, skipType) {
			unknown++
		}
	}
	if unknown > 0 {
		keys := make([]string, 0, unknown)
		for k := range raw {
			if !knownKey(s, aliases, k, skipType) {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			notes = append(notes, fmt.Sprintf("%sdropped unknown parameter %s", prefix, describe(k)))
		}
	}
	if post := postNormalize[s.Name]; post != nil {
		post(s, raw, params, &notes)
	}
	return Action{Type: s.Name, Params: params}, notes
}

func knownKey(s *Spec, aliases []pointAlias, k string, skipType bool) bool {
	if k == "type" && skipType {
		return true
	}
	if s.index(k) >= 0 {
		return true
	}
	for _, a := range aliases {
		for _, ak := range a.keys {
			if ak == k {
				return true
			}
		}
	}
	return false
}

// aliasValue returns the coordinate for name from an [x, y] alias when the
// parameter itself is missing.
func aliasValue(s *Spec, aliases []pointAlias, raw map[string]any, name string, notes *[]string) any {
	for _, a := range aliases {
		if a.x != name && a.y != name {
			continue
		}
		for _, k := range a.keys {
			v, ok := raw[k]
			if !ok || v == nil {
				continue
			}
			x, y, ok := pair(v)
			if !ok {
				if name == a.x { // report once per alias
					*notes = append(*notes, fmt.Sprintf("%s: %s %s is not an [x, y] pair, ignored", s.Name, k, describe(v)))
				}
				continue
			}
			if name == a.x {
				return x
			}
			return y
		}
	}
	return nil
}

// Parse decodes a JSON object and normalizes it. The error is reserved for
// input that is not JSON or not an object; it carries the line and column.
func Parse(data []byte, d Defaults) (Action, []string, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := position(data, se.Offset-1)
			return Action{}, nil, fmt.Errorf("action: invalid JSON at line %d, column %d: %s", line, col, se.Error())
		}
		return Action{}, nil, fmt.Errorf("action: invalid JSON: %w", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		start := len(data) - len(bytes.TrimLeft(data, " \t\r\n"))
		line, col := position(data, int64(start))
		return Action{}, nil, fmt.Errorf("action: expected a JSON object at line %d, column %d, got %s", line, col, JSONKind(v))
	}
	a, notes := Normalize(m, d)
	return a, notes, nil
}

// JSONKind names the kind of a decoded JSON value for error messages
// ("a string", "an array", "null").
func JSONKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

// position converts a byte offset to a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	if off < 0 {
		off = 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}
