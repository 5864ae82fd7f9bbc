package maestro

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// A small translator from the JavaScript Maestro flows embed (${…},
// evalScript, runScript, when.true, assertTrue) to Lua. It accepts simple
// expressions only — literals, names, member access, arithmetic, string
// concatenation, comparisons, logic, Date.now(), maestro.copiedText — and
// statements of the form `output.x = expr` / `var x = expr`. Anything else
// is an error, and the caller keeps the JavaScript as a commented TODO.
// There is no JavaScript engine: Lua stays the one execution medium.

type jsTok struct {
	kind string // num, str, ident, op, eof
	text string
}

func jsLex(src string) ([]jsTok, error) {
	var out []jsTok
	ops := []string{"===", "!==", "==", "!=", "<=", ">=", "&&", "||", "+", "-", "*", "/", "%", "<", ">", "!", "(", ")", ".", ",", "="}
	for i := 0; i < len(src); {
		c := rune(src[i])
		switch {
		case unicode.IsSpace(c) || c == ';':
			i++
		case c >= '0' && c <= '9':
			j := i
			for j < len(src) && (src[j] >= '0' && src[j] <= '9' || src[j] == '.') {
				j++
			}
			out = append(out, jsTok{"num", src[i:j]})
			i = j
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			var sb strings.Builder
			for j < len(src) && rune(src[j]) != c {
				if src[j] == '\\' && j+1 < len(src) {
					j++
					switch src[j] {
					case 'n':
						sb.WriteByte('\n')
					case 't':
						sb.WriteByte('\t')
					default:
						sb.WriteByte(src[j])
					}
					j++
					continue
				}
				if c == '`' && src[j] == '$' && j+1 < len(src) && src[j+1] == '{' {
					return nil, fmt.Errorf("template literals with ${} are not translated")
				}
				sb.WriteByte(src[j])
				j++
			}
			if j >= len(src) {
				return nil, fmt.Errorf("unterminated string")
			}
			out = append(out, jsTok{"str", sb.String()})
			i = j + 1
		case c == '_' || c == '$' || unicode.IsLetter(c):
			j := i
			for j < len(src) && (src[j] == '_' || src[j] == '$' || unicode.IsLetter(rune(src[j])) || unicode.IsDigit(rune(src[j]))) {
				j++
			}
			out = append(out, jsTok{"ident", src[i:j]})
			i = j
		default:
			matched := false
			for _, op := range ops {
				if strings.HasPrefix(src[i:], op) {
					out = append(out, jsTok{"op", op})
					i += len(op)
					matched = true
					break
				}
			}
			if !matched {
				return nil, fmt.Errorf("unsupported character %q", c)
			}
		}
	}
	return append(out, jsTok{kind: "eof"}), nil
}

// jsExpr is a translated expression: Lua source and whether it is known to
// be a string or a number (for + as concatenation or addition).
type jsExpr struct {
	lua  string
	kind string // "string", "number", "bool" or "" (unknown)
}

type jsParser struct {
	toks []jsTok
	i    int
	vars map[string]bool // free names used (params, variables)
}

func (p *jsParser) peek() jsTok { return p.toks[p.i] }
func (p *jsParser) next() jsTok { t := p.toks[p.i]; p.i++; return t }

func (p *jsParser) accept(op string) bool {
	if t := p.peek(); t.kind == "op" && t.text == op {
		p.i++
		return true
	}
	return false
}

var jsBinary = []struct {
	ops []string
}{
	{[]string{"||"}}, {[]string{"&&"}}, {[]string{"===", "!==", "==", "!="}},
	{[]string{"<=", ">=", "<", ">"}}, {[]string{"+", "-"}}, {[]string{"*", "/", "%"}},
}

func (p *jsParser) binary(level int) (jsExpr, error) {
	if level == len(jsBinary) {
		return p.unary()
	}
	left, err := p.binary(level + 1)
	if err != nil {
		return left, err
	}
	for {
		t := p.peek()
		if t.kind != "op" || !contains(jsBinary[level].ops, t.text) {
			return left, nil
		}
		p.next()
		right, err := p.binary(level + 1)
		if err != nil {
			return left, err
		}
		left = combine(t.text, left, right)
	}
}

func combine(op string, l, r jsExpr) jsExpr {
	switch op {
	case "||":
		return jsExpr{"(" + l.lua + " or " + r.lua + ")", ""}
	case "&&":
		return jsExpr{"(" + l.lua + " and " + r.lua + ")", ""}
	case "===", "==":
		return jsExpr{"(" + l.lua + " == " + r.lua + ")", "bool"}
	case "!==", "!=":
		return jsExpr{"(" + l.lua + " ~= " + r.lua + ")", "bool"}
	case "<", ">", "<=", ">=":
		return jsExpr{"(" + numeric(l) + " " + op + " " + numeric(r) + ")", "bool"}
	case "+":
		if l.kind == "string" || r.kind == "string" {
			return jsExpr{"(" + stringy(l) + " .. " + stringy(r) + ")", "string"}
		}
		if l.kind == "number" && r.kind == "number" {
			return jsExpr{"(" + l.lua + " + " + r.lua + ")", "number"}
		}
		// Unknown operands: JavaScript adds numbers and concatenates
		// anything else; env values are strings, so decide at run time.
		return jsExpr{"flow.js_add(" + l.lua + ", " + r.lua + ")", ""}
	case "%":
		return jsExpr{"math.fmod(" + numeric(l) + ", " + numeric(r) + ")", "number"}
	}
	return jsExpr{"(" + numeric(l) + " " + op + " " + numeric(r) + ")", "number"}
}

func numeric(e jsExpr) string {
	if e.kind == "number" {
		return e.lua
	}
	return "tonumber(" + e.lua + ")"
}

func stringy(e jsExpr) string {
	if e.kind == "string" {
		return e.lua
	}
	return "tostring(" + e.lua + ")"
}

func (p *jsParser) unary() (jsExpr, error) {
	if p.accept("!") {
		e, err := p.unary()
		return jsExpr{"(not " + e.lua + ")", "bool"}, err
	}
	if p.accept("-") {
		e, err := p.unary()
		return jsExpr{"(-" + numeric(e) + ")", "number"}, err
	}
	return p.primary()
}

// jsCalls maps the global functions the translator knows.
var jsCalls = map[string]struct {
	lua, kind string
	args      int
}{
	"Date.now": {"time.now_ms()", "number", 0}, "parseInt": {"math.floor(tonumber(%s))", "number", 1},
	"parseFloat": {"tonumber(%s)", "number", 1}, "Number": {"tonumber(%s)", "number", 1},
	"String": {"tostring(%s)", "string", 1}, "Math.floor": {"math.floor(%s)", "number", 1},
	"Math.ceil": {"math.ceil(%s)", "number", 1}, "Math.round": {"math.floor(%s + 0.5)", "number", 1},
	"Math.abs": {"math.abs(%s)", "number", 1}, "Math.random": {"math.random()", "number", 0},
}

func (p *jsParser) primary() (jsExpr, error) {
	t := p.next()
	switch t.kind {
	case "num":
		if _, err := strconv.ParseFloat(t.text, 64); err != nil {
			return jsExpr{}, fmt.Errorf("bad number %q", t.text)
		}
		return jsExpr{t.text, "number"}, nil
	case "str":
		return jsExpr{strconv.Quote(t.text), "string"}, nil
	case "op":
		if t.text == "(" {
			e, err := p.binary(0)
			if err != nil {
				return e, err
			}
			if !p.accept(")") {
				return e, fmt.Errorf("missing )")
			}
			return jsExpr{"(" + e.lua + ")", e.kind}, nil
		}
		return jsExpr{}, fmt.Errorf("unexpected %q", t.text)
	case "ident":
		return p.name(t.text)
	}
	return jsExpr{}, fmt.Errorf("unexpected end of expression")
}

func (p *jsParser) name(first string) (jsExpr, error) {
	path := []string{first}
	for p.accept(".") {
		t := p.next()
		if t.kind != "ident" {
			return jsExpr{}, fmt.Errorf("expected a name after '.'")
		}
		path = append(path, t.text)
	}
	full := strings.Join(path, ".")
	if p.accept("(") {
		call, ok := jsCalls[full]
		if !ok {
			return jsExpr{}, fmt.Errorf("call of %s() is not translated", full)
		}
		var args []string
		for !p.accept(")") {
			e, err := p.binary(0)
			if err != nil {
				return e, err
			}
			args = append(args, e.lua)
			if !p.accept(",") && p.peek().text != ")" {
				return jsExpr{}, fmt.Errorf("expected , or ) in call of %s", full)
			}
			if p.peek().kind == "eof" {
				return jsExpr{}, fmt.Errorf("missing ) in call of %s", full)
			}
		}
		if len(args) != call.args {
			return jsExpr{}, fmt.Errorf("%s() takes %d argument(s), got %d", full, call.args, len(args))
		}
		if call.args == 0 {
			return jsExpr{call.lua, call.kind}, nil
		}
		return jsExpr{fmt.Sprintf(call.lua, args[0]), call.kind}, nil
	}
	switch {
	case full == "true" || full == "false":
		return jsExpr{full, "bool"}, nil
	case full == "null" || full == "undefined":
		return jsExpr{"nil", ""}, nil
	case full == "maestro.copiedText":
		p.vars["copied_text"] = true
		return jsExpr{"copied_text", ""}, nil
	case full == "maestro.platform":
		return jsExpr{`"android"`, "string"}, nil
	case len(path) >= 2 && path[len(path)-1] == "length" && (len(path) == 2 || path[0] == "output"):
		p.vars[path[0]] = true
		return jsExpr{"#tostring(" + strings.Join(path[:len(path)-1], ".") + ")", "number"}, nil
	case len(path) > 1 && path[0] != "output":
		return jsExpr{}, fmt.Errorf("%s is not translated", full)
	}
	if luaKeywords[first] {
		return jsExpr{}, fmt.Errorf("%q is a Lua keyword", first)
	}
	p.vars[first] = true
	return jsExpr{full, ""}, nil
}

var luaKeywords = map[string]bool{
	"and": true, "break": true, "do": true, "else": true, "elseif": true, "end": true, "for": true, "function": true,
	"if": true, "in": true, "local": true, "nil": true, "not": true, "or": true, "repeat": true, "return": true,
	"then": true, "until": true, "while": true, "goto": true,
}

// JSExpr translates one JavaScript expression to Lua; vars receives the
// free names it uses.
func JSExpr(src string, vars map[string]bool) (string, error) {
	toks, err := jsLex(src)
	if err != nil {
		return "", err
	}
	p := &jsParser{toks: toks, vars: vars}
	e, err := p.binary(0)
	if err != nil {
		return "", err
	}
	if t := p.peek(); t.kind != "eof" {
		return "", fmt.Errorf("unexpected %q after the expression", t.text)
	}
	return stripParens(e.lua), nil
}

// stripParens drops one pair of parentheses around the whole expression.
func stripParens(s string) string {
	if !strings.HasPrefix(s, "(") || !strings.HasSuffix(s, ")") {
		return s
	}
	depth := 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 && i != len(s)-1 {
				return s // the first paren closes early: (a) + (b)
			}
		}
	}
	return s[1 : len(s)-1]
}

// JSStatements translates a script of assignments (`output.x = expr`,
// `var x = expr`, `x = expr`) into Lua lines.
func JSStatements(src string, vars map[string]bool) ([]string, error) {
	var lines []string
	for _, raw := range splitStatements(src) {
		st := strings.TrimSpace(raw)
		if st == "" || strings.HasPrefix(st, "//") {
			continue
		}
		for _, kw := range []string{"var ", "let ", "const "} {
			st = strings.TrimPrefix(st, kw)
		}
		eq := assignIndex(st)
		if eq < 0 {
			return nil, fmt.Errorf("statement %q is not an assignment", st)
		}
		target := strings.TrimSpace(st[:eq])
		if !isTarget(target) {
			return nil, fmt.Errorf("cannot assign to %q", target)
		}
		val, err := JSExpr(st[eq+1:], vars)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", target, err)
		}
		root := strings.SplitN(target, ".", 2)[0]
		vars[root] = true
		lines = append(lines, target+" = "+val)
	}
	return lines, nil
}

func splitStatements(src string) []string {
	var out []string
	var cur strings.Builder
	var quote byte
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case quote != 0:
			if c == '\\' && i+1 < len(src) {
				cur.WriteByte(c)
				i++
				c = src[i]
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == ';' || c == '\n':
			out = append(out, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteByte(c)
	}
	return append(out, cur.String())
}

// assignIndex finds a lone '=' (not ==, <=, >=, !=).
func assignIndex(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] != '=' {
			continue
		}
		if i+1 < len(s) && s[i+1] == '=' {
			return -1
		}
		if i > 0 && strings.ContainsRune("=!<>+-*/", rune(s[i-1])) {
			return -1
		}
		return i
	}
	return -1
}

func isTarget(s string) bool {
	parts := strings.Split(s, ".")
	for _, p := range parts {
		if p == "" || luaKeywords[p] {
			return false
		}
		for i, r := range p {
			if !(r == '_' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
				return false
			}
		}
	}
	return len(parts) == 1 || parts[0] == "output"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
