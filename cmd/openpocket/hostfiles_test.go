package main_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runQuick runs the binary with a private home and fails the test if it
// does not finish within 20 s (a FIFO in the workspace used to hang it
// for ever, deaf to SIGTERM).
func runQuick(t *testing.T, home string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append([]string{"--home", home}, args...)...)
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=", "ANDROID_SERIAL=")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "openpocket %v blocked", args)
	res := result{stdout: out.String(), stderr: errOut.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		res.code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return res
}

// initHome creates a home by running a command that opens it.
func initHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	res := runQuick(t, home, "cron", "list")
	require.Equal(t, 0, res.code, res.stderr)
	return home
}

func TestCronListRefusesAFIFOJobsFileAtOnce(t *testing.T) {
	home := initHome(t)
	jobs := filepath.Join(home, "workspace", "cron", "jobs.json")
	os.Remove(jobs)
	require.NoError(t, syscall.Mkfifo(jobs, 0o644))
	res := runQuick(t, home, "cron", "list")
	assert.NotEqual(t, 0, res.code)
	assert.Contains(t, res.stderr, jobs)
	assert.Contains(t, res.stderr, "not a regular file (a FIFO)")
}

func TestSkillsListSkipsAFIFOSkillAtOnce(t *testing.T) {
	home := initHome(t)
	fifo := filepath.Join(home, "workspace", "skills", "evil.md")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	res := runQuick(t, home, "skills", "list")
	assert.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stderr, fifo)
	assert.Contains(t, res.stderr, "a FIFO")
	assert.Contains(t, res.stdout, "toggle-wifi", "the other skills are still listed")
}

// TestCronThroughLinksNeverTouchesFilesOutside: the model replaced
// cron/jobs.json with a link to a secret file, then cron/ with a link to a
// directory outside; the CLI neither quotes the secret nor writes there.
func TestCronThroughLinksNeverTouchesFilesOutside(t *testing.T) {
	home := initHome(t)
	outDir := t.TempDir()
	secret := filepath.Join(outDir, "shadow")
	require.NoError(t, os.WriteFile(secret, []byte("root:$6$SECRETHASH:19000:0:99999:7:::\n"), 0o600))
	cronDir := filepath.Join(home, "workspace", "cron")
	jobs := filepath.Join(cronDir, "jobs.json")
	os.Remove(jobs)
	require.NoError(t, os.Symlink(secret, jobs))

	res := runQuick(t, home, "cron", "list")
	assert.NotEqual(t, 0, res.code)
	assert.Contains(t, res.stderr, "symbolic link")
	assert.NotContains(t, res.stdout+res.stderr, "SECRETHASH")

	res = runQuick(t, home, "cron", "add", "--name", "x", "--every", "1h", "--task", "hello")
	assert.NotEqual(t, 0, res.code, "adding through a linked jobs file: %s", res.stdout)

	require.NoError(t, os.RemoveAll(cronDir))
	require.NoError(t, os.Symlink(outDir, cronDir))
	res = runQuick(t, home, "cron", "add", "--name", "x", "--every", "1h", "--task", "hello")
	assert.NotEqual(t, 0, res.code, "adding under a linked cron/: %s", res.stdout)

	b, err := os.ReadFile(secret)
	require.NoError(t, err)
	assert.Equal(t, "root:$6$SECRETHASH:19000:0:99999:7:::\n", string(b))
	ents, _ := os.ReadDir(outDir)
	assert.Len(t, ents, 1, "nothing new outside the workspace: %v", ents)
}

// TestSessionsNeverReadThroughALinkOrAFIFO: the model made one session
// file a link to a secret and another a FIFO; `sessions list` and
// `sessions show` finish at once and never print the secret.
func TestSessionsNeverReadThroughALinkOrAFIFO(t *testing.T) {
	home := initHome(t)
	secret := filepath.Join(t.TempDir(), "id_rsa")
	require.NoError(t, os.WriteFile(secret, []byte("-----BEGIN PRIVATE KEY-----\nSECRETKEY\n"), 0o600))
	sessions := filepath.Join(home, "workspace", "sessions")
	require.NoError(t, os.Symlink(secret, filepath.Join(sessions, "session-20260101-000000.md")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(sessions, "session-20260101-000001.md"), 0o644))

	res := runQuick(t, home, "sessions", "list")
	assert.NotContains(t, res.stdout+res.stderr, "SECRETKEY")
	assert.Contains(t, res.stderr, "symbolic link")
	assert.Contains(t, res.stderr, "a FIFO")
	for _, id := range []string{"20260101-000000", "20260101-000001"} {
		res = runQuick(t, home, "sessions", "show", "--raw", id)
		assert.NotEqual(t, 0, res.code, id)
		assert.NotContains(t, res.stdout+res.stderr, "SECRETKEY", id)
	}
}
