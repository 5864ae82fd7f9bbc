package playbooks

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/openpocket/openpocket/lua/luasrc"
)

// Expressions in generated Lua: literals, typed values, interpolated
// strings, selectors and conditions, and the checks on ${...} names.

// Optional fields of a node render as "" when unset, which g.opts leaves
// out of the options table.

// typedOpt renders an optional value with typed.
func (g *gen) typedOpt(v *Value) string {
	if v == nil {
		return ""
	}
	return g.typed(v)
}

// strOpt renders an optional interpolated string.
func (g *gen) strOpt(s *Str) string {
	if s == nil {
		return ""
	}
	return g.str(s)
}

func intOpt(v *int) string {
	if v == nil {
		return ""
	}
	return strconv.Itoa(*v)
}

func boolLit(b bool) string {
	if !b {
		return ""
	}
	return "true"
}

// pointXY returns Lua expressions for a point; percentages use
// device.size() (evaluated once per step).
func (g *gen) pointXY(pt *Value) (string, string) {
	x, y := pt.List[0].Num, pt.List[1].Num
	if !pt.Bool {
		return numLit(x), numLit(y)
	}
	if !g.sized {
		g.sized = true
		g.w.f("local w, h = %s.size()", g.use("device"))
	}
	return fmt.Sprintf("math.floor(w * %s / 100)", numLit(x)), fmt.Sprintf("math.floor(h * %s / 100)", numLit(y))
}

func (g *gen) cond(c *Cond, s *Step) string {
	if c == nil {
		return "false"
	}
	ms := "0"
	if s.Timeout > 0 {
		ms = strconv.FormatInt(s.Timeout.Milliseconds(), 10)
	}
	switch c.Kind {
	case "visible":
		g.use("ui")
		return fmt.Sprintf("flow.visible(%s, %s)", g.sel(c.Sel), ms)
	case "gone":
		g.use("ui")
		return fmt.Sprintf("flow.gone(%s, %s)", g.sel(c.Sel), ms)
	}
	g.checkExpr(c.Expr, c.Pos, s.Path)
	return "(" + c.Expr + ")"
}

func (g *gen) intExpr(v *Value) string {
	if e, ok := exprOf(v); ok {
		g.checkExpr(e, v.Pos, "")
		return fmt.Sprintf("flow.int(%s, %s)", e, luasrc.Quote(e))
	}
	return g.literal(v)
}

func (g *gen) listExpr(v *Value, s *Step) string {
	if v == nil {
		return "{}"
	}
	if v.Kind == VString {
		if st, ok := v.Str.Static(); ok && isIdent(st) {
			if !g.known(st) {
				g.warn(v.Pos, s.Path, "unknown variable %q in for_each in:", st)
			}
			return st
		}
		if e, ok := v.Str.Whole(); ok {
			g.checkExpr(e, v.Pos, s.Path)
			return "(" + e + ")"
		}
	}
	return g.literal(v)
}

// sel renders a selector as a Lua string or table.
func (g *gen) sel(s *Selector) string {
	if s == nil {
		return "nil"
	}
	if s.Short != nil {
		return g.str(s.Short)
	}
	var parts []string
	for _, f := range s.Fields {
		parts = append(parts, f.Name+" = "+g.typed(f.Value))
	}
	// A relation named more than once (contains: [a, b]) becomes a list.
	count := map[string]int{}
	for _, r := range s.Relations {
		count[r.Name]++
	}
	var listed []string
	lists := map[string][]string{}
	for _, r := range s.Relations {
		if count[r.Name] == 1 {
			parts = append(parts, r.Name+" = "+g.sel(r.Sel))
			continue
		}
		if lists[r.Name] == nil {
			listed = append(listed, r.Name)
		}
		lists[r.Name] = append(lists[r.Name], g.sel(r.Sel))
	}
	for _, name := range listed {
		parts = append(parts, name+" = {"+strings.Join(lists[name], ", ")+"}")
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// literal renders a value; strings are always strings (interpolated).
func (g *gen) literal(v *Value) string {
	if v == nil {
		return "nil"
	}
	switch v.Kind {
	case VNull:
		return "nil"
	case VBool:
		return strconv.FormatBool(v.Bool)
	case VInt:
		return strconv.FormatInt(v.Int, 10)
	case VNumber:
		return numLit(v.Num)
	case VString:
		return g.str(v.Str)
	case VList, VMap:
		return luaTable(v, g.literal)
	}
	return "nil"
}

// luaTable renders a list or map value as a Lua table constructor, each
// element rendered by elem.
func luaTable(v *Value, elem func(*Value) string) string {
	var parts []string
	if v.Kind == VList {
		parts = make([]string, len(v.List))
		for i, c := range v.List {
			parts[i] = elem(c)
		}
	} else {
		parts = make([]string, len(v.Keys))
		for i, k := range v.Keys {
			parts[i] = luaKey(k) + " = " + elem(v.Map[i])
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// typed renders a value where a whole ${expr} keeps its Lua type.
func (g *gen) typed(v *Value) string {
	if e, ok := exprOf(v); ok {
		g.checkExpr(e, v.Pos, "")
		return "(" + e + ")"
	}
	if v.Kind == VList || v.Kind == VMap {
		return luaTable(v, g.typed)
	}
	return g.literal(v)
}

func numLit(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// str renders an interpolated string: "a" .. flow.str(expr, "expr") .. "b".
func (g *gen) str(s *Str) string {
	if st, ok := s.Static(); ok {
		return luasrc.Quote(st)
	}
	parts := make([]string, 0, len(s.Parts))
	for _, p := range s.Parts {
		if p.IsExpr {
			g.checkExpr(p.Text, s.Pos, "")
			parts = append(parts, fmt.Sprintf("flow.str(%s, %s)", p.Text, luasrc.Quote("${"+p.Text+"}")))
		} else if p.Text != "" {
			parts = append(parts, luasrc.Quote(p.Text))
		}
	}
	return strings.Join(parts, " .. ")
}

func (g *gen) known(name string) bool {
	for i := len(g.scope) - 1; i >= 0; i-- {
		if g.scope[i][name] {
			return true
		}
	}
	return luaGlobals[name] || contains(luaModules, name)
}

// checkExpr warns about unknown variables in a Lua expression and notes
// the modules it uses.
func (g *gen) checkExpr(expr string, pos Pos, path string) {
	for _, id := range freeNames(expr) {
		if contains(luaModules, id) {
			g.use(id)
			continue
		}
		if !g.known(id) {
			g.warn(pos, path, "unknown variable %q in expression %q (params and variables: %s)", id, expr, strings.Join(g.scopeNames(), ", "))
		}
	}
}

func (g *gen) scanModules(code string) {
	for _, id := range freeNames(code) {
		if contains(luaModules, id) {
			g.use(id)
		}
	}
}

func (g *gen) scopeNames() []string {
	var out []string
	for _, s := range g.scope {
		for k := range s {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// freeNames returns the identifiers of a Lua expression that are not field
// names (after . or :), keywords or table-constructor keys.
func freeNames(expr string) []string {
	var out []string
	seen := map[string]bool{}
	prev := byte(0) // last non-space character
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '"' || c == '\'':
			i++
			for i < len(expr) && expr[i] != c {
				if expr[i] == '\\' {
					i++
				}
				i++
			}
			i++
			prev = c
		case c == '[' && i+1 < len(expr) && (expr[i+1] == '[' || expr[i+1] == '='):
			end := strings.Index(expr[i:], "]]")
			if end < 0 {
				return out
			}
			i += end + 2
			prev = ']'
		case c == '-' && strings.HasPrefix(expr[i:], "--"):
			nl := strings.IndexByte(expr[i:], '\n')
			if nl < 0 {
				return out
			}
			i += nl
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(expr) && (expr[j] == '_' || expr[j] >= 'a' && expr[j] <= 'z' || expr[j] >= 'A' && expr[j] <= 'Z' || expr[j] >= '0' && expr[j] <= '9') {
				j++
			}
			id := expr[i:j]
			k := j
			for k < len(expr) && (expr[k] == ' ' || expr[k] == '\t') {
				k++
			}
			isKey := k < len(expr) && expr[k] == '=' && !(k+1 < len(expr) && expr[k+1] == '=')
			if prev != '.' && prev != ':' && !luaKeywords[id] && !isKey && !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
			i = j
			prev = 'a'
		case c >= '0' && c <= '9':
			for i < len(expr) && (expr[i] == '.' || expr[i] == 'x' || expr[i] >= '0' && expr[i] <= '9' || expr[i] >= 'a' && expr[i] <= 'f' || expr[i] >= 'A' && expr[i] <= 'F') {
				i++
			}
			prev = '0'
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		default:
			if c == '.' && i+1 < len(expr) && expr[i+1] == '.' {
				prev = '+' // concatenation, not a field access
				i += 2
				continue
			}
			prev = c
			i++
		}
	}
	return out
}
