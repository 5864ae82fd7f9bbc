//go:build unix

package lease

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const nobody = 65534

// asNobody runs a command as another local user (uid/gid 65534) with
// setpriv, as a second user of the machine would; skipped when this test
// cannot switch users (not root, or no setpriv).
func asNobody(t *testing.T, args ...string) {
	t.Helper()
	setpriv, err := exec.LookPath("setpriv")
	if os.Geteuid() != 0 || err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI runs as root with setpriv (util-linux) so that this test can act as another user")
		}
		t.Skip("switching to another user needs root and setpriv")
	}
	out, err := exec.Command(setpriv, append([]string{"--reuid=65534", "--regid=65534", "--clear-groups", "--"}, args...)...).CombinedOutput()
	require.NoError(t, err, "%s", out)
}

// sharedTmp is a directory like /tmp: every user may write it (sticky).
func sharedTmp(t *testing.T) string {
	t.Helper()
	tmp := t.TempDir()
	require.NoError(t, os.Chmod(filepath.Dir(tmp), 0o755)) // others may reach it
	require.NoError(t, os.Chmod(tmp, 0o777|os.ModeSticky))
	return tmp
}

// TestAnotherUsersLeaseDirIsRefused: another user made the default lease
// directory name in a shared /tmp first (world-writable, sticky, theirs);
// taking a lease there is refused, naming the owner, and no lease file is
// created in it.
func TestAnotherUsersLeaseDirIsRefused(t *testing.T) {
	tmp := sharedTmp(t)
	dir := filepath.Join(tmp, "openpocket-leases-0")
	asNobody(t, "mkdir", "-m", "1777", dir)
	t.Setenv("TMPDIR", tmp)
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv(DirEnv, "")
	for _, o := range []Options{{Dir: dir}, {}} { // named, and as the default
		_, err := Acquire(context.Background(), "emulator-5554", o)
		require.Error(t, err, "dir %q", o.Dir)
		assert.Contains(t, err.Error(), "owned by uid 65534")
		assert.False(t, errors.Is(err, ErrBusy))
	}
	ents, _ := os.ReadDir(dir)
	assert.Empty(t, ents, "no lease file in another user's directory")
}

// TestLinkedLeaseDirIsRefused: the lease directory (or a component of its
// path) is a link another user planted, pointing at their directory.
func TestLinkedLeaseDirIsRefused(t *testing.T) {
	tmp := sharedTmp(t)
	theirs := filepath.Join(tmp, "theirs")
	asNobody(t, "mkdir", "-m", "0777", theirs)
	link := filepath.Join(tmp, "leases")
	asNobody(t, "ln", "-s", theirs, link)
	for _, d := range []string{link, filepath.Join(link, "sub")} {
		_, err := Acquire(context.Background(), "emulator-5554", Options{Dir: d})
		require.Error(t, err, d)
		assert.Contains(t, err.Error(), "symbolic link", d)
	}
	ents, _ := os.ReadDir(theirs)
	for _, e := range ents {
		assert.True(t, e.IsDir(), "no lease file written through the link: %s", e.Name())
	}
}

// TestWorldWritableLeaseDirWithoutStickyIsRefused: even one's own
// directory is refused when any user may swap the lease files in it.
func TestWorldWritableLeaseDirWithoutStickyIsRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "leases")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.Chmod(dir, 0o777))
	_, err := Acquire(context.Background(), "s1", Options{Dir: dir})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "writable by others")
	require.NoError(t, os.Chmod(dir, 0o777|os.ModeSticky))
	l, err := Acquire(context.Background(), "s1", Options{Dir: dir})
	require.NoError(t, err, "a sticky shared directory is fine")
	l.Release()
}
