package script

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunRecordsNeverFollowALinkOut: a script made scripts/runs a link to
// a directory outside the workspace (one whose *.sh a login shell
// sources); the next run's script.sh and logs are not written there.
func TestRunRecordsNeverFollowALinkOut(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "scripts"), 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(ws, "scripts", "runs")))
	e := New(ws, Config{})
	_, err := e.Run(context.Background(), "echo pwned", 5*time.Second)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "outside")
	ents, _ := os.ReadDir(outside)
	assert.Empty(t, ents, "nothing written outside the workspace")
}
