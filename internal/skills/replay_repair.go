package skills

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/openpocket/openpocket/engine"
)

// Skill self-repair: a replay step whose recorded selectors found nothing
// was resolved by one model call (stdlib/aistep's skill_repair); these
// write the element the model chose back into the skill, so the next
// replay finds it deterministically, with no model call.

// RepairScript replaces the tap target of step id in a replay script with
// t (its candidates, label and point, as GenerateReplay writes a recorded
// target). It fails when the step or its tap is not in the script (a
// hand-written script).
func RepairScript(src []byte, id int, t *engine.Target) ([]byte, error) {
	head := regexp.MustCompile(`(?m)^step\(\{id = ` + fmt.Sprint(id) + `, `)
	loc := head.FindIndex(src)
	if loc == nil {
		return nil, fmt.Errorf("step %d is not in the script", id)
	}
	rest := src[loc[1]:]
	end := bytes.Index(rest, []byte("\nend)\n"))
	if end < 0 {
		return nil, fmt.Errorf("step %d has no end in the script", id)
	}
	body := rest[:end]
	open := bytes.Index(body, []byte("tap_target({"))
	if open < 0 {
		return nil, fmt.Errorf("step %d taps no recorded target", id)
	}
	open += len("tap_target(")
	close := bytes.Index(body[open:], []byte("\n  })"))
	if close < 0 {
		return nil, fmt.Errorf("step %d: its target table does not end as generated", id)
	}
	close += open + len("\n  }")
	g := &gen{}
	table := g.targetTable(engine.TraceStep{Target: t})
	start := loc[1]
	oldTable := string(src[start+open : start+close])
	var out bytes.Buffer
	out.Write(src[:start+open])
	out.WriteString(table)
	out.Write(src[start+close:])
	// The start step waits for the first element the skill acts on (its
	// anchor): the same recorded selector, renamed the same way.
	if m := recordedSel.FindStringSubmatch(oldTable); m != nil {
		if prim, ok := engine.PrimarySelector(t); ok {
			return bytes.ReplaceAll(out.Bytes(), []byte(", "+m[1]+")"), []byte(", "+luaSel(prim)+")")), nil
		}
	}
	return out.Bytes(), nil
}

// recordedSel is the first candidate of a generated target table.
var recordedSel = regexp.MustCompile(`\{sel = (\{[^\n]*\}), why = "recorded selector"\}`)

// repairsHeading is the section of a skill's markdown that lists repairs.
const repairsHeading = "## Repairs"

// NoteRepair adds a dated line to the skill's markdown under "## Repairs"
// (created at the end when missing), so a person reading the skill sees
// that a replay changed it and why.
func NoteRepair(md []byte, line string) []byte {
	s := strings.TrimRight(string(md), "\n")
	entry := "- " + oneLine(line, 400)
	if i := strings.Index(s, "\n"+repairsHeading+"\n"); i >= 0 {
		// Append at the end of the section: before the next heading.
		sec := i + len("\n"+repairsHeading+"\n")
		next := strings.Index(s[sec:], "\n## ")
		if next < 0 {
			return []byte(s + "\n" + entry + "\n")
		}
		at := sec + next
		return []byte(strings.TrimRight(s[:at], "\n") + "\n" + entry + "\n" + s[at:] + "\n")
	}
	return []byte(s + "\n\n" + repairsHeading + "\n\n" + entry + "\n")
}
