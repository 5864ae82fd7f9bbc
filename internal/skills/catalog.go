package skills

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Entry is one skill as `skills list --json` and the MCP server's
// skills_list show it.
type Entry struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Source      string   `json:"source"`
	Location    string   `json:"location"`
	Auto        bool     `json:"auto,omitempty"`
	Runnable    bool     `json:"runnable"`
	Shadows     []string `json:"shadows,omitempty"`
	// Missing says why the model does not see the skill (a required env
	// var or binary is missing).
	Missing  []string `json:"missing,omitempty"`
	Triggers []string `json:"triggers,omitempty"`
}

// Entries lists every skill the loader sees, with whether each has a
// replay script, and the problems of the files it could not load.
func (l *Loader) Entries() ([]Entry, []error) {
	all, problems := l.Load()
	out := make([]Entry, 0, len(all))
	for _, s := range all {
		_, _, serr := l.Script(s)
		out = append(out, Entry{Name: s.Name, Description: s.Description, Source: s.Source.String(), Location: s.Location,
			Auto: s.Auto, Runnable: serr == nil, Shadows: s.Shadows, Missing: Missing(s, l.Env), Triggers: Triggers(s)})
	}
	return out, problems
}

// Replayable is a skill's replay script as a run needs it.
type Replayable struct {
	// Name is the skill's name (a bare script's file name without .lua).
	Name string
	// Task says what the script does: the skill's openpocket.task
	// metadata, else its description (a bare script's name).
	Task string
	// Source is the script; From is where it was read.
	Source []byte
	From   string
	// Skill is the skill the script belongs to (zero for a bare script).
	Skill Skill
}

// Replayable resolves name — a skill name, a skill file (.md) or a replay
// script (.lua) — to its replay script. With a root (a workspace whose
// files a model or a client names), the files are read through an os.Root
// there: no "..", absolute path or link out, no FIFO.
func (l *Loader) Replayable(root, name string) (Replayable, error) {
	if strings.HasSuffix(name, ".lua") {
		src, err := readSkillFile(root, name)
		if err != nil {
			return Replayable{}, fmt.Errorf("replay script: %w", err)
		}
		n := strings.TrimSuffix(filepath.Base(name), ".lua")
		return Replayable{Name: n, Task: n, Source: src, From: name}, nil
	}
	s, err := l.FindIn(root, name)
	if err != nil {
		return Replayable{}, err
	}
	src, from, err := l.Script(s)
	if err != nil {
		return Replayable{}, err
	}
	task := s.Description
	if m, ok := s.Metadata["openpocket"].(map[string]any); ok {
		if t, ok := m["task"].(string); ok && t != "" {
			task = t
		}
	}
	return Replayable{Name: s.Name, Task: task, Source: src, From: from, Skill: s}, nil
}
