package playbooks

import "time"

// Playbook is a parsed playbook file: the header and the step lists, every
// node carrying its source position.
type Playbook struct {
	File        string
	Pos         Pos
	Name        string
	Description string
	App         string
	Tags        []string
	Params      []*Param
	Defaults    Defaults
	OnStart     []*Step
	OnComplete  []*Step
	OnFailure   []*Step
	Watchers    []*Watcher
	Steps       []*Step

	src []byte
}

// Param is one declared playbook parameter.
type Param struct {
	Name     string
	Type     string // string, int, number, bool or list
	Default  *Value // nil when there is none
	Required bool
	Secret   bool // masked in logs, labels and reports
	Pos      Pos
}

// Defaults are the header's defaults block.
type Defaults struct {
	Timeout       time.Duration // default step timeout (5s when unset)
	SettleIdle    bool          // wait.idle after every action
	SettleTimeout time.Duration // timeout of that wait (2s when unset)
	TapRetry      int           // re-tap up to N times when the screen did not change (0 = off)
}

// Watcher runs Do whenever When is visible, between steps and while a
// step waits, at most MaxHits times.
type Watcher struct {
	Pos     Pos
	Label   string
	When    *Selector
	Do      []*Step
	MaxHits int
}

// Step is one step of any kind: the fields every step has, plus Node, the
// kind's own typed fields (a pointer to the node struct its family file
// declares next to its parser and generator).
type Step struct {
	Kind     string
	Pos      Pos
	Path     string // "steps[3].tap"
	Label    string // the user's label; "" when none
	Optional bool
	Timeout  time.Duration // 0 = the playbook default

	Sel *Selector // target of element steps
	// Nested steps stay here rather than in the nodes so that walking a
	// playbook (plans, includes, variables) needs no knowledge of kinds.
	Branches []*Branch // if/elif (and the condition of repeat while/until)
	Else     []*Step
	Steps    []*Step // body of repeat, for_each, retry

	Node stepNode // the kind's own fields; set by the kind's parser

	summary string // default label
}

// Branch is a condition and the steps it guards.
type Branch struct {
	Pos   Pos
	Cond  *Cond
	Steps []*Step
}

// Cond is a condition: an element is visible, gone, or a Lua expression is
// truthy.
type Cond struct {
	Pos  Pos
	Kind string // visible, gone or expr
	Sel  *Selector
	Expr string
}

// Selector finds an element. Short is a bare string (text, content-desc or
// hint); otherwise Fields and Relations hold the mapping form.
type Selector struct {
	Pos       Pos
	Short     *Str
	Fields    []SelField
	Relations []SelRelation
}

// SelField is one field of a selector mapping.
type SelField struct {
	Name  string
	Value *Value
}

// SelRelation is a relation to another element (below, child_of, ...).
type SelRelation struct {
	Name string
	Sel  *Selector
}

// ValueKind is the kind of a literal value.
type ValueKind int

// Value kinds.
const (
	VNull ValueKind = iota
	VBool
	VInt
	VNumber
	VString
	VList
	VMap
)

// Value is a YAML literal: a scalar (strings may interpolate ${expr}), a
// list or a mapping (keys in source order).
type Value struct {
	Kind ValueKind
	Pos  Pos
	Bool bool
	Int  int64
	Num  float64
	Str  *Str
	List []*Value
	Keys []string
	Map  []*Value
}

// Str is a string with ${expr} interpolation parsed into parts.
type Str struct {
	Raw   string
	Parts []StrPart
	Pos   Pos
}

// StrPart is literal text or a Lua expression.
type StrPart struct {
	Text   string
	IsExpr bool
}

// Static returns the string when it has no interpolation.
func (s *Str) Static() (string, bool) {
	if s == nil {
		return "", true
	}
	var out string
	for _, p := range s.Parts {
		if p.IsExpr {
			return "", false
		}
		out += p.Text
	}
	return out, true
}

// Whole returns the expression when the string is exactly one ${expr}.
func (s *Str) Whole() (string, bool) {
	if s != nil && len(s.Parts) == 1 && s.Parts[0].IsExpr {
		return s.Parts[0].Text, true
	}
	return "", false
}
