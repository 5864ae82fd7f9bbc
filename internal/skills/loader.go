package skills

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/openpocket/openpocket/engine/hostfs"
	"github.com/openpocket/openpocket/engine/prompt"
)

//go:embed bundled/*.md
var bundledFS embed.FS

// Source is where a skill comes from; later sources are more specific.
type Source int

// Skill sources, least specific first.
const (
	SourceBundled Source = iota
	SourceHome
	SourceWorkspace
)

func (s Source) String() string {
	switch s {
	case SourceBundled:
		return "bundled"
	case SourceHome:
		return "home"
	case SourceWorkspace:
		return "workspace"
	}
	return "unknown"
}

// Skill is one loaded skill.
type Skill struct {
	Name        string
	Description string
	// Location says where the skill comes from: the workspace-relative path
	// for workspace skills, the absolute path for home skills,
	// "bundled:<file>" for bundled ones. [Loader.Index] points the model to
	// a readable workspace copy of the last two.
	Location string
	// Path is the file on disk ("" for bundled skills).
	Path     string
	Source   Source
	Metadata map[string]any
	// Body is the markdown after the frontmatter.
	Body string
	// Auto marks generated skills (skills/auto).
	Auto bool
	// Shadows lists less specific skills with the same name this one hides.
	Shadows []string
	// Missing lists the requirements of its metadata this machine lacks
	// (filled by [Available]); such a skill is hidden from the model.
	Missing []string
}

// Loader finds skills in the bundled set, OPENPOCKET_HOME/skills and
// workspace/skills.
type Loader struct {
	// HomeDir is OPENPOCKET_HOME ("" skips home skills).
	HomeDir string
	// WorkspaceDir is the workspace ("" skips workspace skills).
	WorkspaceDir string
	// Bundled replaces the embedded skills (tests); files are read from
	// its "bundled" directory. NoBundled skips them.
	Bundled   fs.FS
	NoBundled bool
	// Env checks the skills' required environment variables and binaries
	// (the process's when zero).
	Env Env
}

// Load reads every skill. For the same name the more specific source wins
// (workspace over home over bundled); within one source the first path in
// lexical order wins. Problems (unreadable files, bad frontmatter,
// duplicate names) are returned beside the skills that did load.
func (l *Loader) Load() ([]Skill, []error) {
	var all []Skill
	var problems []error
	if !l.NoBundled {
		fsys := l.Bundled
		if fsys == nil {
			fsys = bundledFS
		}
		s, p := loadFS(fsys, "bundled", SourceBundled)
		all, problems = append(all, s...), append(problems, p...)
	}
	if l.HomeDir != "" {
		s, p := loadDir(filepath.Join(l.HomeDir, "skills"), "", SourceHome)
		all, problems = append(all, s...), append(problems, p...)
	}
	if l.WorkspaceDir != "" {
		s, p := loadDir(filepath.Join(l.WorkspaceDir, "skills"), l.WorkspaceDir, SourceWorkspace)
		all, problems = append(all, s...), append(problems, p...)
	}
	byName := map[string]int{}
	var out []Skill
	for _, s := range all {
		key := strings.ToLower(s.Name)
		i, dup := byName[key]
		switch {
		case !dup:
			byName[key] = len(out)
			out = append(out, s)
		case s.Source > out[i].Source:
			s.Shadows = append(append(s.Shadows, out[i].Shadows...), out[i].Location)
			out[i] = s
		default:
			if s.Source == out[i].Source {
				problems = append(problems, fmt.Errorf("%s: skill name %q is also used by %s (that one is used)", s.Location, s.Name, out[i].Location))
			}
			out[i].Shadows = append(out[i].Shadows, s.Location)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, problems
}

func loadFS(fsys fs.FS, root string, src Source) ([]Skill, []error) {
	var out []Skill
	var problems []error
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			problems = append(problems, err)
			return nil
		}
		if d.IsDir() || path.Ext(p) != ".md" {
			return nil
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			problems = append(problems, err)
			return nil
		}
		s, err := Parse(path.Base(p), b)
		if err != nil {
			problems = append(problems, fmt.Errorf("bundled:%s: %w", path.Base(p), err))
			return nil
		}
		s.Source, s.Location = src, "bundled:"+strings.TrimPrefix(p, root+"/")
		out = append(out, s)
		return nil
	})
	if err != nil {
		problems = append(problems, err)
	}
	return out, problems
}

func loadDir(dir, relTo string, src Source) ([]Skill, []error) {
	var out []Skill
	var problems []error
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				problems = append(problems, err)
			}
			return nil
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if filepath.Ext(p) != ".md" {
			return nil
		}
		s, err := loadFileIn(relTo, p)
		if err != nil {
			problems = append(problems, err)
			return nil
		}
		s.Source = src
		if relTo != "" {
			if rel, err := filepath.Rel(relTo, p); err == nil {
				s.Location = filepath.ToSlash(rel)
			}
		}
		out = append(out, s)
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		problems = append(problems, err)
	}
	return out, problems
}

// maxSkillBytes caps a skill or replay script the host reads.
const maxSkillBytes = 4 << 20

// LoadFile reads one skill file (Source is left as workspace; Location is
// the path). The file must be regular (a FIFO is an error at once).
func LoadFile(p string) (Skill, error) { return loadFileIn("", p) }

// FindIn is Find for a name or path a model may have written (a
// hand-edited scheduled job): with a root (the workspace) a skill file is
// read through an os.Root there — no "..", absolute path or link out, no
// FIFO; "" is Find.
func (l *Loader) FindIn(root, name string) (Skill, error) {
	if root == "" || !strings.HasSuffix(name, ".md") {
		return l.Find(name)
	}
	return loadFileIn(root, name)
}

// loadFileIn reads a skill file; with a root (the workspace, which the
// model writes) through hostfs there, so a link is refused, not followed.
func loadFileIn(root, p string) (Skill, error) {
	b, err := readSkillFile(root, p)
	if err != nil {
		return Skill{}, err
	}
	s, err := Parse(filepath.Base(p), b)
	if err != nil {
		return Skill{}, fmt.Errorf("%s: %w", p, err)
	}
	abs, _ := filepath.Abs(p)
	s.Path, s.Location, s.Source = abs, abs, SourceWorkspace
	s.Auto = filepath.Base(filepath.Dir(abs)) == "auto"
	return s, nil
}

// Parse reads skill markdown: optional frontmatter between "---" lines with
// name, description and metadata (JSON); without a name, the first "# "
// heading or the file name; without a description, the first non-heading
// line of the body.
func Parse(file string, data []byte) (Skill, error) {
	text := strings.ReplaceAll(strings.TrimPrefix(string(data), "\ufeff"), "\r\n", "\n")
	var s Skill
	body := text
	if strings.HasPrefix(text, "---\n") {
		// Search from the newline ending the opening line, so an empty
		// frontmatter ("---\n---") closes too.
		end := strings.Index(text[3:], "\n---")
		if end < 0 {
			return s, errors.New("frontmatter: no closing --- line")
		}
		front := text[4:max(4, 3+end)]
		rest := text[3+end+4:]
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			rest = rest[i+1:]
		} else {
			rest = ""
		}
		body = rest
		for n, line := range strings.Split(front, "\n") {
			if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				return s, fmt.Errorf("frontmatter line %d: expected key: value, got %q", n+2, line)
			}
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			switch k {
			case "name":
				s.Name = unquote(v)
			case "description":
				s.Description = unquote(v)
			case "metadata":
				if v == "" {
					continue
				}
				var m map[string]any
				if err := json.Unmarshal([]byte(v), &m); err != nil {
					return s, fmt.Errorf("frontmatter line %d: metadata must be a JSON object on one line: %v", n+2, err)
				}
				s.Metadata = m
			}
		}
	}
	s.Body = body
	var heading, first string
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "" || strings.HasPrefix(t, "```") || strings.HasPrefix(t, "---"):
		case strings.HasPrefix(t, "# "):
			if heading == "" {
				heading = strings.TrimSpace(t[2:])
			}
		case strings.HasPrefix(t, "#"):
		default:
			if first == "" {
				first = t
			}
		}
		if heading != "" && first != "" {
			break
		}
	}
	if s.Name == "" {
		s.Name = heading
	}
	if s.Name == "" {
		s.Name = strings.TrimSuffix(file, filepath.Ext(file))
	}
	if s.Description == "" {
		s.Description = first
	}
	if strings.TrimSpace(s.Name) == "" {
		return s, errors.New("skill has no name")
	}
	return s, nil
}

func unquote(v string) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		var s string
		if json.Unmarshal([]byte(v), &s) == nil {
			return s
		}
	}
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'")
	}
	return v
}

// DefaultIndexBudget caps the prompt's skills index (characters).
const DefaultIndexBudget = 8000

// Index is the skills index for the agent's system prompt: name,
// description (with the metadata's trigger phrases) and location of each
// skill, as many as fit in budget
// characters (DefaultIndexBudget when ≤ 0), workspace skills first, then
// home, then bundled; by name within a source.
func Index(skills []Skill, budget int) []prompt.Skill {
	if budget <= 0 {
		budget = DefaultIndexBudget
	}
	sorted := append([]Skill(nil), skills...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Source > sorted[j].Source })
	var out []prompt.Skill
	used := 0
	for _, s := range sorted {
		desc := indexDescription(s)
		n := len(s.Name) + len(desc) + len(s.Location) + 20
		if used+n > budget {
			break
		}
		used += n
		out = append(out, prompt.Skill{Name: s.Name, Description: desc, Location: s.Location})
	}
	return out
}

// Index loads the skills and returns [Index] of those whose requirements
// are met (problems ignored; skills missing an environment variable or a
// binary their metadata requires are hidden, see [Available]).
// The model reads a skill with the read tool, which only reaches the
// workspace; so with a WorkspaceDir, bundled and home skills are copied to
// ReadableDir and the index points there.
func (l *Loader) Index(budget int) []prompt.Skill {
	all, _ := l.Load()
	all, _ = Available(all, l.Env)
	for i := range all {
		if loc, err := l.readableCopy(all[i]); err == nil && loc != "" {
			all[i].Location = loc
		}
	}
	return Index(all, budget)
}

// ReadableDir is the workspace-relative directory holding copies of the
// bundled and home skills the prompt's index points to (a dot directory
// outside skills/, so the loader never sees them twice).
const ReadableDir = ".openpocket/skills"

// readableCopy copies a skill from outside the workspace to
// ReadableDir/<source>/<file> (rewritten only when it changed) and returns
// that workspace-relative path; "" for workspace skills or without a
// workspace.
func (l *Loader) readableCopy(s Skill) (string, error) {
	if l.WorkspaceDir == "" || s.Source == SourceWorkspace {
		return "", nil
	}
	var (
		data []byte
		file string
		err  error
	)
	switch s.Source {
	case SourceBundled:
		file = strings.TrimPrefix(s.Location, "bundled:")
		fsys := l.Bundled
		if fsys == nil {
			fsys = bundledFS
		}
		data, err = fs.ReadFile(fsys, path.Join("bundled", file))
	case SourceHome:
		var dir string
		if dir, err = filepath.Abs(filepath.Join(l.HomeDir, "skills")); err == nil {
			if file, err = filepath.Rel(dir, s.Path); err == nil && !filepath.IsLocal(file) {
				err = fmt.Errorf("%s is not under %s", s.Path, dir)
			}
		}
		if err == nil {
			file = filepath.ToSlash(file)
			data, err = hostfs.ReadRegular(s.Path, maxSkillBytes)
		}
	default:
		return "", nil
	}
	if err != nil {
		return "", err
	}
	rel := path.Join(ReadableDir, s.Source.String(), file)
	dst := filepath.Join(l.WorkspaceDir, filepath.FromSlash(rel))
	if old, err := hostfs.ReadFile(l.WorkspaceDir, dst, maxSkillBytes); err != nil || !bytes.Equal(old, data) {
		if err := hostfs.WriteFile(l.WorkspaceDir, dst, data, 0o644); err != nil {
			return "", err
		}
	}
	return rel, nil
}

// ErrNotFound reports an unknown skill name.
var ErrNotFound = errors.New("skill not found")

// Find returns the skill called name (exact, then case-insensitive), or a
// path to a skill file.
func (l *Loader) Find(name string) (Skill, error) {
	if strings.HasSuffix(name, ".md") {
		if _, err := os.Stat(name); err == nil {
			return LoadFile(name)
		}
	}
	all, _ := l.Load()
	for _, s := range all {
		if s.Name == name {
			return s, nil
		}
	}
	var names []string
	for _, s := range all {
		if strings.EqualFold(s.Name, name) {
			return s, nil
		}
		names = append(names, s.Name)
	}
	return Skill{}, fmt.Errorf("%w: %q (skills: %s)", ErrNotFound, name, strings.Join(names, ", "))
}

// ErrNoScript reports a skill without a runnable script.
var ErrNoScript = errors.New("skill has no replay script (no scripts/auto/<name>.lua, metadata script or ```lua block)")

// Script returns a skill's runnable Lua and where it came from: the
// metadata "script" path (workspace-relative), the replay with the same
// base name in scripts/auto (auto skills) or next to the file, or the first
// fenced ```lua block of the body.
func (l *Loader) Script(s Skill) (src []byte, from string, err error) {
	var tries []string
	if m, ok := s.Metadata["openpocket"].(map[string]any); ok {
		if p, ok := m["script"].(string); ok && p != "" && l.WorkspaceDir != "" {
			// A skill file may be model-written: its script path is read
			// through an os.Root at the workspace, so neither an absolute
			// path, "..", nor a symlink can point it at config.json or keys.
			if b, err := readInWorkspace(l.WorkspaceDir, p); err == nil {
				return b, filepath.Join(l.WorkspaceDir, filepath.FromSlash(p)), nil
			}
		}
	}
	if s.Path != "" {
		base := strings.TrimSuffix(filepath.Base(s.Path), ".md")
		if l.WorkspaceDir != "" {
			tries = append(tries, filepath.Join(l.WorkspaceDir, filepath.FromSlash(AutoScriptsDir), base+".lua"))
		}
		tries = append(tries, strings.TrimSuffix(s.Path, ".md")+".lua")
	}
	for _, p := range tries {
		root := ""
		if l.WorkspaceDir != "" && s.Source == SourceWorkspace {
			root = l.WorkspaceDir
		}
		if b, err := readSkillFile(root, p); err == nil {
			return b, p, nil
		}
	}
	if block, ok := FencedLua(s.Body); ok {
		return []byte(block), s.Location + " (```lua block)", nil
	}
	return nil, "", fmt.Errorf("%s: %w", s.Name, ErrNoScript)
}

// readInWorkspace reads the workspace-relative file rel through hostfs:
// no link, "..", absolute path or FIFO.
func readInWorkspace(ws, rel string) ([]byte, error) {
	return hostfs.ReadFile(ws, filepath.FromSlash(rel), maxSkillBytes)
}

// readSkillFile reads p through hostfs inside root, or (no root: a path
// the user named, or the home's skills) as a regular file anywhere.
func readSkillFile(root, p string) ([]byte, error) {
	if root != "" {
		return hostfs.ReadFile(root, p, maxSkillBytes)
	}
	return hostfs.ReadRegular(p, maxSkillBytes)
}

// FencedLua returns the first ```lua fenced block of markdown.
func FencedLua(md string) (string, bool) {
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(t, "```") {
			continue
		}
		lang := strings.TrimSpace(strings.TrimLeft(t, "`"))
		fence := t[:len(t)-len(strings.TrimLeft(t, "`"))]
		var b strings.Builder
		j := i + 1
		for ; j < len(lines); j++ {
			if strings.TrimSpace(lines[j]) == fence {
				break
			}
			b.WriteString(lines[j])
			b.WriteByte('\n')
		}
		if strings.EqualFold(lang, "lua") {
			return b.String(), true
		}
		i = j
	}
	return "", false
}
