package playbooks

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docSteps returns the top-level list items of docs/playbooks.md's yaml
// blocks: "- kind…" with their indented continuation lines.
func docSteps(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", "playbooks.md"))
	require.NoError(t, err)
	var items []string
	for _, block := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		var cur []string
		flush := func() {
			if len(cur) > 0 {
				items = append(items, strings.Join(cur, "\n"))
			}
			cur = nil
		}
		for _, ln := range strings.Split(block[1], "\n") {
			switch {
			case strings.HasPrefix(ln, "- "):
				flush()
				cur = []string{ln}
			case strings.HasPrefix(ln, "  ") && cur != nil:
				cur = append(cur, ln)
			default:
				flush()
			}
		}
		flush()
	}
	return items
}

// TestDocsShowEveryStepWithACompilingExample: every built-in step kind has
// an example in docs/playbooks.md, and the examples of the device steps and
// the Maestro-parity options compile (against the action table too).
func TestDocsShowEveryStepWithACompilingExample(t *testing.T) {
	items := docSteps(t)
	kindOf := regexp.MustCompile(`^- ([a-z_]+)`)
	seen := map[string]bool{}
	for _, it := range items {
		if m := kindOf.FindStringSubmatch(it); m != nil {
			seen[m[1]] = true
		}
	}
	for _, name := range StepKinds() {
		if stepDefs[name].Action {
			continue // docs/actions.md lists the actions
		}
		assert.True(t, seen[name], "docs/playbooks.md has no example of step %s", name)
	}
	checked := 0
	newKinds := map[string]bool{}
	for _, d := range deviceStepDefs() {
		newKinds[d.Name] = true
	}
	option := regexp.MustCompile(`repeat:|speed:|visibility_percentage|centered|width:|id_regex|contains_child|permissions:|arguments:|Remote Dpad|Volume Up`)
	for _, it := range items {
		m := kindOf.FindStringSubmatch(it)
		if m == nil || !(newKinds[m[1]] || option.MatchString(it)) || strings.HasPrefix(it, "- repeat") {
			continue
		}
		src := "name: doc\napp: com.openpocket.notes\nsteps:\n" + indent(it)
		if m[1] == "paste_text" {
			src = "name: doc\nsteps:\n  - copy_text: {id: welcome, as: copied_text}\n  - copy_text: {id: welcome, as: greeting}\n" + indent(it)
		}
		_, _, err := Compile([]byte(src), Options{File: "doc.yaml"})
		assert.NoError(t, err, "docs example does not compile:\n%s", it)
		checked++
	}
	assert.GreaterOrEqual(t, checked, 22, "the new steps' examples were found")
}

func indent(s string) string {
	var b strings.Builder
	for _, ln := range strings.Split(s, "\n") {
		b.WriteString("  " + ln + "\n")
	}
	return b.String()
}
