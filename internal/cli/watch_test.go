package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/sim/simtest"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// TestPlayWatchRerunsOnSubflowChange: play --watch runs, then runs again
// when a sub-flow the playbook includes changes, until cancelled.
func TestPlayWatchRerunsOnSubflowChange(t *testing.T) {
	s := simtest.Start(t)
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "flows"), 0o755))
	sub := filepath.Join(dir, "flows", "open.yaml")
	require.NoError(t, os.WriteFile(sub, []byte("steps:\n  - launch: com.android.settings\n"), 0o644))
	main := filepath.Join(dir, "main.yaml")
	require.NoError(t, os.WriteFile(main, []byte("name: watched\nsteps:\n  - run: flows/open.yaml\n  - assert_visible: Wi-Fi\n"), 0o644))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"--home", t.TempDir(), "--device", s.Serial(), "play", "--watch", main, "--output", t.TempDir()}, &out, &errb)
	}()
	waitFor := func(what string, n int) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for strings.Count(out.String(), what) < n {
			if time.Now().After(deadline) {
				t.Fatalf("no %q ×%d in:\n%s\nstderr:\n%s", what, n, out.String(), errb.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitFor("1 passed, 0 failed", 1)
	time.Sleep(2 * watchInterval)
	// The sub-flow changes: the watcher notices and runs again, now failing.
	require.NoError(t, os.WriteFile(sub, []byte("steps:\n  - launch: com.android.settings\n  - assert_visible: {text: Nope, timeout: 200ms}\n"), 0o644))
	waitFor("change detected: running again", 1)
	waitFor("0 passed, 1 failed", 1)
	cancel()
	select {
	case code := <-done:
		assert.NotEqual(t, ExitOK, code)
	case <-time.After(30 * time.Second):
		t.Fatal("play --watch did not stop on cancel")
	}
	assert.Equal(t, 1, strings.Count(out.String(), "change detected"), "no spurious re-runs")
}
