package skills_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/skills"
)

func TestTaskKey(t *testing.T) {
	assert.Equal(t, "turn off wi fi", skills.TaskKey("  Turn OFF Wi-Fi! "))
	assert.Equal(t, "envoie un café", skills.TaskKey("Envoie un café."))
	assert.Equal(t, "", skills.TaskKey(" -- "))
}

// TestMatchChoosesTheReplayableSkill: a learned task matches by its
// recorded task, a hand-written skill by its trigger phrase (whole words,
// the longest wins), a skill without a script never, and the bundled
// skills only by name.
func TestMatchChoosesTheReplayableSkill(t *testing.T) {
	ws := t.TempDir()
	a, err := skills.Write(skills.ArtifactOptions{Workspace: ws, Task: "Turn off Wi-Fi", Steps: wifiSteps(t), Now: time.Now()})
	require.NoError(t, err)
	write := func(rel, body string) {
		p := filepath.Join(ws, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	write("skills/notes.md", "---\nname: notes\ndescription: Save a note\nmetadata: {\"openpocket\":{\"triggers\":[\"save a note\",\"note\"]}}\n---\n# Notes\n\n```lua\nprint('x')\n```\n")
	write("skills/dark.md", "---\nname: dark\ndescription: Dark mode\nmetadata: {\"triggers\":[\"dark mode\"]}\n---\n# Dark\n\nNo script here.\n")
	l := &skills.Loader{WorkspaceDir: ws, NoBundled: true}

	m, ok := l.Match("turn OFF wi-fi")
	require.True(t, ok)
	assert.Equal(t, a.SkillPath, m.Skill.Path)
	assert.Equal(t, `task "Turn off Wi-Fi"`, m.By)
	assert.Equal(t, a.ScriptPath, m.From)
	assert.NotEmpty(t, m.Script)

	m, ok = l.Match("please save a note saying hi")
	require.True(t, ok)
	assert.Equal(t, "notes", m.Skill.Name)
	assert.Equal(t, `trigger "save a note"`, m.By)

	for _, task := range []string{"turn off wi-fi now", "turn on dark mode", "notebook", "open settings"} {
		_, ok := l.Match(task)
		assert.False(t, ok, "%q must not match", task)
	}

	b := &skills.Loader{}
	m, ok = b.Match("toggle wifi")
	require.True(t, ok, "the bundled toggle-wifi skill by name")
	assert.Equal(t, "name", m.By)
	_, ok = b.Match("turn wifi off")
	assert.False(t, ok)
}
