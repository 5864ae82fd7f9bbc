package policy

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShellMemoryLimitHoldsWithoutThePoller: on a loaded host the heap
// poller may not run while a loop doubles a variable (a full run once saw
// the heap grow by 777 MiB before it stopped one). The interpreter checks
// before every command too, so the limit holds with the poller never
// ticking: here the loop, which would build 64 MiB, stops at its 16 MiB
// limit.
func TestShellMemoryLimitHoldsWithoutThePoller(t *testing.T) {
	// A poller started before (another test's) must be gone first.
	require.Eventually(t, func() bool {
		watched.mu.Lock()
		defer watched.mu.Unlock()
		return !watched.running
	}, 5*time.Second, 5*time.Millisecond)
	old := memoryPoll
	memoryPoll = time.Hour
	t.Cleanup(func() {
		// The hour-long poller is left behind; the next watch starts one
		// at the usual pace.
		watched.mu.Lock()
		memoryPoll, watched.running = old, false
		watched.mu.Unlock()
	})

	var out strings.Builder
	script := "x=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\ni=0\nwhile [ $i -lt 20 ]; do x=$x$x; i=$((i+1)); done\necho grew to ${#x}"
	err := RunShell(context.Background(), script, ShellOptions{
		Allow: NewAllowlist(nil), Workspace: t.TempDir(), Stdout: &out, Stderr: &out, MaxMemoryBytes: 16 << 20,
	})
	var v *Violation
	require.True(t, errors.As(err, &v), "the loop ran to its end: %v, %q", err, out.String())
	assert.Contains(t, v.Error(), "memory limit exceeded")
	assert.NotContains(t, out.String(), "grew to")
}
