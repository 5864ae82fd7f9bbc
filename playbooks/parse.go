package playbooks

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Parse parses one playbook file into its AST. It does not resolve run
// steps' includes (Compile does). All problems found are returned as an
// ErrorList.
func Parse(src []byte, file string) (*Playbook, error) {
	p := &parser{file: file, src: src}
	pb := p.parse()
	if len(p.errs) > 0 {
		return pb, p.errs
	}
	return pb, nil
}

type parser struct {
	file   string
	src    []byte
	errs   ErrorList
	warns  []Warning
	budget int // node visits left (guards alias expansion)
	// stepCount counts the steps parsed so far, nested ones included.
	stepCount  int
	overBudget bool // "document too large" was reported
}

const nodeBudget = 1 << 22

var headerKeys = []string{"name", "description", "app", "tags", "params", "defaults", "on_start", "on_complete", "on_failure", "watchers", "steps"}

func (p *parser) pos(n *yaml.Node) Pos {
	if n == nil {
		return Pos{File: p.file}
	}
	return Pos{File: p.file, Line: n.Line, Column: n.Column}
}

func (p *parser) errAt(n *yaml.Node, path, format string, args ...any) {
	pos := p.pos(n)
	p.errPos(pos, path, format, args...)
}

func (p *parser) errPos(pos Pos, path, format string, args ...any) {
	if len(p.errs) >= maxErrors {
		return
	}
	p.errs = append(p.errs, &Error{
		File: pos.File, Line: pos.Line, Column: pos.Column, Step: path,
		Message: fmt.Sprintf(format, args...),
		Snippet: snippet(p.src, pos.Line, pos.Column),
	})
}

func (p *parser) warnAt(pos Pos, path, format string, args ...any) {
	p.warns = append(p.warns, Warning{File: pos.File, Line: pos.Line, Column: pos.Column, Step: path, Message: fmt.Sprintf(format, args...)})
}

var yamlLine = regexp.MustCompile(`line (\d+)(?:, column (\d+))?: (.*)`)

func (p *parser) parse() *Playbook {
	pb := &Playbook{File: p.file, Pos: Pos{File: p.file, Line: 1, Column: 1}, src: p.src}
	p.budget = nodeBudget
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(p.src))
	if err := dec.Decode(&doc); err != nil {
		p.yamlError(err)
		return pb
	}
	if !p.checkAliases(&doc) {
		return pb
	}
	root := p.deref(&doc)
	if root != nil && root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = p.deref(root.Content[0])
	}
	if root == nil || isNull(root) {
		p.errPos(Pos{File: p.file, Line: 1, Column: 1}, "", "empty playbook: expected a mapping with steps:")
		return pb
	}
	if root.Kind == yaml.SequenceNode {
		// A bare list of steps.
		pb.Steps = p.steps(root, "steps", 0)
		return pb
	}
	if root.Kind != yaml.MappingNode {
		p.errAt(root, "", "expected a mapping with name:, steps: ..., got %s", describeNode(root))
		return pb
	}
	if !p.header(pb, root) && len(p.errs) == 0 {
		p.errAt(root, "", "playbook has no steps: key")
	}
	return pb
}

// yamlError reports a YAML syntax error at its line and column.
func (p *parser) yamlError(err error) {
	msg := err.Error()
	line, col := 0, 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		if m[2] != "" {
			col, _ = strconv.Atoi(m[2])
		}
		msg = m[3]
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	if msg == "EOF" {
		p.errPos(Pos{File: p.file, Line: 1, Column: 1}, "", "empty playbook: expected a mapping with steps:")
		return
	}
	if strings.Contains(msg, "expected ',' or '}'") || strings.Contains(msg, "expected ',' or ']'") {
		msg += " (inside {…} or […], quote strings that contain : , ? # [ ] { })"
	}
	p.errPos(Pos{File: p.file, Line: line, Column: col}, "", "invalid YAML: %s", msg)
}

// header reads the playbook's header keys and steps; it reports whether a
// steps: key was there.
func (p *parser) header(pb *Playbook, root *yaml.Node) (sawSteps bool) {
	p.eachPair(root, "", func(k string, kn, v *yaml.Node) {
		switch k {
		case "name":
			pb.Name = p.scalarString(v, k)
		case "description":
			pb.Description = p.scalarString(v, k)
		case "app":
			pb.App = p.scalarString(v, k)
		case "tags":
			pb.Tags = p.stringList(v, k)
		case "params":
			pb.Params = p.params(v)
		case "defaults":
			pb.Defaults = p.defaults(v)
		case "on_start", "on_complete", "on_failure":
			steps := p.steps(v, k, 0)
			switch k {
			case "on_start":
				pb.OnStart = steps
			case "on_complete":
				pb.OnComplete = steps
			default:
				pb.OnFailure = steps
			}
		case "watchers":
			pb.Watchers = p.watchers(v)
		case "steps":
			sawSteps = true
			pb.Steps = p.steps(v, "steps", 0)
		default:
			hint := didYouMean(k, headerKeys)
			if hint == "" {
				if _, ok := stepDefs[k]; ok {
					hint = "; steps go in a list under steps:"
				}
			}
			p.errAt(kn, "", "unknown key %q in playbook header%s (valid keys: %s)", k, hint, strings.Join(headerKeys, ", "))
		}
	})
	return sawSteps
}

// deref follows aliases, bounded.
func (p *parser) deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 16; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.AliasNode {
		return nil
	}
	p.budget--
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func describeNode(n *yaml.Node) string {
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return "null"
		case "!!bool":
			return "boolean " + n.Value
		case "!!int":
			return "integer " + n.Value
		case "!!float":
			return "number " + n.Value
		}
		v := n.Value
		if len(v) > 40 {
			v = v[:40] + "…"
		}
		return fmt.Sprintf("string %q", v)
	}
	return "an unsupported node"
}

// eachPair iterates a mapping's pairs, reporting duplicate and non-string keys.
func (p *parser) eachPair(m *yaml.Node, path string, fn func(k string, kn, v *yaml.Node)) {
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		kn, v := p.deref(m.Content[i]), p.deref(m.Content[i+1])
		if p.exhausted(m, path) {
			return
		}
		if kn == nil || kn.Kind != yaml.ScalarNode {
			p.errAt(m.Content[i], path, "mapping keys must be plain strings")
			continue
		}
		if kn.Value == "<<" {
			p.errAt(kn, path, "merge keys (<<) are not supported")
			continue
		}
		if seen[kn.Value] {
			p.errAt(kn, path, "duplicate key %q", kn.Value)
			continue
		}
		seen[kn.Value] = true
		fn(kn.Value, kn, v)
	}
}

func (p *parser) scalarString(n *yaml.Node, path string) string {
	if n == nil || n.Kind != yaml.ScalarNode || isNull(n) {
		p.errAt(n, path, "expected a string, got %s", describeNode(n))
		return ""
	}
	return n.Value
}

func (p *parser) stringList(n *yaml.Node, path string) []string {
	if n.Kind == yaml.ScalarNode && !isNull(n) {
		return []string{n.Value}
	}
	if n.Kind != yaml.SequenceNode {
		p.errAt(n, path, "expected a list of strings, got %s", describeNode(n))
		return nil
	}
	var out []string
	for i, c := range n.Content {
		c = p.deref(c)
		out = append(out, p.scalarString(c, fmt.Sprintf("%s[%d]", path, i)))
	}
	return out
}

// --- header ------------------------------------------------------------------

var paramTypes = []string{"string", "int", "number", "bool", "list"}

var reserved = map[string]bool{
	"flow": true, "ui": true, "device": true, "app": true, "wait": true, "assert": true, "events": true,
	"log": true, "json": true, "time": true, "re": true, "screen": true, "params": true, "meta": true,
	"math": true, "string": true, "table": true, "require": true, "print": true, "pairs": true, "ipairs": true,
	"tostring": true, "tonumber": true, "type": true, "error": true, "pcall": true, "select": true, "next": true,
	"unpack": true, "setmetatable": true, "getmetatable": true, "rawget": true, "rawset": true, "_G": true,
	"_ENV": true, "self": true,
}

var luaKeywords = map[string]bool{
	"and": true, "break": true, "do": true, "else": true, "elseif": true, "end": true, "false": true,
	"for": true, "function": true, "if": true, "in": true, "local": true, "nil": true, "not": true,
	"or": true, "repeat": true, "return": true, "then": true, "true": true, "until": true, "while": true, "goto": true,
}

func isIdent(s string) bool {
	if s == "" || luaKeywords[s] {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// checkVarName reports names that cannot be Lua variables.
func (p *parser) checkVarName(n *yaml.Node, path, what, name string) bool {
	if !isIdent(name) {
		p.errAt(n, path, "%s name %q must be an identifier (letters, digits, _; not a Lua keyword)", what, name)
		return false
	}
	if reserved[name] || strings.HasPrefix(name, "__") {
		p.errAt(n, path, "%s name %q is reserved (it names a module or Lua builtin)", what, name)
		return false
	}
	return true
}

func (p *parser) boolean(n *yaml.Node, path string) bool {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" {
		b, _ := strconv.ParseBool(strings.ToLower(n.Value))
		return b
	}
	p.errAt(n, path, "expected true or false, got %s", describeNode(n))
	return false
}

func (p *parser) integer(n *yaml.Node, path string) int {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!int" {
		v, err := strconv.ParseInt(n.Value, 0, 32)
		if err == nil {
			return int(v)
		}
	}
	p.errAt(n, path, "expected an integer, got %s", describeNode(n))
	return 0
}

// duration parses "5s", "500ms", "1m30s" or an integer number of ms.
func (p *parser) duration(n *yaml.Node, path string) time.Duration {
	if n.Kind == yaml.ScalarNode {
		switch n.Tag {
		case "!!int":
			if v, err := strconv.ParseInt(n.Value, 10, 32); err == nil && v >= 0 {
				return time.Duration(v) * time.Millisecond
			}
		case "!!str":
			if d, err := time.ParseDuration(strings.TrimSpace(n.Value)); err == nil && d >= 0 && d <= 24*time.Hour {
				if d > 0 && d < time.Millisecond {
					d = time.Millisecond
				}
				return d
			}
		}
	}
	p.errAt(n, path, "expected a duration like \"5s\", \"500ms\" or a number of milliseconds, got %s", describeNode(n))
	return 0
}

func (p *parser) defaults(n *yaml.Node) Defaults {
	var d Defaults
	if n.Kind != yaml.MappingNode {
		p.errAt(n, "defaults", "expected a mapping (timeout, settle, tap_retry), got %s", describeNode(n))
		return d
	}
	keys := []string{"timeout", "settle", "tap_retry"}
	p.eachPair(n, "defaults", func(k string, kn, v *yaml.Node) {
		path := "defaults." + k
		switch k {
		case "timeout":
			d.Timeout = p.duration(v, path)
		case "settle":
			mode := func(vn *yaml.Node) {
				switch s := p.scalarString(vn, path+".mode"); s {
				case "idle":
					d.SettleIdle = true
				case "none", "":
				default:
					p.errAt(vn, path+".mode", "settle mode must be idle or none, got %q", s)
				}
			}
			if v.Kind == yaml.ScalarNode {
				mode(v)
				return
			}
			if v.Kind != yaml.MappingNode {
				p.errAt(v, path, "expected idle, none or {mode, timeout}, got %s", describeNode(v))
				return
			}
			p.eachPair(v, path, func(k2 string, kn2, v2 *yaml.Node) {
				switch k2 {
				case "mode":
					mode(v2)
				case "timeout":
					d.SettleTimeout = p.duration(v2, path+".timeout")
				default:
					p.errAt(kn2, path, "unknown key %q in settle%s (valid keys: mode, timeout)", k2, didYouMean(k2, []string{"mode", "timeout"}))
				}
			})
		case "tap_retry":
			if v.Kind == yaml.ScalarNode && v.Tag == "!!bool" {
				if p.boolean(v, path) {
					d.TapRetry = 1
				}
				return
			}
			d.TapRetry = p.integer(v, path)
			if d.TapRetry < 0 || d.TapRetry > 10 {
				p.errAt(v, path, "tap_retry must be between 0 and 10")
			}
		default:
			p.errAt(kn, "defaults", "unknown key %q in defaults%s (valid keys: %s)", k, didYouMean(k, keys), strings.Join(keys, ", "))
		}
	})
	return d
}

func (p *parser) watchers(n *yaml.Node) []*Watcher {
	if n.Kind != yaml.SequenceNode {
		p.errAt(n, "watchers", "expected a list of {when, do, max_hits}, got %s", describeNode(n))
		return nil
	}
	var out []*Watcher
	keys := []string{"when", "do", "max_hits", "label"}
	for i, c := range n.Content {
		c = p.deref(c)
		path := fmt.Sprintf("watchers[%d]", i)
		if c == nil || c.Kind != yaml.MappingNode {
			p.errAt(c, path, "expected a mapping {when: <selector>, do: [steps]}, got %s", describeNode(c))
			continue
		}
		w := &Watcher{Pos: p.pos(c), MaxHits: 1}
		sawDo := false
		p.eachPair(c, path, func(k string, kn, v *yaml.Node) {
			switch k {
			case "when":
				w.When = p.selector(v, path+".when", false)
			case "do":
				sawDo = true
				w.Do = p.steps(v, path+".do", 1)
			case "max_hits":
				w.MaxHits = p.integer(v, path+".max_hits")
				if w.MaxHits < 1 {
					p.errAt(v, path+".max_hits", "max_hits must be at least 1")
				}
			case "label":
				w.Label = p.scalarString(v, path+".label")
			default:
				p.errAt(kn, path, "unknown key %q in watcher%s (valid keys: %s)", k, didYouMean(k, keys), strings.Join(keys, ", "))
			}
		})
		if w.When == nil {
			p.errAt(c, path, "watcher needs when: <selector>")
		}
		if !sawDo {
			p.errAt(c, path, "watcher needs do: [steps]")
		}
		out = append(out, w)
	}
	return out
}

// --- values ------------------------------------------------------------------

// value converts a YAML node to a literal; strings are parsed for ${expr}
// unless raw.
func (p *parser) value(n *yaml.Node, path string, raw bool) *Value {
	if n == nil || p.exhausted(n, path) {
		return &Value{Kind: VNull}
	}
	pos := p.pos(n)
	switch n.Kind {
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return &Value{Kind: VNull, Pos: pos}
		case "!!bool":
			b, _ := strconv.ParseBool(strings.ToLower(n.Value))
			return &Value{Kind: VBool, Pos: pos, Bool: b}
		case "!!int":
			if v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil && v > -(1<<53) && v < 1<<53 {
				return &Value{Kind: VInt, Pos: pos, Int: v}
			}
			if f, err := strconv.ParseFloat(n.Value, 64); err == nil && !math.IsInf(f, 0) {
				return &Value{Kind: VNumber, Pos: pos, Num: f}
			}
		case "!!float":
			if f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
				return &Value{Kind: VNumber, Pos: pos, Num: f}
			}
			p.errAt(n, path, "unsupported number %q", n.Value)
			return &Value{Kind: VNull, Pos: pos}
		}
		return &Value{Kind: VString, Pos: pos, Str: p.str(n, path, raw)}
	case yaml.SequenceNode:
		v := &Value{Kind: VList, Pos: pos}
		for i, c := range n.Content {
			v.List = append(v.List, p.value(p.deref(c), fmt.Sprintf("%s[%d]", path, i), raw))
		}
		return v
	case yaml.MappingNode:
		v := &Value{Kind: VMap, Pos: pos}
		p.eachPair(n, path, func(k string, _, c *yaml.Node) {
			v.Keys = append(v.Keys, k)
			v.Map = append(v.Map, p.value(c, path+"."+k, raw))
		})
		return v
	}
	return &Value{Kind: VNull, Pos: pos}
}

// str parses a scalar's ${expr} parts.
func (p *parser) str(n *yaml.Node, path string, raw bool) *Str {
	pos := p.pos(n)
	if raw {
		return &Str{Raw: n.Value, Parts: []StrPart{{Text: n.Value}}, Pos: pos}
	}
	s, err := parseInterp(n.Value)
	if err != "" {
		p.errAt(n, path, "%s", err)
	}
	s.Pos = pos
	return s
}

// parseInterp splits s into literal text and ${expr} parts; "$${" is a
// literal "${".
func parseInterp(s string) (*Str, string) {
	out := &Str{Raw: s}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			out.Parts = append(out.Parts, StrPart{Text: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "$${") {
			lit.WriteString("${")
			i += 3
			continue
		}
		if !strings.HasPrefix(s[i:], "${") {
			lit.WriteByte(s[i])
			i++
			continue
		}
		end := matchBrace(s, i+2)
		if end < 0 {
			return &Str{Raw: s, Parts: []StrPart{{Text: s}}}, fmt.Sprintf("unterminated ${ in %q (write $${ for a literal ${)", s)
		}
		expr := strings.TrimSpace(s[i+2 : end])
		if expr == "" {
			return &Str{Raw: s, Parts: []StrPart{{Text: s}}}, fmt.Sprintf("empty ${} in %q", s)
		}
		if len(expr) > MaxExprBytes {
			return &Str{Raw: s, Parts: []StrPart{{Text: s}}}, fmt.Sprintf("${%.20s…} is %d bytes; an expression may have at most %d (compute longer values in a lua: step)", expr, len(expr), MaxExprBytes)
		}
		flush()
		out.Parts = append(out.Parts, StrPart{Text: expr, IsExpr: true})
		i = end + 1
	}
	flush()
	if len(out.Parts) == 0 {
		out.Parts = []StrPart{{Text: ""}}
	}
	return out, ""
}

// matchBrace returns the index of the } closing an expression starting at
// i, skipping nested braces and Lua string literals; -1 when unterminated.
func matchBrace(s string, i int) int {
	depth := 0
	for ; i < len(s); i++ {
		switch c := s[i]; c {
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return i
			}
			depth--
		case '"', '\'':
			for i++; i < len(s) && s[i] != c; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		}
	}
	return -1
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
