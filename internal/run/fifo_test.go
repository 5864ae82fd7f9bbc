package run_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/run"
)

// TestCompilePlaybookRefusesAFIFOAtOnce: a FIFO the model left at a job's
// playbook path, or at a playbook it includes, used to hang the gateway's
// job run; it is an error at once.
func TestCompilePlaybookRefusesAFIFOAtOnce(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "flow.yaml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	inc := filepath.Join(dir, "main.yaml")
	require.NoError(t, os.WriteFile(inc, []byte("name: main\nsteps:\n  - run: flow.yaml\n"), 0o644))
	for _, file := range []string{fifo, inc} {
		done := make(chan error, 1)
		go func() {
			_, err := run.CompilePlaybook(file, nil, true)
			done <- err
		}()
		select {
		case err := <-done:
			require.Error(t, err, file)
			assert.Contains(t, err.Error(), "a FIFO", file)
		case <-time.After(10 * time.Second):
			t.Fatalf("compiling %s blocked on a FIFO", file)
		}
	}
}
