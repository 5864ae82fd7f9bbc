package llm_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/llm"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
)

// TestKeylessLocalSaysSoOnce: a local profile without a key sends no
// Authorization header (not even $OPENAI_ADMIN_KEY's) and one info line
// per profile says so, however many clients are built.
func TestKeylessLocalSaysSoOnce(t *testing.T) {
	t.Setenv("OPENAI_ADMIN_KEY", "sk-admin-SECRET")
	t.Setenv("OLLAMA_KEY_UNSET", "")
	s := llmtest.NewServer(t)
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	p := llm.Profile{Name: "ollama-once", Model: "m", BaseURL: s.BaseURL(), APIKeyEnv: "OLLAMA_KEY_UNSET"}
	for range 3 {
		c, err := llm.New(p, llm.Options{Logger: logger})
		require.NoError(t, err)
		assert.True(t, c.Keyless())
		_, err = c.Decide(context.Background(), engine.ModelRequest{Text: "x"})
		require.NoError(t, err)
	}
	for _, r := range s.Requests() {
		assert.NotContains(t, r.Header, "Authorization")
	}
	assert.Equal(t, 1, strings.Count(logs.String(), "sending no Authorization header"), logs.String())
	assert.Contains(t, logs.String(), s.BaseURL())

	assert.True(t, llm.IsLocalURL("http://192.168.1.20:1234/v1"))
	assert.True(t, llm.IsLocalURL("http://localhost:11434/v1"))
	assert.False(t, llm.IsLocalURL("https://api.openai.com/v1"))
}
