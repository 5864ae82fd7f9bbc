package llm_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/internal/llm"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
)

func TestConverseOrderResponsesChatCompletions(t *testing.T) {
	s := llmtest.NewServer(t)
	modes := &llm.MemoryModes{}
	c, err := llm.New(llm.Profile{Name: "p", BaseURL: s.BaseURL(), Model: "m"}, llm.Options{Modes: modes, MaxRetries: -1})
	require.NoError(t, err)
	tools := action.Tools(nil)[:1]
	req := engine.ModelRequest{System: "You are the assistant.", Text: "user: hello", Tools: tools}

	// Responses first, with tools the model may ignore (auto).
	s.ReplyText("Hi there!")
	got, err := c.Converse(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, llm.AssistantReply{Text: "Hi there!", Mode: "responses", Usage: got.Usage}, got)
	assert.Equal(t, "auto", s.Requests()[0].Body["tool_choice"])

	// Responses gone: chat, then remembered; the task loop's mode is apart.
	s.DisableResponses()
	s.ReplyTool("cron_list", map[string]any{})
	got, err = c.Converse(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, "chat", got.Mode)
	assert.Equal(t, "cron_list", got.Tool)
	assert.Equal(t, "chat", modes.Get("p#assistant"))
	assert.Empty(t, modes.Get("p"), "the task loop's mode is not touched")
	assert.Equal(t, "auto", s.Requests()[len(s.Requests())-1].Body["tool_choice"])

	// Chat gone too: the legacy completions endpoint, text only.
	s.DisableChat()
	s.ReplyText("From completions.")
	n := len(s.Requests())
	got, err = c.Converse(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, "completions", got.Mode)
	assert.Equal(t, "From completions.", got.Text)
	paths := s.Paths()[n:]
	assert.Equal(t, []string{"/v1/chat/completions", "/v1/responses", "/v1/completions"}, paths, "remembered chat first, then the seed's order")
	assert.Contains(t, s.Requests()[len(s.Requests())-1].Body["prompt"], "user: hello")

	s.DisableCompletions()
	_, err = c.Converse(context.Background(), req)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "completions")
}
