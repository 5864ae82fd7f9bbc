package llm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/llm"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
)

// TestOversizedReplyBodyFailsTheStep: a reply body over the default cap
// is not read whole; the step fails with a clear error.
func TestOversizedReplyBodyFailsTheStep(t *testing.T) {
	s := llmtest.NewServer(t)
	s.ReplyText(strings.Repeat("x", llm.DefaultMaxResponseBytes+1<<20))
	c := newClient(t, s, nil, func(o *llm.Options) { o.MaxRetries = -1 })
	_, err := c.Decide(context.Background(), stepRequest())
	require.ErrorIs(t, err, llm.ErrReplyTooLarge)
	assert.Contains(t, err.Error(), `model "test" (gpt-test): chat completions:`)
	assert.Contains(t, err.Error(), "over the limit of 8388608")
}

func TestReplyCapsAreConfigurable(t *testing.T) {
	s := llmtest.NewServer(t)
	// Under the body cap, over the message cap.
	s.ReplyTool("type_text", map[string]any{"text": strings.Repeat("y", 4096)})
	c := newClient(t, s, nil, func(o *llm.Options) { o.MaxMessageBytes = 1024 })
	_, err := c.Decide(context.Background(), stepRequest())
	require.ErrorIs(t, err, llm.ErrReplyTooLarge)
	assert.Contains(t, err.Error(), "text and tool calls are")

	// A body cap a normal reply fits in leaves it alone.
	s.ReplyTool("tap", map[string]any{"x": 1, "y": 2})
	c = newClient(t, s, nil, func(o *llm.Options) { o.MaxResponseBytes = 64 << 10 })
	r, err := c.Decide(context.Background(), stepRequest())
	require.NoError(t, err)
	assert.Equal(t, "tap", r.Action.Type)
}
