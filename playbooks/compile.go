package playbooks

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Options configure a compilation.
type Options struct {
	// File is the playbook's path, used in positions and to resolve run
	// steps' relative paths.
	File string
	// Params override parameter defaults (openpocket -e KEY=VALUE); values
	// are converted to the declared type.
	Params map[string]string
	// ResolveInclude loads a playbook named by a run step. path is already
	// joined with the including file's directory; it returns the source and
	// the name used in positions and cycle detection. Default: read the
	// file from disk.
	ResolveInclude func(path string) (src []byte, name string, err error)
	// DryRun makes Compile return the plan listing (FormatPlan) instead of
	// Lua.
	DryRun bool

	// Lint accepts missing required parameters (they come at run time);
	// given ones are still checked.
	Lint bool
}

// Result is a compilation's output.
type Result struct {
	Lua      []byte
	Warnings []Warning
	Map      *SourceMap
	Meta     Meta
	Plan     []PlanStep
	// Chunk is the chunk name to run Lua under (the file name plus
	// ".lua"), so Map.VMFunc(Chunk) can tell generated lines from YAML
	// positions in messages.
	Chunk string
	// Secrets are the -e values of secret parameters, converted to their
	// types. They are not in Lua: pass Globals() to the VM that runs it.
	Secrets map[string]any
	// UsesAI reports AI steps (ai_tap, ai_assert, ai_extract, agent): the
	// run gives its engine the model.
	UsesAI bool
}

// SecretsGlobal is the Lua global through which a run receives its secret
// parameter values; the flow runtime takes the table out of _G on first
// use.
const SecretsGlobal = "__OPENPOCKET_SECRET_PARAMS"

// Globals are the Lua globals the run of this result needs (lua.Options
// Globals): the secret parameter values, or nil when there are none.
func (r *Result) Globals() map[string]any {
	if len(r.Secrets) == 0 {
		return nil
	}
	return map[string]any{SecretsGlobal: r.Secrets}
}

// Meta describes the compiled playbook.
type Meta struct {
	Name        string
	Description string
	App         string
	Tags        []string
	Params      []ParamInfo
	Steps       int      // top-level steps
	Files       []string // the playbook and every included file
}

// ParamInfo is a declared parameter and the value the run will use
// (Value is nil when it has no default and none was given; secret values
// are masked as "•••").
type ParamInfo struct {
	Name     string
	Type     string
	Default  any
	Value    any
	Required bool
	Secret   bool
}

// PlanStep is one line of a dry run.
type PlanStep struct {
	ID       string // "3", "4.1", "on_start.1", "watcher1.1"
	Depth    int
	File     string
	Line     int
	Kind     string
	Label    string
	Optional bool
}

// Compile compiles a playbook to Lua that runs on the flow runtime
// (RuntimeSource). err is an ErrorList with every problem found.
func Compile(src []byte, opts Options) (lua []byte, warnings []Warning, err error) {
	res, err := CompileWithMap(src, opts)
	if res != nil {
		warnings = res.Warnings
	}
	if err != nil {
		return nil, warnings, err
	}
	if opts.DryRun {
		return []byte(FormatPlan(res.Plan)), warnings, nil
	}
	return res.Lua, warnings, nil
}

// CompileWithMap compiles like Compile and also returns the source map,
// metadata and plan. On error the Result still carries the warnings.
func CompileWithMap(src []byte, opts Options) (*Result, error) {
	if opts.File == "" {
		opts.File = "playbook.yaml"
	}
	if opts.ResolveInclude == nil {
		opts.ResolveInclude = func(path string) ([]byte, string, error) {
			b, err := os.ReadFile(path)
			return b, filepath.Clean(path), err
		}
	}
	c := &compiler{opts: opts, loaded: map[string]*Playbook{}}
	res := &Result{Chunk: opts.File + ".lua"}
	main := c.load(src, opts.File)
	if main != nil && len(c.errs) == 0 {
		c.checkOverrides(main)
	}
	if len(c.errs) > 0 {
		res.Warnings = c.warns
		return res, c.sorted()
	}
	g := newGen(c, main)
	g.generate()
	c.warns = append(c.warns, g.warns...)
	if len(c.errs) > 0 {
		res.Warnings = c.warns
		return res, c.errs
	}
	res.Lua = g.w.buf.Bytes()
	res.Map = &SourceMap{lines: g.w.origins}
	res.Warnings = c.warns
	res.Meta = c.meta(main)
	res.Plan = plan(main)
	res.Secrets = c.secrets(main)
	res.UsesAI = g.uses["ai"]
	return res, nil
}

// secrets collects the typed -e values of secret parameters.
func (c *compiler) secrets(pb *Playbook) map[string]any {
	var out map[string]any
	for _, p := range pb.Params {
		if v, ok := c.overrideValue(p); ok && p.Secret {
			if out == nil {
				out = map[string]any{}
			}
			out[p.Name] = valueToGo(v)
		}
	}
	return out
}

// Plan returns the dry-run listing of a playbook without compiling it to
// Lua: every step (nested ones indented, included playbooks expanded) with
// its number, file:line and label.
func Plan(src []byte, opts Options) ([]PlanStep, []Warning, error) {
	res, err := CompileWithMap(src, opts)
	if err != nil {
		return nil, res.Warnings, err
	}
	return res.Plan, res.Warnings, nil
}

// FormatPlan renders a plan, one step per line.
func FormatPlan(steps []PlanStep) string {
	var b strings.Builder
	w, wp := 0, 0
	for _, s := range steps {
		w = max(w, len(s.ID)+2*s.Depth)
		wp = max(wp, len(fmt.Sprintf("%s:%d", s.File, s.Line)))
	}
	for _, s := range steps {
		id := strings.Repeat("  ", s.Depth) + s.ID
		opt := ""
		if s.Optional {
			opt = " (optional)"
		}
		fmt.Fprintf(&b, "%-*s  %-*s  %s%s\n", w, id, wp, fmt.Sprintf("%s:%d", s.File, s.Line), s.Label, opt)
	}
	return b.String()
}

// Lint compiles every file (without running anything, and accepting
// missing required parameters) and returns all warnings and errors.
func Lint(files ...string) ([]Warning, error) {
	var warns []Warning
	var errs []error
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		res, err := CompileWithMap(src, Options{File: f, Lint: true})
		warns = append(warns, res.Warnings...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return warns, errors.Join(errs...)
}

type compiler struct {
	opts   Options
	loaded map[string]*Playbook // by resolved name
	order  []string
	stack  []string
	errs   ErrorList
	warns  []Warning
}

// sorted orders errors by file (in load order), line and column.
func (c *compiler) sorted() ErrorList {
	idx := map[string]int{}
	for i, f := range c.order {
		idx[f] = i
	}
	out := append(ErrorList(nil), c.errs...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if idx[a.File] != idx[b.File] {
			return idx[a.File] < idx[b.File]
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	return out
}

func (c *compiler) addErrs(errs ErrorList) {
	for _, e := range errs {
		if len(c.errs) < 4*maxErrors {
			c.errs = append(c.errs, e)
		}
	}
}

// load parses a file and, recursively, the playbooks it runs.
func (c *compiler) load(src []byte, name string) *Playbook {
	p := &parser{file: name, src: src}
	pb := p.parse()
	c.addErrs(p.errs)
	c.warns = append(c.warns, p.warns...)
	c.loaded[name] = pb
	c.order = append(c.order, name)
	c.stack = append(c.stack, name)
	defer func() { c.stack = c.stack[:len(c.stack)-1] }()
	walkSteps(pb, func(s *Step) {
		switch n := s.Node.(type) {
		case *runNode:
			if n.File != "" {
				c.include(pb, s, n)
			}
		case *appNode:
			if n.App == nil && pb.App == "" {
				c.errs = append(c.errs, &Error{File: s.Pos.File, Line: s.Pos.Line, Column: s.Pos.Column, Step: s.Path,
					Message: fmt.Sprintf("%s needs an app package: write `%s: com.example.app` or set app: in the header", s.Kind, s.Kind),
					Snippet: snippet(pb.src, s.Pos.Line, s.Pos.Column)})
			}
		}
	})
	return pb
}

func (c *compiler) include(from *Playbook, s *Step, n *runNode) {
	path := n.File
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(from.File), path)
	}
	src, name, err := c.opts.ResolveInclude(path)
	if name == "" {
		name = path
	}
	perr := func(format string, args ...any) {
		c.errs = append(c.errs, &Error{File: s.Pos.File, Line: s.Pos.Line, Column: s.Pos.Column, Step: s.Path,
			Message: fmt.Sprintf(format, args...), Snippet: snippet(from.src, s.Pos.Line, s.Pos.Column)})
	}
	for i, f := range c.stack {
		if filepath.Clean(f) == filepath.Clean(name) {
			chain := append(append([]string{}, c.stack[i:]...), name)
			perr("include cycle: %s", strings.Join(chain, " → "))
			return
		}
	}
	if err != nil {
		perr("cannot read %s: %v", n.File, unwrapPathError(err))
		return
	}
	if len(c.stack) > 32 {
		perr("playbooks nested more than 32 levels deep")
		return
	}
	sub, ok := c.loaded[name]
	if !ok {
		sub = c.load(src, name)
	}
	n.Sub, n.SubPath = sub, name
	c.checkRunParams(from, s, n)
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// checkRunParams validates a run step's params against the included
// playbook's declarations.
func (c *compiler) checkRunParams(from *Playbook, s *Step, n *runNode) {
	sub, given := n.Sub, n.Params
	declared := map[string]*Param{}
	var names []string
	for _, p := range sub.Params {
		declared[p.Name] = p
		names = append(names, p.Name)
	}
	errAt := func(pos Pos, format string, args ...any) {
		c.errs = append(c.errs, &Error{File: pos.File, Line: pos.Line, Column: pos.Column, Step: s.Path,
			Message: fmt.Sprintf(format, args...), Snippet: snippet(from.src, pos.Line, pos.Column)})
	}
	have := map[string]bool{}
	if given != nil {
		for i, k := range given.Keys {
			v := given.Map[i]
			have[k] = true
			p, ok := declared[k]
			if !ok {
				errAt(v.Pos, "%s has no parameter %q%s (parameters: %s)", n.File, k, didYouMean(k, names), strings.Join(names, ", "))
				continue
			}
			if _, msg := convertValue(v, p.Type); msg != "" && v.Kind != VNull {
				errAt(v.Pos, "parameter %q %s", k, msg)
			}
		}
	}
	for _, p := range sub.Params {
		if p.Required && p.Default == nil && !have[p.Name] {
			errAt(s.Pos, "%s needs parameter %q", n.File, p.Name)
		}
	}
}

// checkOverrides converts -e values and checks required parameters.
func (c *compiler) checkOverrides(pb *Playbook) {
	var names []string
	byName := map[string]*Param{}
	for _, p := range pb.Params {
		names = append(names, p.Name)
		byName[p.Name] = p
	}
	keys := make([]string, 0, len(c.opts.Params))
	for k := range c.opts.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fileErr := func(format string, args ...any) {
		c.errs = append(c.errs, &Error{File: pb.File, Message: fmt.Sprintf(format, args...)})
	}
	for _, k := range keys {
		p, ok := byName[k]
		if !ok {
			fileErr("-e %s: the playbook has no parameter %q%s (parameters: %s)", k, k, didYouMean(k, names), strings.Join(names, ", "))
			continue
		}
		raw := c.opts.Params[k]
		v := &Value{Kind: VString, Pos: p.Pos, Str: &Str{Raw: raw, Parts: []StrPart{{Text: raw}}}}
		if _, msg := convertValue(v, p.Type); msg != "" {
			if p.Secret {
				// The message quotes the value, which must not be shown.
				msg = "must be " + typePhrase(p.Type) + " (the secret value is not shown)"
			}
			fileErr("-e %s: parameter %q %s", k, k, msg)
		}
	}
	if c.opts.Lint {
		return
	}
	for _, p := range pb.Params {
		if _, given := c.opts.Params[p.Name]; p.Required && p.Default == nil && !given {
			c.errs = append(c.errs, &Error{File: p.Pos.File, Line: p.Pos.Line, Column: p.Pos.Column, Step: "params." + p.Name,
				Message: fmt.Sprintf("required parameter %q has no value: pass -e %s=VALUE", p.Name, p.Name),
				Snippet: snippet(pb.src, p.Pos.Line, p.Pos.Column)})
		}
	}
}

// overrideValue returns the typed -e value of a parameter.
func (c *compiler) overrideValue(p *Param) (*Value, bool) {
	raw, ok := c.opts.Params[p.Name]
	if !ok {
		return nil, false
	}
	v := &Value{Kind: VString, Pos: p.Pos, Str: &Str{Raw: raw, Parts: []StrPart{{Text: raw}}}}
	cv, _ := convertValue(v, p.Type)
	return cv, true
}

func (c *compiler) meta(pb *Playbook) Meta {
	m := Meta{Name: pb.Name, Description: pb.Description, App: pb.App, Tags: pb.Tags, Steps: len(pb.Steps), Files: c.order}
	if m.Name == "" {
		m.Name = strings.TrimSuffix(filepath.Base(pb.File), filepath.Ext(pb.File))
	}
	for _, p := range pb.Params {
		pi := ParamInfo{Name: p.Name, Type: p.Type, Required: p.Required, Secret: p.Secret}
		if p.Default != nil {
			pi.Default = valueToGo(p.Default)
		}
		pi.Value = pi.Default
		if v, ok := c.overrideValue(p); ok {
			pi.Value = valueToGo(v)
		}
		if p.Secret {
			if pi.Default != nil {
				pi.Default = "•••"
			}
			if pi.Value != nil {
				pi.Value = "•••"
			}
		}
		m.Params = append(m.Params, pi)
	}
	return m
}

// walkSteps calls fn for every step of the playbook, nested ones included
// (not those of included playbooks).
func walkSteps(pb *Playbook, fn func(*Step)) {
	var walk func([]*Step)
	walk = func(steps []*Step) {
		for _, s := range steps {
			fn(s)
			for _, b := range s.Branches {
				walk(b.Steps)
			}
			walk(s.Else)
			walk(s.Steps)
		}
	}
	walk(pb.OnStart)
	for _, w := range pb.Watchers {
		walk(w.Do)
	}
	walk(pb.Steps)
	walk(pb.OnComplete)
	walk(pb.OnFailure)
}

// plan lists the steps for a dry run.
func plan(pb *Playbook) []PlanStep {
	var out []PlanStep
	var list func(steps []*Step, prefix string, depth int, seen int)
	list = func(steps []*Step, prefix string, depth int, seen int) {
		n := 0
		var one func(s *Step)
		one = func(s *Step) {
			n++
			id := fmt.Sprint(n)
			if prefix != "" {
				id = prefix + "." + id
			}
			out = append(out, PlanStep{ID: id, Depth: depth, File: s.Pos.File, Line: s.Pos.Line, Kind: s.Kind, Label: labelOf(s), Optional: s.Optional})
			var kids []*Step
			for _, b := range s.Branches {
				kids = append(kids, b.Steps...)
			}
			kids = append(kids, s.Else...)
			kids = append(kids, s.Steps...)
			if len(kids) > 0 {
				list(kids, id, depth+1, seen)
			}
			if r, ok := s.Node.(*runNode); ok && r.Sub != nil && seen < 32 {
				list(r.Sub.Steps, id, depth+1, seen+1)
			}
		}
		for _, s := range steps {
			one(s)
		}
	}
	list(pb.OnStart, "on_start", 0, 0)
	for i, w := range pb.Watchers {
		list(w.Do, fmt.Sprintf("watcher%d", i+1), 0, 0)
	}
	list(pb.Steps, "", 0, 0)
	list(pb.OnComplete, "on_complete", 0, 0)
	list(pb.OnFailure, "on_failure", 0, 0)
	return out
}

func labelOf(s *Step) string {
	if s.Label != "" {
		return s.Label
	}
	if s.summary != "" {
		return s.summary
	}
	return s.Kind
}
