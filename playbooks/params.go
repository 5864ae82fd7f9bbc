package playbooks

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The params header: declared parameters, their types and the conversion
// of given values.

func (p *parser) params(n *yaml.Node) []*Param {
	if n.Kind != yaml.MappingNode {
		if !isNull(n) {
			p.errAt(n, "params", "expected a mapping of parameter names, got %s", describeNode(n))
		}
		return nil
	}
	var out []*Param
	p.eachPair(n, "params", func(name string, kn, v *yaml.Node) {
		path := "params." + name
		if !p.checkVarName(kn, path, "parameter", name) {
			return
		}
		prm := &Param{Name: name, Pos: p.pos(kn)}
		if v.Kind == yaml.MappingNode {
			var typeNode *yaml.Node
			p.eachPair(v, path, func(k string, kk, vv *yaml.Node) {
				switch k {
				case "type":
					prm.Type = p.scalarString(vv, path+".type")
					typeNode = vv
				case "default":
					prm.Default = p.value(vv, path+".default", false)
				case "required":
					prm.Required = p.boolean(vv, path+".required")
				case "secret":
					prm.Secret = p.boolean(vv, path+".secret")
				case "description", "doc":
				default:
					p.errAt(kk, path, "unknown key %q in parameter%s (valid keys: type, default, required, secret, description)", k, didYouMean(k, []string{"type", "default", "required", "secret", "description"}))
				}
			})
			if prm.Type == "" {
				prm.Type = inferType(prm.Default)
			} else if !contains(paramTypes, prm.Type) {
				p.errAt(typeNode, path+".type", "unknown parameter type %q%s (types: %s)", prm.Type, didYouMean(prm.Type, paramTypes), strings.Join(paramTypes, ", "))
				prm.Type = "string"
			}
		} else {
			if !isNull(v) {
				prm.Default = p.value(v, path, false)
			}
			prm.Type = inferType(prm.Default)
		}
		if prm.Default != nil && prm.Default.Kind != VNull {
			if cv, msg := convertValue(prm.Default, prm.Type); msg != "" {
				p.errPos(prm.Default.Pos, path+".default", "default %s", msg)
			} else {
				prm.Default = cv
			}
		}
		out = append(out, prm)
	})
	return out
}

func inferType(v *Value) string {
	if v == nil {
		return "string"
	}
	switch v.Kind {
	case VBool:
		return "bool"
	case VInt:
		return "int"
	case VNumber:
		return "number"
	case VList:
		return "list"
	}
	return "string"
}

// convertValue checks a literal against a parameter type; strings are
// parsed ("3" for an int). msg is "" when it fits.
func convertValue(v *Value, typ string) (*Value, string) {
	if v.Kind == VString {
		if _, whole := v.Str.Whole(); whole {
			return v, ""
		}
	}
	bad := func() (*Value, string) {
		return v, fmt.Sprintf("must be %s, got %s", typePhrase(typ), describeValue(v))
	}
	switch typ {
	case "string":
		switch v.Kind {
		case VString:
			return v, ""
		case VInt, VNumber, VBool:
			s := scalarText(v)
			return &Value{Kind: VString, Pos: v.Pos, Str: &Str{Raw: s, Parts: []StrPart{{Text: s}}, Pos: v.Pos}}, ""
		}
		return bad()
	case "int":
		switch v.Kind {
		case VInt:
			return v, ""
		case VNumber:
			if v.Num == math.Trunc(v.Num) && math.Abs(v.Num) < 1<<53 {
				return &Value{Kind: VInt, Pos: v.Pos, Int: int64(v.Num)}, ""
			}
		case VString:
			if s, ok := v.Str.Static(); ok {
				if n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil {
					return &Value{Kind: VInt, Pos: v.Pos, Int: n}, ""
				}
			}
		}
		return bad()
	case "number":
		switch v.Kind {
		case VInt:
			return &Value{Kind: VNumber, Pos: v.Pos, Num: float64(v.Int)}, ""
		case VNumber:
			return v, ""
		case VString:
			if s, ok := v.Str.Static(); ok {
				if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
					return &Value{Kind: VNumber, Pos: v.Pos, Num: f}, ""
				}
			}
		}
		return bad()
	case "bool":
		switch v.Kind {
		case VBool:
			return v, ""
		case VString:
			if s, ok := v.Str.Static(); ok {
				if b, err := strconv.ParseBool(strings.TrimSpace(s)); err == nil {
					return &Value{Kind: VBool, Pos: v.Pos, Bool: b}, ""
				}
			}
		}
		return bad()
	case "list":
		switch v.Kind {
		case VList:
			return v, ""
		case VString:
			return convertList(v)
		}
		return bad()
	}
	return v, ""
}

func typePhrase(t string) string {
	switch t {
	case "int":
		return "an integer"
	case "number":
		return "a number"
	case "bool":
		return "a boolean"
	case "list":
		return "a list"
	}
	return "a string"
}

func scalarText(v *Value) string {
	switch v.Kind {
	case VBool:
		return strconv.FormatBool(v.Bool)
	case VInt:
		return strconv.FormatInt(v.Int, 10)
	case VNumber:
		return strconv.FormatFloat(v.Num, 'g', -1, 64)
	case VString:
		return v.Str.Raw
	}
	return ""
}

func describeValue(v *Value) string {
	switch v.Kind {
	case VNull:
		return "null"
	case VBool:
		return "boolean " + scalarText(v)
	case VInt:
		return "integer " + scalarText(v)
	case VNumber:
		return "number " + scalarText(v)
	case VString:
		s := v.Str.Raw
		if len(s) > 40 {
			s = s[:40] + "…"
		}
		return fmt.Sprintf("string %q", s)
	case VList:
		return "a list"
	}
	return "a mapping"
}

// convertList is a list parameter given as text: "a,b,c" from -e, or a
// JSON array (decoded at run time, checked now so a typo is a compile
// error naming the parameter). An interpolated string stays as it is.
func convertList(v *Value) (*Value, string) {
	s, ok := v.Str.Static()
	if !ok {
		return v, ""
	}
	if strings.HasPrefix(strings.TrimSpace(s), "[") {
		var list []any
		if err := json.Unmarshal([]byte(s), &list); err != nil {
			return v, fmt.Sprintf("must be a list (a, b, c or a JSON array), got invalid JSON %q: %v", s, err)
		}
		return v, ""
	}
	l := &Value{Kind: VList, Pos: v.Pos}
	if strings.TrimSpace(s) != "" {
		for _, part := range strings.Split(s, ",") {
			part = strings.TrimSpace(part)
			l.List = append(l.List, &Value{Kind: VString, Pos: v.Pos, Str: &Str{Raw: part, Parts: []StrPart{{Text: part}}, Pos: v.Pos}})
		}
	}
	return l, ""
}
