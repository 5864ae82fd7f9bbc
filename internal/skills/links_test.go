package skills_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/internal/skills"
)

// TestLearnedArtifactsNeverFollowALinkOut: the model made skills/auto a
// link to a directory outside the workspace; learning writes nothing there
// and removes nothing there (a same-named earlier artifact lives there).
func TestLearnedArtifactsNeverFollowALinkOut(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	victim := filepath.Join(outside, "20250101-000000-open-settings.md")
	require.NoError(t, os.WriteFile(victim, []byte("keep me"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "skills"), 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(ws, "skills", "auto")))
	tap, err := action.New("tap", map[string]any{"x": 10, "y": 20})
	require.NoError(t, err)
	_, err = skills.Write(skills.ArtifactOptions{Workspace: ws, Task: "open settings", Now: time.Now(),
		Steps: []engine.TraceStep{{Step: 1, Action: tap, DeviceAction: tap, Result: "ok"}}})
	require.Error(t, err)
	ents, _ := os.ReadDir(outside)
	require.Len(t, ents, 1, "nothing written outside")
	b, _ := os.ReadFile(victim)
	assert.Equal(t, "keep me", string(b), "nothing removed outside")
}

// TestWorkspaceSkillLinksAndFIFOsAreProblemsNotContent: a skill file that
// is a link to a secret is refused (its text never becomes a skill the
// prompt shows), and a FIFO is a problem reported at once.
func TestWorkspaceSkillLinksAndFIFOsAreProblemsNotContent(t *testing.T) {
	ws := t.TempDir()
	dir := filepath.Join(ws, "skills")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	secret := filepath.Join(t.TempDir(), "notes.md")
	require.NoError(t, os.WriteFile(secret, []byte("# Secret\nSECRETVALUE\n"), 0o600))
	require.NoError(t, os.Symlink(secret, filepath.Join(dir, "linked.md")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o644))
	done := make(chan struct{})
	var all []skills.Skill
	var problems []error
	go func() {
		all, problems = (&skills.Loader{WorkspaceDir: ws, NoBundled: true}).Load()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("loading skills blocked on a FIFO")
	}
	for _, s := range all {
		assert.NotContains(t, s.Description+s.Body, "SECRETVALUE")
	}
	require.Len(t, problems, 2, "%v", problems)
	joined := problems[0].Error() + problems[1].Error()
	assert.Contains(t, joined, "symbolic link")
	assert.Contains(t, joined, "a FIFO")
}
