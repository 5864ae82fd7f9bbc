package skills

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
)

// metadataBlocks are the metadata objects a skill's requirements and
// triggers may sit in: upstream's "openclaw", ours ("openpocket") and the
// top level.
func metadataBlocks(m map[string]any) []map[string]any {
	out := []map[string]any{m}
	for _, k := range []string{"openclaw", "openpocket"} {
		if b, ok := m[k].(map[string]any); ok {
			out = append(out, b)
		}
	}
	return out
}

// strings of a metadata value: a string or a list of strings.
func stringList(v any) []string {
	switch x := v.(type) {
	case string:
		if strings.TrimSpace(x) != "" {
			return []string{strings.TrimSpace(x)}
		}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok && strings.TrimSpace(s) != "" {
				out = append(out, strings.TrimSpace(s))
			}
		}
		return out
	}
	return nil
}

// Env looks up environment variables and binaries for requirement checks
// (the process environment and PATH when its fields are nil).
type Env struct {
	Getenv   func(string) string
	LookPath func(string) (string, error)
	GOOS     string
}

func (e Env) getenv(k string) string {
	if e.Getenv != nil {
		return e.Getenv(k)
	}
	return os.Getenv(k)
}

func (e Env) hasBin(b string) bool {
	if e.LookPath != nil {
		_, err := e.LookPath(b)
		return err == nil
	}
	_, err := exec.LookPath(b)
	return err == nil
}

func (e Env) goos() string {
	if e.GOOS != "" {
		return e.GOOS
	}
	return runtime.GOOS
}

// Missing lists what a skill's metadata requires that this machine lacks,
// as upstream's loader gates skills: metadata
// {"openclaw": {"requires": {"env": [...], "bins": [...], "anyBins": [...]},
// "os": [...]}} (also under "openpocket" or at the top level). An
// environment variable counts when it is set and not empty; a binary when
// it is on PATH. Each entry reads like "env TOKEN not set".
func Missing(s Skill, e Env) []string {
	var out []string
	for _, blk := range metadataBlocks(s.Metadata) {
		req, _ := blk["requires"].(map[string]any)
		for _, k := range stringList(req["env"]) {
			if e.getenv(k) == "" {
				out = append(out, "env "+k+" not set")
			}
		}
		for _, b := range stringList(req["bins"]) {
			if !e.hasBin(b) {
				out = append(out, "binary "+b+" not on PATH")
			}
		}
		if any := stringList(req["anyBins"]); len(any) > 0 {
			found := false
			for _, b := range any {
				found = found || e.hasBin(b)
			}
			if !found {
				out = append(out, "none of the binaries "+strings.Join(any, ", ")+" on PATH")
			}
		}
		if oses := stringList(blk["os"]); len(oses) > 0 && !containsFold(oses, e.goos()) {
			out = append(out, fmt.Sprintf("runs on %s, not %s", strings.Join(oses, ", "), e.goos()))
		}
	}
	return out
}

// Triggers are the phrases a skill's metadata says it applies to:
// "triggers" as a list, or {"any": [...]} (also under "openclaw" or
// "openpocket"), deduplicated in order.
func Triggers(s Skill) []string {
	var out []string
	seen := map[string]bool{}
	for _, blk := range metadataBlocks(s.Metadata) {
		v := blk["triggers"]
		if m, ok := v.(map[string]any); ok {
			v = m["any"]
		}
		for _, t := range stringList(v) {
			if k := strings.ToLower(t); !seen[k] {
				seen[k] = true
				out = append(out, t)
			}
		}
	}
	return out
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// Available splits skills into those the model may see and those hidden
// because a requirement is missing (with Skill.Missing filled in).
func Available(all []Skill, e Env) (shown, hidden []Skill) {
	for _, s := range all {
		if m := Missing(s, e); len(m) > 0 {
			s.Missing = m
			hidden = append(hidden, s)
			continue
		}
		shown = append(shown, s)
	}
	sort.SliceStable(hidden, func(i, j int) bool { return hidden[i].Name < hidden[j].Name })
	return shown, hidden
}

// indexDescription is the description the model sees: the skill's own,
// followed by its trigger phrases.
// The prompt shows at most indexDescriptionMax characters of it, so the
// description is shortened to leave the triggers room.
func indexDescription(s Skill) string {
	t := Triggers(s)
	if len(t) == 0 {
		return oneLine(s.Description, indexDescriptionMax)
	}
	q := make([]string, 0, len(t))
	for _, x := range t {
		q = append(q, fmt.Sprintf("%q", oneLine(x, 40)))
	}
	trig := oneLine("Use when the task mentions: "+strings.Join(q, ", ")+".", indexDescriptionMax/2)
	return oneLine(s.Description, indexDescriptionMax-len([]rune(trig))-1) + " " + trig
}

// indexDescriptionMax is how much of a description the prompt's skills
// index shows (engine/prompt cuts longer ones).
const indexDescriptionMax = 200
