package action

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// MarshalJSON writes {"type": …} followed by the parameters in spec order
// (parameters the spec does not know, if any, follow sorted by name).
func (a Action) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(64)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	buf.WriteString(`{"type":`)
	if err := enc.Encode(a.Type); err != nil {
		return nil, err
	}
	trimNewline(&buf)
	write := func(k string, v any) error {
		buf.WriteByte(',')
		if err := enc.Encode(k); err != nil {
			return err
		}
		trimNewline(&buf)
		buf.WriteByte(':')
		if err := enc.Encode(v); err != nil {
			return fmt.Errorf("action %s: parameter %q: %w", a.Type, k, err)
		}
		trimNewline(&buf)
		return nil
	}
	s := lookup(a.Type)
	var extra []string
	if s != nil {
		for i := range s.Params {
			if v, ok := a.Params[s.Params[i].Name]; ok {
				if err := write(s.Params[i].Name, v); err != nil {
					return nil, err
				}
			}
		}
	}
	for k := range a.Params {
		if s == nil || s.index(k) < 0 {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		if err := write(k, a.Params[k]); err != nil {
			return nil, err
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func trimNewline(b *bytes.Buffer) {
	if n := b.Len(); n > 0 && b.Bytes()[n-1] == '\n' {
		b.Truncate(n - 1)
	}
}

// UnmarshalJSON decodes and normalizes (see Normalize; notes are dropped).
// Only input that is not a JSON object is an error; null is a no-op, as
// encoding/json expects of unmarshalers.
func (a *Action) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		return nil
	}
	act, _, err := Parse(data, nil)
	if err != nil {
		return err
	}
	*a = act
	return nil
}

// String is a compact one-line summary for logs: tap(540,1200),
// swipe(100,800->100,200 300ms), type("hello"), shell(command="ls").
// The reason is left out.
func (a Action) String() string {
	var b strings.Builder
	b.WriteString(a.Type)
	b.WriteByte('(')
	switch a.Type {
	case "tap":
		fmt.Fprintf(&b, "%v,%v", a.Params["x"], a.Params["y"])
	case "swipe", "drag":
		fmt.Fprintf(&b, "%v,%v->%v,%v %vms", a.Params["x1"], a.Params["y1"], a.Params["x2"], a.Params["y2"], a.Params["durationMs"])
	case "long_press_drag":
		fmt.Fprintf(&b, "%v,%v->%v,%v hold %vms, %vms", a.Params["x1"], a.Params["y1"], a.Params["x2"], a.Params["y2"],
			a.Params["holdMs"], a.Params["durationMs"])
	case "wait":
		fmt.Fprintf(&b, "%vms", a.Params["durationMs"])
	case "tap_element", "keyevent", "launch_app":
		b.WriteString(short(a.Params[firstParam(a.Type)], false))
	case "type", "finish", "shell":
		b.WriteString(short(a.Params[firstParam(a.Type)], true))
	default:
		first := true
		each := func(k string, v any) {
			if k == "reason" {
				return
			}
			if !first {
				b.WriteString(", ")
			}
			first = false
			b.WriteString(k)
			b.WriteByte('=')
			b.WriteString(short(v, true))
		}
		if s := lookup(a.Type); s != nil {
			for _, p := range s.Params {
				if v, ok := a.Params[p.Name]; ok {
					each(p.Name, v)
				}
			}
		} else {
			for _, k := range sortedKeys(a.Params) {
				each(k, a.Params[k])
			}
		}
	}
	b.WriteByte(')')
	return b.String()
}

func firstParam(typ string) string { return lookup(typ).Params[0].Name }

// short renders a parameter value for String: strings quoted (when quote)
// and cut to 60 runes, objects as {…}.
func short(v any, quote bool) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		x = truncate(x, 60)
		if quote {
			return strconv.Quote(x)
		}
		return x
	case map[string]any:
		return "{…}"
	case []any:
		return "[…]"
	}
	return fmt.Sprint(v)
}
