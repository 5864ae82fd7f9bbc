// Package maestro converts Maestro flows (YAML with an optional config
// document: appId, env, tags, onFlowStart, onFlowComplete, then a list of
// commands) into OpenPocket playbooks with the same file layout. It maps
// every command of Maestro's public command reference onto playbook steps,
// translates the simple JavaScript Maestro embeds into Lua (js.go), and
// keeps what it cannot translate as a commented TODO block with a warning
// naming the Maestro file and line. A Report says per file whether it was
// converted fully, with warnings, or not at all and why.
package maestro

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/openpocket/openpocket/internal/atomicfile"
)

// Status is the outcome of converting one file.
type Status string

// The three outcomes a report distinguishes.
const (
	Converted    Status = "converted"
	WithWarnings Status = "converted with warnings"
	Failed       Status = "not convertible"
)

// Warning is something the converter could not carry over exactly, at a
// position in the Maestro file.
type Warning struct {
	File    string
	Line    int
	Message string
}

func (w Warning) String() string { return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Message) }

// FileResult is one converted (or rejected) file.
type FileResult struct {
	Source   string // the Maestro file
	Output   string // the playbook written ("" when Failed)
	Status   Status
	Commands int // Maestro commands seen (nested ones included)
	Warnings []Warning
	Reason   string // why the file is not convertible
}

// Report lists every file's result in path order.
type Report struct {
	Files []FileResult
}

// Counts returns how many files were converted fully, with warnings, and
// not at all.
func (r *Report) Counts() (full, warned, failed int) {
	for _, f := range r.Files {
		switch f.Status {
		case Converted:
			full++
		case WithWarnings:
			warned++
		default:
			failed++
		}
	}
	return
}

// Write prints the report: one line per file, its warnings indented, and
// the totals.
func (r *Report) Write(w io.Writer) {
	for _, f := range r.Files {
		switch f.Status {
		case Failed:
			fmt.Fprintf(w, "%-24s %s: %s\n", f.Status, f.Source, f.Reason)
		default:
			fmt.Fprintf(w, "%-24s %s -> %s (%d commands)\n", f.Status, f.Source, f.Output, f.Commands)
		}
		for _, wn := range f.Warnings {
			fmt.Fprintf(w, "    warning: %s\n", wn)
		}
	}
	full, warned, failed := r.Counts()
	fmt.Fprintf(w, "%d files: %d converted, %d with warnings, %d not convertible\n", len(r.Files), full, warned, failed)
}

// flowFile is a loaded Maestro file.
type flowFile struct {
	path     string // as found (cleaned)
	rel      string // relative to the root
	config   *yaml.Node
	commands *yaml.Node
	err      error
}

// Converter converts a set of flows rooted at one directory.
type Converter struct {
	root   string
	outDir string
	files  map[string]*flowFile
	order  []string
	passed map[string]map[string]bool // sub-flow path → env keys callers pass
}

// Convert converts a flow file or every flow under a directory (following
// runFlow references) and writes the playbooks under outDir with the same
// relative layout. Files are written atomically; the report covers every
// file, also those that failed.
func Convert(path, outDir string) (*Report, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	c := &Converter{outDir: outDir, files: map[string]*flowFile{}, passed: map[string]map[string]bool{}}
	var start []string
	if info.IsDir() {
		c.root = filepath.Clean(path)
		err = filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
				start = append(start, filepath.Clean(p))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	} else {
		c.root = filepath.Dir(filepath.Clean(path))
		start = []string{filepath.Clean(path)}
	}
	if abs, err := filepath.Abs(outDir); err == nil {
		if rootAbs, err := filepath.Abs(c.root); err == nil && abs == rootAbs {
			return nil, fmt.Errorf("output directory %s is the input directory: choose another with -o", outDir)
		}
	}
	for _, p := range start {
		c.load(p)
	}
	rep := &Report{}
	for _, p := range c.order {
		rep.Files = append(rep.Files, c.convertFile(c.files[p]))
	}
	sort.Slice(rep.Files, func(i, j int) bool { return rep.Files[i].Source < rep.Files[j].Source })
	return rep, nil
}

// load reads a flow and, recursively, the flows its runFlow commands name.
func (c *Converter) load(path string) *flowFile {
	if f, ok := c.files[path]; ok {
		return f
	}
	rel, err := filepath.Rel(c.root, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = filepath.Base(path)
	}
	f := &flowFile{path: path, rel: rel}
	c.files[path] = f
	c.order = append(c.order, path)
	src, err := os.ReadFile(path)
	if err != nil {
		f.err = err
		return f
	}
	f.config, f.commands, f.err = splitDocs(src)
	if f.err != nil {
		return f
	}
	walkCommands(f.commands, func(name string, val *yaml.Node) {
		if name != "runFlow" && name != "retry" {
			return
		}
		file := ""
		var env *yaml.Node
		switch {
		case val.Kind == yaml.ScalarNode:
			file = val.Value
		case val.Kind == yaml.MappingNode:
			file = mapGet(val, "file").Value
			env = mapGet(val, "env")
		}
		if file == "" || strings.Contains(file, "${") {
			return
		}
		sub := filepath.Clean(filepath.Join(filepath.Dir(path), file))
		c.load(sub)
		if env != nil && env.Kind == yaml.MappingNode {
			if c.passed[sub] == nil {
				c.passed[sub] = map[string]bool{}
			}
			for i := 0; i+1 < len(env.Content); i += 2 {
				c.passed[sub][env.Content[i].Value] = true
			}
		}
	})
	return f
}

var errNotFlow = errors.New("not a Maestro flow: expected a list of commands, optionally after a config document (appId: …, then ---)")

// splitDocs separates the optional config document from the command list.
func splitDocs(src []byte) (config, commands *yaml.Node, err error) {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var docs []*yaml.Node
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, nil, fmt.Errorf("invalid YAML: %w", err)
		}
		if len(n.Content) > 0 {
			docs = append(docs, n.Content[0])
		}
	}
	switch {
	case len(docs) == 1 && docs[0].Kind == yaml.SequenceNode:
		return nil, docs[0], nil
	case len(docs) == 2 && docs[0].Kind == yaml.MappingNode && docs[1].Kind == yaml.SequenceNode:
		return docs[0], docs[1], nil
	case len(docs) == 1 && docs[0].Kind == yaml.MappingNode && mapGet(docs[0], "flows").Kind != 0:
		return nil, nil, errors.New("a Maestro workspace config (config.yaml), not a flow: nothing to convert")
	case len(docs) == 1 && docs[0].Kind == yaml.MappingNode:
		return nil, nil, errors.New("a config document without commands: add --- and the command list")
	}
	return nil, nil, errNotFlow
}

// walkCommands calls fn for every command, nested ones included.
func walkCommands(list *yaml.Node, fn func(name string, val *yaml.Node)) {
	if list == nil || list.Kind != yaml.SequenceNode {
		return
	}
	for _, item := range list.Content {
		name, val := commandOf(item)
		if name == "" {
			continue
		}
		fn(name, val)
		if val != nil && val.Kind == yaml.MappingNode {
			walkCommands(mapGet(val, "commands"), fn)
		}
	}
}

// commandOf splits `- name: value` or `- name` into its parts.
func commandOf(item *yaml.Node) (string, *yaml.Node) {
	switch {
	case item.Kind == yaml.ScalarNode:
		return item.Value, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: item.Line}
	case item.Kind == yaml.MappingNode && len(item.Content) >= 2:
		return item.Content[0].Value, item.Content[1]
	}
	return "", nil
}

var empty = &yaml.Node{}

// mapGet returns a mapping's value for key, or an empty node.
func mapGet(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return empty
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return empty
}

func (c *Converter) outPath(f *flowFile) string {
	return filepath.Join(c.outDir, f.rel)
}

func (c *Converter) convertFile(f *flowFile) FileResult {
	res := FileResult{Source: f.path}
	if f.err != nil {
		res.Status, res.Reason = Failed, f.err.Error()
		return res
	}
	fc := &flowConv{c: c, f: f, vars: map[string]bool{}, locals: map[string]bool{}}
	out, err := fc.playbook()
	res.Warnings, res.Commands = fc.warnings, fc.commands
	if err != nil {
		res.Status, res.Reason = Failed, err.Error()
		return res
	}
	dst := c.outPath(f)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		res.Status, res.Reason = Failed, err.Error()
		return res
	}
	if err := atomicfile.WriteFile(dst, out, 0o644); err != nil {
		res.Status, res.Reason = Failed, err.Error()
		return res
	}
	res.Output = dst
	res.Status = Converted
	if len(res.Warnings) > 0 {
		res.Status = WithWarnings
	}
	return res
}

// ConvertFlow converts one flow's source without following runFlow files;
// file names the source in warnings. It is the unit the tests exercise.
func ConvertFlow(src []byte, file string) ([]byte, []Warning, error) {
	f := &flowFile{path: file, rel: filepath.Base(file)}
	f.config, f.commands, f.err = splitDocs(src)
	if f.err != nil {
		return nil, nil, f.err
	}
	fc := &flowConv{c: &Converter{passed: map[string]map[string]bool{}}, f: f, vars: map[string]bool{}, locals: map[string]bool{}}
	out, err := fc.playbook()
	return out, fc.warnings, err
}
