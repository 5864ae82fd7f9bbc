package maestro

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// flowConv converts one file: the header, then the commands.
type flowConv struct {
	c        *Converter
	f        *flowFile
	warnings []Warning
	commands int
	vars     map[string]bool // names the translated expressions read
	locals   map[string]bool // names the playbook assigns itself
	usesOut  bool            // output.x is assigned or read
	// aiQueries are the variables extractTextWithAI filled, with their
	// queries: a tap on one becomes an ai_tap.
	aiQueries map[string]string
}

func (fc *flowConv) warn(n *yaml.Node, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	fc.warnings = append(fc.warnings, Warning{File: fc.f.path, Line: line, Message: fmt.Sprintf(format, args...)})
}

// YAML node builders ---------------------------------------------------------

func str(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

// raw is a scalar of a YAML type; numbers are written plain so that the
// playbook compiler, not a tag, decides (and reports) their type.
func raw(tag, v string) *yaml.Node {
	if tag == "!!int" || tag == "!!float" {
		tag = ""
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v}
}

func boolNode(b bool) *yaml.Node { return raw("!!bool", strconv.FormatBool(b)) }

func intNode(n int) *yaml.Node { return raw("!!int", strconv.Itoa(n)) }

type pair struct {
	k string
	v *yaml.Node
}

func mapping(pairs ...pair) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	for _, p := range pairs {
		if p.v != nil {
			m.Content = append(m.Content, str(p.k), p.v)
		}
	}
	return m
}

func seq(items []*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Content: items}
}

// step builds `- kind: val` plus keys beside it; a nil val is a bare step.
func step(kind string, val *yaml.Node, extra ...pair) *yaml.Node {
	if val == nil && len(extra) == 0 {
		return str(kind)
	}
	if val == nil {
		val = raw("!!null", "")
	}
	return mapping(append([]pair{{kind, val}}, extra...)...)
}

// todo keeps something untranslatable as a commented Lua block.
func (fc *flowConv) todo(n *yaml.Node, why, text string) *yaml.Node {
	fc.warn(n, "%s: kept as a TODO comment", why)
	var b strings.Builder
	fmt.Fprintf(&b, "-- TODO(maestro %s:%d): %s\n", fc.f.rel, n.Line, why)
	if strings.TrimSpace(text) != "" && text != "null" {
		for _, ln := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
			b.WriteString("-- " + ln + "\n")
		}
	}
	// Nothing ran, so the step must not pass: it is reported skipped, with
	// what was not converted (the warning above says the same at convert
	// time).
	msg := fmt.Sprintf("TODO(maestro %s:%d): %s; not converted, so not run", fc.f.rel, n.Line, why)
	b.WriteString("return flow.skipped(" + luaString(msg) + ")\n")
	code := str(b.String())
	code.Style = yaml.LiteralStyle
	return step("lua", code)
}

// luaString quotes s as a Lua string literal (UTF-8 passes as is).
func luaString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", " ", "\r", " ", "\x00", "").Replace(s) + `"`
}

// note is a Lua comment for a command that has nothing to do on Android.
func note(text string) *yaml.Node {
	code := str("-- " + text + "\n")
	code.Style = yaml.LiteralStyle
	return step("lua", code)
}

// playbook converts the whole file to playbook YAML.
func (fc *flowConv) playbook() ([]byte, error) {
	cfg := fc.f.config
	var header []pair
	name := strings.TrimSuffix(strings.TrimSuffix(fc.f.rel, ".yaml"), ".yml")
	if n := mapGet(cfg, "name"); n.Kind == yaml.ScalarNode {
		name = n.Value
	}
	header = append(header, pair{"name", str(name)})
	if n := mapGet(cfg, "appId"); n.Kind == yaml.ScalarNode {
		if strings.Contains(n.Value, "${") {
			fc.warn(n, "appId %q uses an expression; playbooks need a literal app: set it by hand", n.Value)
		} else {
			header = append(header, pair{"app", str(n.Value)})
		}
	}
	if n := mapGet(cfg, "tags"); n.Kind != 0 {
		var tags []*yaml.Node
		if n.Kind == yaml.ScalarNode {
			tags = append(tags, str(n.Value))
		}
		for _, t := range n.Content {
			tags = append(tags, str(t.Value))
		}
		header = append(header, pair{"tags", seq(tags)})
	}
	for i := 0; cfg != nil && i+1 < len(cfg.Content); i += 2 {
		switch k := cfg.Content[i].Value; k {
		case "name", "appId", "tags", "env", "onFlowStart", "onFlowComplete":
		case "url":
			fc.warn(cfg.Content[i], "url: web flows are not supported; only Android apps")
		default:
			fc.warn(cfg.Content[i], "config key %s has no playbook equivalent; dropped", k)
		}
	}
	env := mapGet(cfg, "env")
	onStart := fc.list(mapGet(cfg, "onFlowStart"))
	onComplete := fc.list(mapGet(cfg, "onFlowComplete"))
	steps := fc.list(fc.f.commands)
	if fc.usesOut {
		init := mapping(pair{"output", str("${ {} }")})
		steps = append([]*yaml.Node{step("set", init)}, steps...)
	}
	if p := fc.params(env); p != nil {
		header = append(header, pair{"params", p})
	}
	if len(onStart) > 0 {
		header = append(header, pair{"on_start", seq(onStart)})
	}
	if len(onComplete) > 0 {
		header = append(header, pair{"on_complete", seq(onComplete)})
	}
	header = append(header, pair{"steps", seq(steps)})
	doc := mapping(header...)
	doc.HeadComment = fmt.Sprintf("Converted from Maestro flow %s by openpocket convert maestro.", fc.f.rel)
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("writing the playbook: %w", err)
	}
	return []byte(b.String()), enc.Close()
}

// params declares the flow's env (with defaults), the keys callers pass and
// every free name the translated expressions read.
func (fc *flowConv) params(env *yaml.Node) *yaml.Node {
	defaults := map[string]*yaml.Node{}
	for i := 0; i+1 < len(env.Content); i += 2 {
		v := env.Content[i+1]
		defaults[env.Content[i].Value] = str(fc.plain(v))
	}
	for k := range fc.c.passed[fc.f.path] {
		if defaults[k] == nil {
			defaults[k] = str("")
		}
	}
	for k := range fc.vars {
		if !fc.locals[k] && defaults[k] == nil && k != "output" {
			defaults[k] = str("")
		}
	}
	if len(defaults) == 0 {
		return nil
	}
	keys := make([]string, 0, len(defaults))
	for k := range defaults {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	m := &yaml.Node{Kind: yaml.MappingNode}
	for _, k := range keys {
		m.Content = append(m.Content, str(k), mapping(pair{"type", str("string")}, pair{"default", defaults[k]}))
	}
	return m
}

// plain is an env default: Maestro evaluates ${…} there too, but a
// default must be a literal, so an expression is kept verbatim.
func (fc *flowConv) plain(v *yaml.Node) string {
	if strings.Contains(v.Value, "${") {
		fc.warn(v, "env default %q uses an expression; kept as literal text", v.Value)
		return strings.ReplaceAll(v.Value, "${", "$${")
	}
	return v.Value
}

// text converts a Maestro string with ${js} parts into a playbook string
// with ${lua} parts.
func (fc *flowConv) text(n *yaml.Node) string {
	s := n.Value
	var b strings.Builder
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], "${")
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		b.WriteString(s[i : i+j])
		start := i + j + 2
		end := braceEnd(s, start)
		if end < 0 {
			fc.warn(n, "unterminated ${ in %q; kept as literal text", s)
			b.WriteString("$${" + s[start:])
			break
		}
		js := s[start:end]
		lua, err := JSExpr(js, fc.vars)
		if err != nil {
			fc.warn(n, "JavaScript ${%s} not translated (%v); kept as literal text", js, err)
			b.WriteString("$${" + js + "}")
		} else {
			fc.noteVars()
			b.WriteString("${" + lua + "}")
		}
		i = end + 1
	}
	return b.String()
}

func (fc *flowConv) noteVars() {
	if fc.vars["output"] {
		fc.usesOut = true
	}
}

func braceEnd(s string, i int) int {
	depth := 0
	for ; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return i
			}
			depth--
		}
	}
	return -1
}

// script converts JavaScript statements to a lua step, or a TODO.
func (fc *flowConv) script(n *yaml.Node, js, what string) *yaml.Node {
	lines, err := JSStatements(js, fc.vars)
	if err != nil {
		return fc.todo(n, fmt.Sprintf("%s not translated to Lua (%v)", what, err), js)
	}
	for _, ln := range lines {
		target := strings.TrimSpace(strings.SplitN(ln, "=", 2)[0])
		root := strings.SplitN(target, ".", 2)[0]
		if root == "output" {
			fc.usesOut = true
		} else {
			fc.locals[root] = true
		}
	}
	fc.noteVars()
	code := str(strings.Join(lines, "\n") + "\n")
	code.Style = yaml.LiteralStyle
	return step("lua", code)
}

// cond translates a JavaScript condition (when.true, assertTrue, while.true).
func (fc *flowConv) cond(n *yaml.Node) (string, bool) {
	s := strings.TrimSpace(n.Value)
	if strings.HasPrefix(s, "${") && strings.HasSuffix(s, "}") && braceEnd(s, 2) == len(s)-1 {
		s = s[2 : len(s)-1]
	}
	lua, err := JSExpr(s, fc.vars)
	if err != nil {
		fc.warn(n, "condition %q not translated (%v)", n.Value, err)
		return "", false
	}
	fc.noteVars()
	return lua, true
}
