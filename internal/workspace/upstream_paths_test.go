package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Upstream's example config writes paths as "~/.openpocket/…" and its loader
// expands "~" to the user's home (config-defaults.md, "Paths"); a literal
// "~" directory under OPENPOCKET_HOME would silently split the state.
func TestConfigPathsExpandTildeToHome(t *testing.T) {
	user := t.TempDir()
	t.Setenv("HOME", user)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.json"),
		[]byte(`{"cron": {"jobsFile": "~/.openpocket/workspace/cron/jobs.json"}, "screenshots": {"directory": "~/shots"}}`), 0o600))
	h, err := Open(dir)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(user, ".openpocket/workspace/cron/jobs.json"), h.JobsPath())
	assert.Equal(t, filepath.Join(user, "shots"), h.ScreenshotsDir())
	assert.Equal(t, filepath.Join(dir, "state/x"), h.Resolve("state/x"), "relative paths stay under OPENPOCKET_HOME")
	assert.Equal(t, filepath.Join(dir, "~user/x"), h.Resolve("~user/x"), "only ~ and ~/ mean the home")
}
