package skills

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// TaskKey is a task's fingerprint for matching it to a learned skill: its
// words (letters and digits), lower-case, one space apart. "Turn off
// Wi-Fi!" and "turn off wi fi" have the same key.
func TaskKey(task string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(task), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}

// Match is a skill chosen for a task, and why.
type Match struct {
	Skill Skill
	// By says how it matched: `task "<recorded task>"`, `name`, or
	// `trigger "<phrase>"`.
	By string
	// Script is the skill's runnable Lua and From where it came from
	// (Loader.Script).
	Script []byte
	From   string
}

// Match finds the skill a task should replay before any model is asked
// (`openpocket agent`'s replay-first), or ok=false. A skill matches when
// its recorded task (a learned skill's metadata) or its name has the
// task's TaskKey, or when one of its trigger phrases appears in the task
// as whole words. Only skills that can run here count: requirements met
// and a replay script found. A task or name match wins over a trigger; the
// more specific source wins (workspace over home over bundled), then the
// longer trigger.
func (l *Loader) Match(task string) (Match, bool) {
	key := TaskKey(task)
	if key == "" {
		return Match{}, false
	}
	all, _ := l.Load()
	all, _ = Available(all, l.Env)
	type cand struct {
		Match
		rank int // 2: task or name, 1: trigger
		long int // trigger length
	}
	var cands []cand
	for _, s := range all {
		c := cand{Match: Match{Skill: s}}
		switch {
		case recordedTask(s) != "" && TaskKey(recordedTask(s)) == key:
			c.rank, c.By = 2, fmt.Sprintf("task %q", recordedTask(s))
		case TaskKey(s.Name) == key:
			c.rank, c.By = 2, "name"
		default:
			for _, t := range Triggers(s) {
				if tk := TaskKey(t); tk != "" && strings.Contains(" "+key+" ", " "+tk+" ") && len(tk) > c.long {
					c.rank, c.long, c.By = 1, len(tk), fmt.Sprintf("trigger %q", t)
				}
			}
		}
		if c.rank > 0 {
			cands = append(cands, c)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.rank != b.rank {
			return a.rank > b.rank
		}
		if a.Skill.Source != b.Skill.Source {
			return a.Skill.Source > b.Skill.Source
		}
		return a.long > b.long
	})
	for _, c := range cands {
		src, from, err := l.Script(c.Skill)
		if err != nil {
			continue // nothing to replay: the model's index still lists it
		}
		c.Script, c.From = src, from
		return c.Match, true
	}
	return Match{}, false
}

// recordedTask is the task a learned skill was recorded for ("" for
// hand-written skills).
func recordedTask(s Skill) string {
	if m, ok := s.Metadata["openpocket"].(map[string]any); ok {
		if t, ok := m["task"].(string); ok {
			return t
		}
	}
	return ""
}
