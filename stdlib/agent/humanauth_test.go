package agent_test

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/stdlib/agent"
)

func pipe(t *testing.T) (*os.File, *os.File) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

func writeLater(w *os.File, s string) {
	go func() {
		time.Sleep(100 * time.Millisecond)
		w.WriteString(s)
	}()
}

// A late answer to a request that timed out must not answer the next one.
func TestTerminalAuthIgnoresLateAnswer(t *testing.T) {
	r, w := pipe(t)
	auth := agent.TerminalAuth(r, io.Discard)
	dec, err := auth(context.Background(), agent.HumanAuthRequest{ID: "a", Timeout: 50 * time.Millisecond})
	require.NoError(t, err)
	assert.Equal(t, "timeout", dec.Status)

	_, err = w.WriteString("y\n") // typed after a timed out, before b is asked
	require.NoError(t, err)
	time.Sleep(50 * time.Millisecond)

	writeLater(w, "n\n")
	dec, err = auth(context.Background(), agent.HumanAuthRequest{ID: "b", Timeout: 5 * time.Second})
	require.NoError(t, err)
	assert.Equal(t, "rejected", dec.Status, "the late answer to request a answered request b")
}

// The next run's TerminalAuth over the same terminal gets the lines typed
// for it, not the reader left pending by an earlier run's timed-out request.
func TestTerminalAuthSharesTheTerminalReader(t *testing.T) {
	r, w := pipe(t)
	dec, err := agent.TerminalAuth(r, io.Discard)(context.Background(), agent.HumanAuthRequest{ID: "a", Timeout: 50 * time.Millisecond})
	require.NoError(t, err)
	assert.Equal(t, "timeout", dec.Status)

	writeLater(w, "y\n654321\n")
	dec, err = agent.TerminalAuth(r, io.Discard)(context.Background(), agent.HumanAuthRequest{ID: "b", Timeout: 5 * time.Second})
	require.NoError(t, err)
	assert.Equal(t, "approved", dec.Status)
	assert.Equal(t, "654321", dec.Text)
}
