package script

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/sandbox"
)

// heapNow is the test process's heap in use (objects, live or not yet
// collected).
func heapNow() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestShellVariableGrowthStops: doubling a variable in a loop (22 times a
// 64-byte string: 256 MiB, then the expansions copying it) is stopped by
// the interpreter's memory limit, long before the host holds it.
func TestShellVariableGrowthStops(t *testing.T) {
	needSandbox(t)
	runtime.GC()
	before := heapNow()
	var peak uint64
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
				peak = max(peak, heapNow())
			}
		}
	}()
	script := "x=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\ni=0\nwhile [ $i -lt 22 ]; do x=$x$x; i=$((i+1)); done\necho grew to ${#x}"
	res, err := New(t.TempDir(), Config{}).Run(context.Background(), script, 30*time.Second)
	close(done)
	require.NoError(t, err)
	assert.Contains(t, res.Rejected, "memory limit exceeded: the script's shell grew the heap by", "%+v", res)
	assert.NotContains(t, res.Stdout, "grew to")
	// The statement running when the limit trips finishes (x doubles once
	// more, with its copies), so the bound is well above the 64 MiB limit,
	// and well below the 738 MiB the loop reaches unwatched. The
	// interpreter checks before every command besides the sampled watch,
	// so a loaded host that delays the sampler does not let the loop run
	// on (policy TestShellMemoryLimitHoldsWithoutThePoller).
	assert.Less(t, peak-before, uint64(512<<20), "the heap grew by %d MiB", (peak-before)>>20)
}

// TestShellArgumentsCapped: a command whose expanded arguments pass 16 MiB
// is refused before it runs (echo is a builtin: its output would be the
// host's memory).
func TestShellArgumentsCapped(t *testing.T) {
	needSandbox(t)
	script := "x=0123456789abcdef; i=0\nwhile [ $i -lt 19 ]; do x=$x$x; i=$((i+1)); done\necho $x $x $x > /dev/null; echo after"
	res, err := New(t.TempDir(), Config{}).Run(context.Background(), script, 30*time.Second)
	require.NoError(t, err)
	assert.Contains(t, res.Rejected, `command "echo" (line 3): its expanded arguments are 25165828 bytes, the limit is 16777216 bytes`, "%+v", res)
	assert.NotContains(t, res.Stdout, "after")
}

// TestShellRedirectWritesCapped: the interpreter's own writes through a
// redirection stop at the file size limit, as a confined program's do.
func TestShellRedirectWritesCapped(t *testing.T) {
	needSandbox(t)
	ws := t.TempDir()
	script := "x=0123456789abcdef; i=0\nwhile [ $i -lt 16 ]; do x=$x$x; i=$((i+1)); done\n" +
		"i=0; while [ $i -lt 40 ]; do echo \"$x\" >> big.txt; i=$((i+1)); done; echo > again.txt; printf %s \"$x\" > one.txt"
	res, err := New(ws, Config{Limits: sandbox.Limits{FileBytes: 4 << 20}}).Run(context.Background(), script, 30*time.Second)
	require.NoError(t, err)
	fi, err := os.Stat(filepath.Join(ws, "scripts", "big.txt"))
	require.NoError(t, err)
	assert.Equal(t, int64(4<<20), fi.Size(), "appends stop at the limit: %+v", res)
	fi, err = os.Stat(filepath.Join(ws, "scripts", "one.txt"))
	require.NoError(t, err)
	assert.Equal(t, int64(1<<20), fi.Size(), "a write within the limit is whole")
}
