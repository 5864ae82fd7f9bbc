package coding

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/sandbox"
)

func needSandbox(t *testing.T) {
	t.Helper()
	if c := sandbox.Probe(); !c.Bwrap {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must have working bubblewrap: %s", c.BwrapErr)
		}
		t.Skipf("no confinement here: %s (make setup installs bubblewrap)", c.BwrapErr)
	}
}

// TestSymlinkSwapRace swaps a file symlink and a directory symlink between
// the workspace and a secret directory 10,000 times while read, write and
// edit run on them: no secret is read and the secret file never changes.
func TestSymlinkSwapRace(t *testing.T) {
	e, ws := newTestExecutor(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	require.NoError(t, os.WriteFile(secret, []byte("TOP-SECRET\n"), 0o600))
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "realdir"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "inside.txt"), []byte("inside\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "realdir", "secret.txt"), []byte("inside\n"), 0o644))

	// swap points name at a or b, atomically (symlink + rename).
	swap := func(name, a, b string, n int) {
		tmp := filepath.Join(ws, ".swap-"+name)
		for i := range n {
			target := a
			if i%2 == 1 {
				target = b
			}
			os.Remove(tmp)
			if os.Symlink(target, tmp) == nil {
				os.Rename(tmp, filepath.Join(ws, name))
			}
		}
	}
	const swaps = 10000
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(2)
	go func() { defer wg.Done(); swap("link", filepath.Join(ws, "inside.txt"), secret, swaps) }()
	go func() {
		// "dir" is the real directory, then a link out, in turn: a check
		// may resolve it as the directory and the use meet the link.
		defer wg.Done()
		real, dir := filepath.Join(ws, "realdir"), filepath.Join(ws, "dir")
		for range swaps / 2 {
			os.Rename(real, dir)
			os.Rename(dir, real)
			os.Symlink(outside, dir)
			os.Remove(dir)
		}
	}()
	go func() { wg.Wait(); close(stop) }()

	var (
		mu    sync.Mutex
		leaks []string
		ops   int
		done  sync.WaitGroup
	)
	loop := func(op func(p string) bool) {
		defer done.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, p := range []string{"link", "dir/secret.txt"} {
				leaked := op(p)
				mu.Lock()
				ops++
				if leaked {
					leaks = append(leaks, p)
				}
				mu.Unlock()
			}
		}
	}
	done.Add(2)
	go loop(func(p string) bool {
		r, err := e.Read(p, 1, 10)
		return err == nil && strings.Contains(r.Content, "TOP-SECRET")
	})
	go loop(func(p string) bool {
		e.Write(p, "pwned\n", false)
		e.Write(p, "pwned\n", true)
		e.Edit(p, "inside", "pwned", false)
		return false
	})
	done.Wait()
	b, err := os.ReadFile(secret)
	require.NoError(t, err)
	assert.Equal(t, "TOP-SECRET\n", string(b), "a write landed outside the workspace")
	assert.Empty(t, leaks, "reads leaked the secret")
	t.Logf("%d operations during %d swaps of each link", ops, swaps)
}

// TestReadRefusesFIFOAndOutside: a FIFO does not hang read; ~/.ssh and
// /etc/shadow are outside the workspace.
func TestReadRefusesFIFOAndOutside(t *testing.T) {
	e, ws := newTestExecutor(t)
	require.NoError(t, syscall.Mkfifo(filepath.Join(ws, "pipe"), 0o600))
	assert.Equal(t, "read failed: pipe is not a regular file (p---------)", run(t, e, "read", "path", "pipe"))
	home, _ := os.UserHomeDir()
	for _, p := range []string{filepath.Join(home, ".ssh", "id_rsa"), "/etc/shadow", "../../etc/shadow"} {
		out := run(t, e, "read", "path", p)
		assert.Contains(t, out, "is outside the workspace", p)
	}
	out := run(t, e, "write", "path", "/etc/cron.d/x", "content", "x")
	assert.Contains(t, out, "is outside the workspace")

	// A 10 GB file (sparse) is refused by size, not loaded.
	f, err := os.Create(filepath.Join(ws, "huge.bin"))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(10<<30))
	f.Close()
	assert.Equal(t, "read failed: huge.bin is 10737418240 bytes, more than the 33554432 this tool loads", run(t, e, "read", "path", "huge.bin"))
}

// TestExecConfined: exec runs inside the sandbox: no /etc/shadow, no home,
// no network, a file size limit.
func TestExecConfined(t *testing.T) {
	needSandbox(t)
	e, ws := newTestExecutor(t, func(c *Config) {
		c.AllowedCommands = []string{"*"}
		c.Limits = sandbox.Limits{FileBytes: 1 << 20}
	})
	home, _ := os.UserHomeDir()
	out := run(t, e, "exec", "command", "cat /etc/shadow; ls "+home+"/.ssh; bash -c 'echo > /dev/tcp/127.0.0.1/5037' 2>&1 | tail -1")
	assert.Contains(t, out, "cat: /etc/shadow: No such file or directory")
	assert.Contains(t, out, "No such file or directory")
	assert.Contains(t, out, "5037: Connection refused", "the host adb server is not reachable from exec")
	// A background session is confined the same way.
	id := sessionID(t, run(t, e, "exec", "command", "cat /etc/shadow; echo done", "background", true))
	assert.Eventually(t, func() bool {
		return strings.Contains(run(t, e, "process", "action", "log", "sessionId", id), "done")
	}, 10*time.Second, 20*time.Millisecond)
	assert.Contains(t, run(t, e, "process", "action", "log", "sessionId", id), "cat: /etc/shadow: No such file or directory")

	out = run(t, e, "exec", "command", "head -c 10G /dev/zero > big")
	assert.Contains(t, out, "exec exitCode=153", "SIGXFSZ ends the 10 GB write")
	fi, err := os.Stat(filepath.Join(ws, "big"))
	require.NoError(t, err)
	assert.LessOrEqual(t, fi.Size(), int64(1<<20))
}
