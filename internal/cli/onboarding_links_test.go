package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/workspace"
)

// TestOnboardingNeverCopiesALinkedSecretIntoTheWorkspace: the model made
// USER.md a link to a secret; completing onboarding from a chat neither
// copies the secret into the workspace (where the model reads it) nor
// writes to the secret.
func TestOnboardingNeverCopiesALinkedSecretIntoTheWorkspace(t *testing.T) {
	h, err := workspace.Open(t.TempDir())
	require.NoError(t, err)
	secret := filepath.Join(t.TempDir(), "id_rsa")
	require.NoError(t, os.WriteFile(secret, []byte("SECRETKEY\n"), 0o600))
	user := filepath.Join(h.Workspace(), "USER.md")
	require.NoError(t, os.Symlink(secret, user))
	r := &ChannelRunner{home: h}
	err = r.CompleteOnboarding(t.Context(), "Ada")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "symbolic link")
	b, _ := os.ReadFile(secret)
	assert.Equal(t, "SECRETKEY\n", string(b))
	fi, err := os.Lstat(user)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "USER.md is still the model's link, not a copy of the secret")
}
