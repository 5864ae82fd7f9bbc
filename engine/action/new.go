package action

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// New builds an action strictly, for Lua bindings and playbooks: typ is an
// action or tool name; an unknown type or parameter, a missing required
// parameter or a value of the wrong kind is an error naming the parameter
// and the expected kind. Integral float64 values (Lua numbers) are accepted
// for integers. Optional parameters get their seed defaults.
func New(typ string, params map[string]any) (Action, error) {
	return NewWithDefaults(typ, params, nil)
}

// NewWithDefaults is New with config overrides of the defaults (see
// Defaults); invalid overrides are ignored.
func NewWithDefaults(typ string, params map[string]any, d Defaults) (Action, error) {
	s := lookup(typ)
	if s == nil {
		return Action{}, fmt.Errorf("action: unknown action type %q (known: %s)", typ, actionNames())
	}
	for _, k := range sortedKeys(params) {
		if s.index(k) < 0 {
			return Action{}, fmt.Errorf("action %s: unknown parameter %q (parameters: %s)", s.Name, k, paramNames(s))
		}
	}
	out := make(map[string]any, len(s.Params))
	var ignored []string
	for i := range s.Params {
		p := &s.Params[i]
		v := params[p.Name]
		if v == nil {
			if p.Required {
				return Action{}, fmt.Errorf("action %s: missing required parameter %q (%s)", s.Name, p.Name, kindPhrase(p))
			}
			if def := defaultFor(s, p, d, &ignored); def != nil {
				out[p.Name] = def
			}
			continue
		}
		nv, err := strictValue(s, p, v)
		if err != nil {
			return Action{}, err
		}
		out[p.Name] = nv
	}
	return Action{Type: s.Name, Params: out}, nil
}

// strictValue checks v against the parameter without loose conversions.
func strictValue(s *Spec, p *Param, v any) (any, error) {
	bad := func() error {
		return fmt.Errorf("action %s: parameter %q must be %s, got %s", s.Name, p.Name, kindPhrase(p), typed(v))
	}
	var out any
	switch p.Kind {
	case KindInt:
		f, ok := toFloat(v, false)
		if !ok || f != math.Trunc(f) || math.Abs(f) > maxExactInt {
			return nil, bad()
		}
		out = int(f)
	case KindNumber:
		f, ok := toFloat(v, false)
		if !ok {
			return nil, bad()
		}
		out = f
	case KindString:
		str, ok := v.(string)
		if !ok && p.numText {
			if f, isNum := toFloat(v, false); isNum && f == math.Trunc(f) && f >= 0 && f <= maxExactInt {
				str, ok = strconv.FormatFloat(f, 'f', -1, 64), true
			}
		}
		if !ok {
			return nil, bad()
		}
		out = str
	case KindBool:
		b, ok := v.(bool)
		if !ok {
			return nil, bad()
		}
		out = b
	case KindEnum:
		str, ok := v.(string)
		if !ok || !contains(p.Enum, str) {
			return nil, bad()
		}
		out = str
	case KindObject:
		if _, ok := v.(map[string]any); !ok {
			return nil, bad()
		}
		w := walker{strict: true}
		o, _, err := w.walk(v, p.schema(), p.Name)
		if err != nil {
			return nil, fmt.Errorf("action %s: parameter %s", s.Name, err)
		}
		out = o
	}
	if p.canon != nil {
		c, ok := p.canon(out)
		if !ok {
			return nil, bad()
		}
		out = c
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func actionNames() string {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	return strings.Join(names, ", ")
}

func paramNames(s *Spec) string {
	names := make([]string, len(s.Params))
	for i, p := range s.Params {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}
