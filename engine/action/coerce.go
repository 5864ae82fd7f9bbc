package action

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxExactInt bounds integers accepted for KindInt: beyond it float64 input
// is no longer exact, and no parameter needs such values.
const maxExactInt = 1 << 53

// toFloat converts numeric Go values (and, when loose, numeric strings) to
// float64. ok is false for anything else, NaN and ±Inf included.
func toFloat(v any, loose bool) (float64, bool) {
	var f float64
	switch n := v.(type) {
	case float64:
		f = n
	case float32:
		f = float64(n)
	case int:
		f = float64(n)
	case int8:
		f = float64(n)
	case int16:
		f = float64(n)
	case int32:
		f = float64(n)
	case int64:
		f = float64(n)
	case uint:
		f = float64(n)
	case uint8:
		f = float64(n)
	case uint16:
		f = float64(n)
	case uint32:
		f = float64(n)
	case uint64:
		f = float64(n)
	case json.Number:
		p, err := strconv.ParseFloat(string(n), 64)
		if err != nil {
			return 0, false
		}
		f = p
	case string:
		if !loose {
			return 0, false
		}
		p, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
		if err != nil {
			return 0, false
		}
		f = p
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// coerceInt converts v to an int, rounding non-integers (rounded reports it).
func coerceInt(v any, loose bool) (n int, ok, rounded bool) {
	f, ok := toFloat(v, loose)
	if !ok || math.Abs(f) > maxExactInt {
		return 0, false, false
	}
	r := math.Round(f)
	return int(r), true, r != f
}

// coerceString accepts strings and renders numbers and booleans as text
// ("12" for 12.0) so that e.g. elementId: 12 or text: 2024 work.
func coerceString(v any) (string, bool) {
	switch s := v.(type) {
	case string:
		return s, true
	case bool:
		return strconv.FormatBool(s), true
	case json.Number:
		return string(s), true
	}
	if f, ok := toFloat(v, false); ok {
		return strconv.FormatFloat(f, 'f', -1, 64), true
	}
	return "", false
}

// coerceBool accepts booleans, "true"/"false"/"yes"/"no"/"1"/"0" (any case)
// and the numbers 0 and 1.
func coerceBool(v any) (bool, bool) {
	switch b := v.(type) {
	case bool:
		return b, true
	case string:
		switch strings.ToLower(strings.TrimSpace(b)) {
		case "true", "yes", "1":
			return true, true
		case "false", "no", "0":
			return false, true
		}
		return false, false
	}
	if f, ok := toFloat(v, false); ok {
		switch f {
		case 0:
			return false, true
		case 1:
			return true, true
		}
	}
	return false, false
}

// coerceEnum matches s case-insensitively against the allowed values.
func coerceEnum(v any, enum []string) (string, bool) {
	s, ok := v.(string)
	if !ok {
		return "", false
	}
	s = strings.TrimSpace(s)
	for _, e := range enum {
		if s == e || strings.EqualFold(s, e) {
			return e, true
		}
	}
	return "", false
}

// keyAliases maps common key names to Android key code names.
var keyAliases = map[string]string{
	"RETURN":      "ENTER",
	"BACKSPACE":   "DEL",
	"RECENTS":     "APP_SWITCH",
	"RECENT":      "APP_SWITCH",
	"RECENT_APPS": "APP_SWITCH",
	"ESC":         "ESCAPE",
}

// canonKeycode turns "home", "HOME", "KEYCODE_HOME" and "volume up" into
// "KEYCODE_HOME" / "KEYCODE_VOLUME_UP"; numeric key codes stay numbers ("3").
func canonKeycode(v any) (any, bool) {
	s := strings.TrimSpace(v.(string))
	if s == "" || len(s) > 64 {
		return nil, false
	}
	if isDigits(s) {
		n, err := strconv.Atoi(s)
		if err != nil || n > 1<<20 {
			return nil, false
		}
		return strconv.Itoa(n), true
	}
	s = strings.ToUpper(s)
	s = strings.NewReplacer(" ", "_", "-", "_").Replace(s)
	s = strings.TrimPrefix(s, "KEYCODE_")
	if a, ok := keyAliases[s]; ok {
		s = a
	}
	if s == "" {
		return nil, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return nil, false
		}
	}
	return "KEYCODE_" + s, true
}

// canonElementID trims the id; numbers were already rendered as text.
func canonElementID(v any) (any, bool) {
	return strings.TrimSpace(v.(string)), true
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// kindPhrase describes what a parameter must be, for notes and errors.
func kindPhrase(p *Param) string {
	if p.expect != "" {
		return p.expect
	}
	switch p.Kind {
	case KindInt:
		return "an integer"
	case KindNumber:
		return "a number"
	case KindString:
		return "a string"
	case KindBool:
		return "a boolean"
	case KindEnum:
		return "one of " + strings.Join(p.Enum, "|")
	case KindObject:
		return "an object"
	}
	return "valid"
}

// describe renders a value briefly for notes and errors.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(truncate(x, 80))
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return truncate(fmt.Sprintf("%v", v), 40)
}

// typed describes a value with its type, for strict errors: string "abc".
func typed(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string " + describe(v)
	case bool:
		return "boolean " + describe(v)
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case float64, float32:
		return "number " + describe(v)
	}
	if _, ok := toFloat(v, false); ok {
		return "number " + describe(v)
	}
	return fmt.Sprintf("%T", v)
}

// truncate cuts s to at most n runes, adding "…".
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// zero is the zero value of a kind, used for required parameters without a
// default.
func zero(k Kind) any {
	switch k {
	case KindInt:
		return 0
	case KindNumber:
		return 0.0
	case KindBool:
		return false
	case KindObject:
		return map[string]any{}
	}
	return ""
}
