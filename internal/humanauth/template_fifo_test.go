package humanauth_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/humanauth"
	"github.com/openpocket/openpocket/stdlib/agent"
)

// TestTemplatePathFIFOIsRefusedAtOnce: a FIFO the model made at its
// templatePath used to block the run for ever; it is an error at once.
func TestTemplatePathFIFOIsRefusedAtOnce(t *testing.T) {
	ws := t.TempDir()
	require.NoError(t, syscall.Mkfifo(filepath.Join(ws, "tpl.json"), 0o644))
	b := &humanauth.Broker{Store: humanauth.Open(t.TempDir()), Workspace: ws, MaxTimeout: 50 * time.Millisecond}
	done := make(chan error, 1)
	go func() {
		_, err := b.Ask(context.Background(), agent.HumanAuthRequest{ID: "fifo", TemplatePath: "tpl.json"})
		done <- err
	}()
	select {
	case err := <-done:
		require.Error(t, err)
		assert.Contains(t, err.Error(), "templatePath")
		assert.Contains(t, err.Error(), "a FIFO")
	case <-time.After(10 * time.Second):
		t.Fatal("a FIFO at templatePath blocked the request")
	}
	_, err := os.Stat(filepath.Join(ws, "tpl.json"))
	require.NoError(t, err)
}
