package workspace

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Upstream's ensureWorkspaceBootstrap: a fresh workspace has a README in
// memory/, skills/, scripts/ and cron/, scripts/runs/, and cron/jobs.json
// with one example job, disabled. Managed agents get the same.
func TestFreshWorkspaceGetsTheStarterLayout(t *testing.T) {
	install := t.TempDir()
	h, err := Open(install)
	require.NoError(t, err)
	check := func(ws string) {
		for _, f := range []string{"memory/README.md", "skills/README.md", "scripts/README.md", "cron/README.md"} {
			data, err := os.ReadFile(filepath.Join(ws, f))
			require.NoError(t, err, f)
			assert.NotEmpty(t, data, f)
		}
		st, err := os.Stat(filepath.Join(ws, "scripts", "runs"))
		require.NoError(t, err)
		assert.True(t, st.IsDir())
		var jobs struct {
			Version int `json:"version"`
			Jobs    []struct {
				ID        string `json:"id"`
				Enabled   bool   `json:"enabled"`
				CreatedBy string `json:"createdBy"`
			} `json:"jobs"`
		}
		data, err := os.ReadFile(filepath.Join(ws, "cron", "jobs.json"))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &jobs))
		assert.Equal(t, 2, jobs.Version)
		require.Len(t, jobs.Jobs, 1)
		assert.False(t, jobs.Jobs[0].Enabled, "the example never runs until enabled")
		assert.Equal(t, "workspace_seed", jobs.Jobs[0].CreatedBy)
	}
	check(h.Workspace())

	// Edits and removals stay: the starter files are written only when missing.
	readme := filepath.Join(h.Workspace(), "cron", "README.md")
	require.NoError(t, os.WriteFile(readme, []byte("mine\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(h.Workspace(), "cron", "jobs.json"), []byte(`{"version": 2, "jobs": []}`), 0o644))
	_, err = Open(install)
	require.NoError(t, err)
	data, _ := os.ReadFile(readme)
	assert.Equal(t, "mine\n", string(data))
	data, _ = os.ReadFile(filepath.Join(h.Workspace(), "cron", "jobs.json"))
	assert.JSONEq(t, `{"version": 2, "jobs": []}`, string(data))

	in, err := OpenInstall(install)
	require.NoError(t, err)
	agent, err := in.CreateAgent("work", CreateOptions{})
	require.NoError(t, err)
	check(agent.Workspace())
}

// Seed 003 onboarding state with upstream's BOOTSTRAP.md rule: while the
// file exists its guidance is a context file and onboarding is pending;
// once it is removed, the next start completes onboarding.
func TestBootstrapGuidanceUntilRemovedThenOnboarded(t *testing.T) {
	dir := t.TempDir()
	h, err := Open(dir)
	require.NoError(t, err)
	st, err := h.ReadWorkspaceState()
	require.NoError(t, err)
	assert.Nil(t, st.OnboardingCompletedAt)

	boot := filepath.Join(h.Workspace(), "BOOTSTRAP.md")
	require.NoError(t, os.WriteFile(boot, []byte("# Bootstrap\nAsk the person their name, write it to USER.md, then delete this file.\n"), 0o644))
	h, err = Open(dir)
	require.NoError(t, err)
	var names []string
	for _, f := range h.ContextFiles(0) {
		names = append(names, f.Name)
	}
	assert.Contains(t, names, "BOOTSTRAP.md", "injected while it exists")
	st, _ = h.ReadWorkspaceState()
	assert.Nil(t, st.OnboardingCompletedAt, "still onboarding")

	require.NoError(t, os.Remove(boot))
	h, err = Open(dir)
	require.NoError(t, err)
	st, _ = h.ReadWorkspaceState()
	require.NotNil(t, st.OnboardingCompletedAt, "removing BOOTSTRAP.md completes onboarding")
	for _, f := range h.ContextFiles(0) {
		assert.NotEqual(t, "BOOTSTRAP.md", f.Name)
	}
}
