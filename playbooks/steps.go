package playbooks

import (
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/openpocket/openpocket/engine/action"
	"go.yaml.in/yaml/v3"
)

// stepDef describes one step kind: its keys, short form, parser and code
// generator. Built with define, which types parse and gen on the kind's
// node.
type stepDef struct {
	Name    string
	Short   string   // key the scalar short form fills; "@sel" = a text selector; "" = none
	Bare    bool     // may be written without a value (`- back`)
	Sel     bool     // the mapping form accepts selector keys
	Keys    []string // kind-specific keys
	Action  bool     // a device action of the action table
	Example string   // shown in errors about the step's value ("" = `name: …`)
	Doc     string
	node    reflect.Type // the node type parse fills and gen reads (set by define)
	parse   func(p *parser, s *Step, f *fields)
	gen     func(g *gen, s *Step, id string)
}

var commonKeys = []string{"label", "optional", "timeout"}

var selectorStrKeys = []string{"text", "text_contains", "text_regex", "id", "id_regex", "desc", "desc_contains", "class", "package"}
var selectorBoolKeys = []string{"clickable", "enabled", "checked", "focused", "selected", "scrollable", "checkable"}
var selectorRelKeys = []string{"below", "above", "left_of", "right_of", "child_of", "contains", "contains_child"}

var selectorKeys = func() []string {
	out := append([]string{}, selectorStrKeys...)
	out = append(out, "index")
	out = append(out, selectorBoolKeys...)
	return append(out, selectorRelKeys...)
}()

// stepDefs is the step catalogue: built-in steps plus every action of the
// action table under its spec name.
var stepDefs = map[string]*stepDef{}

// stepNames lists the catalogue in documentation order.
var stepNames []string

func init() {
	var builtin []*stepDef
	for _, family := range [][]*stepDef{appStepDefs(), tapStepDefs(), inputStepDefs(), gestureStepDefs(), waitStepDefs(), assertStepDefs(), flowStepDefs(), execStepDefs(), aiStepDefs()} {
		builtin = append(builtin, family...)
	}
	builtin = append(builtin, deviceStepDefs()...)
	for _, d := range builtin {
		stepDefs[d.Name] = d
		stepNames = append(stepNames, d.Name)
	}
	for _, spec := range action.Specs() {
		if _, ok := stepDefs[spec.Name]; ok {
			continue // tap, swipe and shell cover their actions
		}
		d := define(stepDef{Name: spec.Name, Action: true, Doc: spec.Doc}, parseAction, genAction)
		for _, prm := range spec.Params {
			d.Keys = append(d.Keys, prm.Name)
		}
		if len(spec.Params) > 0 && spec.Params[0].Kind != action.KindObject {
			d.Short = spec.Params[0].Name
		}
		d.Bare = true
		for _, prm := range spec.Params {
			if prm.Required {
				d.Bare = false
			}
		}
		stepDefs[d.Name] = d
		stepNames = append(stepNames, d.Name)
	}
}

// StepKinds returns the names of every step kind, built-ins first, then the
// device actions of the action table.
func StepKinds() []string { return append([]string(nil), stepNames...) }

// fields is a step's keys: the kind's mapping value merged with the keys
// beside it.
type fields struct {
	p     *parser
	s     *Step
	def   *stepDef
	order []string
	val   map[string]*yaml.Node
	key   map[string]*yaml.Node
	depth int
	errs0 int // errors before this step
	// kindVal is the kind key's value as written (set reads its
	// variables from it).
	kindVal *yaml.Node
}

func (f *fields) has(k string) bool { _, ok := f.val[k]; return ok }

func (f *fields) node(k string) *yaml.Node { return f.val[k] }

func (f *fields) path(k string) string { return f.s.Path + "." + k }

func (f *fields) str(k string) *Str {
	n := f.val[k]
	if n == nil {
		return nil
	}
	if n.Kind != yaml.ScalarNode || isNull(n) {
		f.p.errAt(n, f.s.Path, "%s must be a string, got %s", k, describeNode(n))
		return &Str{Parts: []StrPart{{}}, Pos: f.p.pos(n)}
	}
	return f.p.str(n, f.s.Path, false)
}

func (f *fields) boolean(k string) bool {
	n := f.val[k]
	if n == nil {
		return false
	}
	return f.p.boolean(n, f.path(k))
}

// strValue is a string key as a string value; nil when absent.
func (f *fields) strValue(k string) *Value {
	if st := f.str(k); st != nil {
		return &Value{Kind: VString, Pos: st.Pos, Str: st}
	}
	return nil
}

// intValue is an integer literal or a whole ${expr}.
func (f *fields) intValue(k string) *Value {
	n := f.val[k]
	if n == nil {
		return nil
	}
	v := f.p.value(n, f.path(k), false)
	if v.Kind == VInt {
		return v
	}
	if v.Kind == VString {
		if _, ok := v.Str.Whole(); ok {
			return v
		}
	}
	f.p.errAt(n, f.s.Path, "%s must be an integer or ${expr}, got %s", k, describeNode(n))
	return &Value{Kind: VInt, Pos: v.Pos}
}

func (f *fields) steps(k string) []*Step {
	n := f.val[k]
	if n == nil {
		return nil
	}
	return f.p.steps(n, f.path(k), f.depth+1)
}

// sel builds the step's selector from its selector keys (or the short form).
func (f *fields) sel() *Selector {
	var keys []string
	for _, k := range f.order {
		if contains(selectorKeys, k) && !contains(f.def.Keys, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	return f.p.selectorFields(f.val[keys[0]], f.s.Path, keys, f.val, f.key)
}

const maxDepth = 40

// steps parses a list of steps.
func (p *parser) steps(n *yaml.Node, path string, depth int) []*Step {
	if n == nil || isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		p.errAt(n, path, "expected a list of steps, got %s", describeNode(n))
		return nil
	}
	if depth > maxDepth {
		p.errAt(n, path, "steps nested deeper than %d levels", maxDepth)
		return nil
	}
	var out []*Step
	for i, c := range n.Content {
		if p.exhausted(c, path) {
			break
		}
		if p.stepCount++; p.stepCount > MaxSteps {
			p.errAt(c, fmt.Sprintf("%s[%d]", path, i), "playbook has more than %d steps; split it into playbooks called with run:", MaxSteps)
			break
		}
		if s := p.step(p.deref(c), fmt.Sprintf("%s[%d]", path, i), depth); s != nil {
			out = append(out, s)
		}
	}
	return out
}

func (p *parser) step(n *yaml.Node, path string, depth int) *Step {
	if n == nil {
		p.errAt(n, path, "invalid step")
		return nil
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return p.bareStep(n, path, depth)
	case yaml.MappingNode:
	default:
		p.errAt(n, path, "a step is a mapping like `- tap: Save` or a bare name like `- back`, got %s", describeNode(n))
		return nil
	}
	kindKey, kindVal, def := p.stepKind(n, path)
	if def == nil {
		return nil
	}
	s := &Step{Kind: def.Name, Pos: p.pos(kindKey), Path: path + "." + def.Name}
	f := &fields{p: p, s: s, def: def, val: map[string]*yaml.Node{}, key: map[string]*yaml.Node{}, depth: depth, errs0: len(p.errs), kindVal: kindVal}
	valid := append(append([]string{}, commonKeys...), def.Keys...)
	if def.Sel {
		valid = append(valid, selectorKeys...)
	}
	add := func(k string, kn, v *yaml.Node, where string) { p.addKey(f, valid, k, kn, v, where) }
	// Keys beside the kind.
	p.eachPair(n, path, func(k string, kn, v *yaml.Node) {
		if kn == kindKey {
			return
		}
		add(k, kn, v, def.Name+" step")
	})
	if def.Name == "set" { // set's mapping is its variables, not keys
		def.parse(p, s, f)
		p.common(s, f)
		return s
	}
	if !p.kindValue(f, kindKey, kindVal, add) {
		return nil
	}
	p.common(s, f)
	def.parse(p, s, f)
	return s
}

// bareStep is a step written as its name alone (`- back`).
func (p *parser) bareStep(n *yaml.Node, path string, depth int) *Step {
	name := n.Value
	def, ok := stepDefs[name]
	if !ok {
		p.errAt(n, path, "unknown step %q%s", name, didYouMean(name, stepNames))
		return nil
	}
	s := &Step{Kind: name, Pos: p.pos(n), Path: path + "." + name}
	if !def.Bare {
		p.errAt(n, s.Path, "%s needs a value, e.g. %s", name, exampleOf(def))
		return nil
	}
	f := &fields{p: p, s: s, def: def, val: map[string]*yaml.Node{}, key: map[string]*yaml.Node{}, depth: depth, errs0: len(p.errs)}
	def.parse(p, s, f)
	return s
}

// stepKind finds a step mapping's kind: the first key naming a step. None
// is reported (an unknown key with a suggestion, or no kind at all).
func (p *parser) stepKind(n *yaml.Node, path string) (kindKey, kindVal *yaml.Node, def *stepDef) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := p.deref(n.Content[i])
		if k != nil && k.Kind == yaml.ScalarNode {
			if d, ok := stepDefs[k.Value]; ok {
				return k, p.deref(n.Content[i+1]), d
			}
		}
	}
	reported := false
	p.eachPair(n, path, func(k string, kn, _ *yaml.Node) {
		if reported || contains(commonKeys, k) {
			return
		}
		reported = true
		p.errAt(kn, path, "unknown key %q in step%s", k, didYouMean(k, append(append([]string{}, stepNames...), commonKeys...)))
	})
	if !reported {
		p.errAt(n, path, "step has no kind: add one of tap, input, assert_visible, ... (see docs/playbooks.md)")
	}
	return nil, nil, nil
}

// addKey records one key of a step, refusing duplicates and keys the step
// does not take (with a suggestion, or a hint that it is a step itself).
func (p *parser) addKey(f *fields, valid []string, k string, kn, v *yaml.Node, where string) {
	if _, dup := f.val[k]; dup {
		p.errAt(kn, f.s.Path, "duplicate key %q", k)
		return
	}
	if !contains(valid, k) {
		hint := didYouMean(k, valid)
		if _, isStep := stepDefs[k]; isStep && hint == "" {
			hint = fmt.Sprintf("; %q is a step of its own: write it as a separate list item", k)
		}
		p.errAt(kn, f.s.Path, "unknown key %q in %s%s (valid keys: %s)", k, where, hint, strings.Join(sortedCopy(valid), ", "))
		return
	}
	f.order = append(f.order, k)
	f.val[k] = v
	f.key[k] = kn
}

// kindValue reads the value of the kind key: nothing (a bare step), a
// mapping of keys, or the scalar short form; false when it was refused.
func (p *parser) kindValue(f *fields, kindKey, kindVal *yaml.Node, add func(k string, kn, v *yaml.Node, where string)) bool {
	s, def := f.s, f.def
	switch {
	case isNull(kindVal):
		if !def.Bare && !hasNonCommon(f) {
			p.errAt(kindKey, s.Path, "%s needs a value, e.g. %s", def.Name, exampleOf(def))
			return false
		}
	case kindVal.Kind == yaml.MappingNode:
		p.eachPair(kindVal, s.Path, func(k string, kn, v *yaml.Node) { add(k, kn, v, def.Name) })
	case kindVal.Kind == yaml.ScalarNode:
		switch def.Short {
		case "":
			p.errAt(kindVal, s.Path, "%s takes a mapping, e.g. %s", def.Name, exampleOf(def))
			return false
		case "@sel":
			s.Sel = &Selector{Pos: p.pos(kindVal), Short: p.str(kindVal, s.Path, false)}
		default:
			if f.has(def.Short) {
				p.errAt(f.key[def.Short], s.Path, "%s is given twice (short form and key)", def.Short)
			}
			f.order = append([]string{def.Short}, f.order...)
			f.val[def.Short] = kindVal
			f.key[def.Short] = kindKey
		}
	default:
		p.errAt(kindVal, s.Path, "%s takes a value or a mapping, not %s; e.g. %s", def.Name, describeNode(kindVal), exampleOf(def))
		return false
	}
	return true
}

func hasNonCommon(f *fields) bool {
	for _, k := range f.order {
		if !contains(commonKeys, k) {
			return true
		}
	}
	return false
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// common reads label, optional and timeout.
func (p *parser) common(s *Step, f *fields) {
	if n := f.node("label"); n != nil {
		s.Label = p.scalarString(n, s.Path+".label")
	}
	if n := f.node("optional"); n != nil {
		s.Optional = p.boolean(n, s.Path+".optional")
	}
	if n := f.node("timeout"); n != nil {
		s.Timeout = p.duration(n, s.Path+".timeout")
	}
}

func exampleOf(d *stepDef) string {
	if d.Example != "" {
		return "`" + d.Example + "`"
	}
	if d.Action {
		spec, _ := action.Lookup(d.Name)
		var parts []string
		for _, prm := range spec.Params {
			if prm.Required {
				parts = append(parts, prm.Name+": …")
			}
		}
		return fmt.Sprintf("`%s: {%s}`", d.Name, strings.Join(parts, ", "))
	}
	return "`" + d.Name + ": …`"
}

// kindNode is a node for errors about the step as a whole.
func (p *parser) kindNode(s *Step, f *fields) *yaml.Node {
	return &yaml.Node{Line: s.Pos.Line, Column: s.Pos.Column}
}

// need reports something missing from a step, unless the step already has
// an error (a misspelt key usually explains the missing one).
func (p *parser) need(s *Step, f *fields, format string, args ...any) {
	if len(p.errs) > f.errs0 {
		return
	}
	p.errAt(p.kindNode(s, f), s.Path, format, args...)
}

// Point is a screen point: fractions of the screen (Pct) or pixels.
type Point struct {
	X, Y float64
	Pct  bool
}

var pointRe = regexp.MustCompile(`^\s*(-?[0-9.]+)\s*(%?)\s*,\s*(-?[0-9.]+)\s*(%?)\s*$`)

func (p *parser) point(n *yaml.Node, path string) *Value {
	bad := func() *Value {
		p.errAt(n, path, "point must be \"x%%,y%%\" (e.g. \"50%%,80%%\") or pixels \"x,y\" (e.g. \"540,1200\"), got %s", describeNode(n))
		return &Value{Kind: VList}
	}
	if n.Kind != yaml.ScalarNode {
		return bad()
	}
	m := pointRe.FindStringSubmatch(n.Value)
	if m == nil || (m[2] == "%") != (m[4] == "%") {
		return bad()
	}
	x, err1 := strconv.ParseFloat(m[1], 64)
	y, err2 := strconv.ParseFloat(m[3], 64)
	if err1 != nil || err2 != nil || x < 0 || y < 0 {
		return bad()
	}
	pct := m[2] == "%"
	if pct && (x > 100 || y > 100) {
		p.errAt(n, path, "percentages must be between 0%% and 100%%")
	}
	if !pct && (x != float64(int(x)) || y != float64(int(y))) {
		return bad()
	}
	return &Value{Kind: VList, Pos: p.pos(n), Bool: pct, List: []*Value{{Kind: VNumber, Num: x}, {Kind: VNumber, Num: y}}}
}

// --- selectors -----------------------------------------------------------------
