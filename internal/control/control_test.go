package control

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type jobs map[string]JobResult

func (j jobs) RunJob(_ context.Context, id string) JobResult {
	if r, ok := j[id]; ok {
		return r
	}
	return JobResult{Job: id, Error: "no job " + id}
}

func serve(t *testing.T, state string, h Handler) {
	t.Helper()
	l, err := Listen(state)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, l, h) }()
	t.Cleanup(func() { cancel(); <-done })
}

// TestRunJobThroughTheSocket: the client's request reaches the handler
// and its result comes back, also when the state directory's path is too
// long for a socket address; the directory is owner-only, the socket 0600.
func TestRunJobThroughTheSocket(t *testing.T) {
	for _, state := range []string{t.TempDir(), filepath.Join(t.TempDir(), strings.Repeat("long-directory-name/", 6))} {
		require.NoError(t, os.MkdirAll(state, 0o755))
		serve(t, state, jobs{"j1": {Job: "j1", OK: true, Message: "wifi off"}})
		res, err := RunJob(context.Background(), state, "j1")
		require.NoError(t, err)
		assert.True(t, res.OK)
		assert.Equal(t, "wifi off", res.Message)
		assert.Equal(t, os.Getpid(), res.PID)
		res, err = RunJob(context.Background(), state, "nope")
		require.NoError(t, err)
		assert.False(t, res.OK)
		assert.Equal(t, "no job nope", res.Error)
		fi, err := os.Stat(Dir(state))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
		fi, err = os.Stat(SocketPath(state))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	}
}

// TestNoGateway: nothing listening (no socket, or a stale one a killed
// gateway left) is ErrNoGateway; a new gateway takes the stale socket over.
func TestNoGateway(t *testing.T) {
	state := t.TempDir()
	_, err := RunJob(context.Background(), state, "j1")
	require.ErrorIs(t, err, ErrNoGateway)

	l, err := Listen(state)
	require.NoError(t, err)
	l.(interface{ SetUnlinkOnClose(bool) }).SetUnlinkOnClose(false)
	l.Close() // a killed gateway leaves its socket behind
	require.FileExists(t, SocketPath(state))
	_, err = RunJob(context.Background(), state, "j1")
	require.ErrorIs(t, err, ErrNoGateway)

	serve(t, state, jobs{"j1": {OK: true}})
	res, err := RunJob(context.Background(), state, "j1")
	require.NoError(t, err)
	assert.True(t, res.OK)
}

// TestRefusesAnUnsafeDirectory: a directory others may enter, or a
// symlink in its place, is refused with what to do.
func TestRefusesAnUnsafeDirectory(t *testing.T) {
	state := t.TempDir()
	require.NoError(t, os.Mkdir(Dir(state), 0o777))
	require.NoError(t, os.Chmod(Dir(state), 0o777))
	_, err := Listen(state)
	require.ErrorContains(t, err, "open to others")

	state = t.TempDir()
	require.NoError(t, os.Symlink(t.TempDir(), Dir(state)))
	_, err = Listen(state)
	require.ErrorContains(t, err, "not a directory")
}

// TestAnotherUserCannotConnect: another local user (run as nobody) cannot
// reach the socket: the owner-only directory stops the connect.
func TestAnotherUserCannotConnect(t *testing.T) {
	if os.Getuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("CI runs as root so that this test can run a process as another user")
		}
		t.Skip("needs root to run a process as another user")
	}
	state := t.TempDir()
	require.NoError(t, os.Chmod(state, 0o755))
	require.NoError(t, os.Chmod(filepath.Dir(state), 0o755))
	serve(t, state, jobs{"j1": {OK: true}})
	// The test binary itself, as nobody, dials the socket (from a copy
	// nobody may run).
	bin := filepath.Join(t.TempDir(), "control.test")
	data, err := os.ReadFile(os.Args[0])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bin, data, 0o755))
	require.NoError(t, os.Chmod(filepath.Dir(bin), 0o755))
	require.NoError(t, os.Chmod(filepath.Dir(filepath.Dir(bin)), 0o755))
	cmd := exec.Command(bin)
	cmd.Dir = "/"
	cmd.Env = append(os.Environ(), "CONTROL_DIAL="+state)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "refused:")
	assert.NotContains(t, string(out), "reached")
}

// TestMain lets the test binary be TestAnotherUserCannotConnect's other
// user: with CONTROL_DIAL set it only dials that state's socket and says
// whether it got through.
func TestMain(m *testing.M) {
	if state := os.Getenv("CONTROL_DIAL"); state != "" {
		if _, err := RunJob(context.Background(), state, "j1"); err != nil {
			os.Stdout.WriteString("refused: " + err.Error() + "\n")
		} else {
			os.Stdout.WriteString("reached the gateway\n")
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
