package llm_test

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/internal/llm"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
)

// tinyPNG is a 1x1 PNG.
var tinyPNG, _ = base64.StdEncoding.DecodeString(
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")

func newClient(t testing.TB, s *llmtest.Server, modes llm.ModeStore, tweak ...func(*llm.Options)) *llm.Client {
	t.Helper()
	t.Setenv("OPENAI_API_KEY", "")
	o := llm.Options{Timeout: 10 * time.Second, Modes: modes}
	for _, f := range tweak {
		f(&o)
	}
	c, err := llm.New(llm.Profile{Name: "test", BaseURL: s.BaseURL(), Model: "gpt-test"}, o)
	require.NoError(t, err)
	return c
}

func stepRequest() engine.ModelRequest {
	return engine.ModelRequest{
		System:   "You drive an Android phone.",
		Text:     "Task: open settings. Step 1.",
		ImagePNG: tinyPNG,
		Tools:    action.Tools(nil),
	}
}

func toolNames(t *testing.T, tools []any, chat bool) []string {
	t.Helper()
	var names []string
	for _, x := range tools {
		tool := x.(map[string]any)
		assert.Equal(t, "function", tool["type"])
		fn := tool
		if chat {
			fn = tool["function"].(map[string]any)
		}
		assert.Equal(t, false, fn["strict"], "strict must be false")
		params, ok := fn["parameters"].(map[string]any)
		assert.True(t, ok, "tool %v has a parameters schema", fn["name"])
		assert.Equal(t, "object", params["type"])
		names = append(names, fn["name"].(string))
	}
	return names
}

func TestChatToolCall(t *testing.T) {
	s := llmtest.NewServer(t)
	s.ReplyTool("tap", map[string]any{"x": 120, "y": 340, "thought": "the Settings icon is there"})
	c := newClient(t, s, nil)

	rep, err := c.Decide(context.Background(), stepRequest())
	require.NoError(t, err)
	assert.Equal(t, "tap", rep.Action.Type)
	assert.Equal(t, 120, rep.Action.Int("x"))
	assert.Equal(t, 340, rep.Action.Int("y"))
	assert.Equal(t, "the Settings icon is there", rep.Thought)
	assert.Empty(t, rep.Problems, "thought is not reported as an unknown parameter")
	assert.Equal(t, llm.ModeChat, rep.Mode)
	assert.Equal(t, engine.Usage{InputTokens: 100, OutputTokens: 20, TotalTokens: 120}, rep.Usage)
	assert.Contains(t, rep.Raw, "tap")
	assert.Contains(t, rep.Raw, `"x":120`)
	assert.Greater(t, rep.Latency, time.Duration(0))

	reqs := s.Requests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	assert.Equal(t, "/v1/chat/completions", r.Path)
	assert.NotContains(t, r.Header, "Authorization", "a local server without a key gets no Authorization header")
	b := r.Body
	assert.Equal(t, "gpt-test", b["model"])
	assert.Equal(t, "required", b["tool_choice"])
	assert.Equal(t, false, b["parallel_tool_calls"])
	names := toolNames(t, b["tools"].([]any), true)
	assert.Subset(t, names, []string{"tap", "type_text", "swipe", "finish", "wait"})
	assert.NotContains(t, names, "type", "the type action is offered as type_text")

	msgs := b["messages"].([]any)
	require.Len(t, msgs, 2)
	sys := msgs[0].(map[string]any)
	assert.Equal(t, "system", sys["role"])
	assert.Equal(t, "You drive an Android phone.", sys["content"])
	user := msgs[1].(map[string]any)
	assert.Equal(t, "user", user["role"])
	var texts, images []string
	for _, p := range user["content"].([]any) {
		part := p.(map[string]any)
		switch part["type"] {
		case "text":
			texts = append(texts, part["text"].(string))
		case "image_url":
			iu := part["image_url"].(map[string]any)
			assert.Equal(t, "auto", iu["detail"])
			images = append(images, iu["url"].(string))
		default:
			t.Errorf("unexpected content part %v", part)
		}
	}
	assert.Equal(t, []string{"Task: open settings. Step 1."}, texts)
	require.Len(t, images, 1, "exactly one image")
	require.True(t, strings.HasPrefix(images[0], "data:image/png;base64,"), images[0])
	png, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(images[0], "data:image/png;base64,"))
	require.NoError(t, err)
	assert.Equal(t, tinyPNG, png)
	assert.Equal(t, 1, strings.Count(string(r.Raw), "data:image/png;base64,"))
}

func TestProfileSettingsSent(t *testing.T) {
	s := llmtest.NewServer(t)
	t.Setenv("OPENAI_API_KEY", "")
	temp := 0.2
	c, err := llm.New(llm.Profile{Name: "p", BaseURL: s.BaseURL(), Model: "m", APIKey: "sk-abc",
		MaxTokens: 512, ReasoningEffort: "low", Temperature: &temp}, llm.Options{})
	require.NoError(t, err)
	p, m := c.Profile()
	assert.Equal(t, "p", p)
	assert.Equal(t, "m", m)
	_, err = c.Decide(context.Background(), engine.ModelRequest{Text: "hi", Tools: action.Tools(nil)})
	require.NoError(t, err)
	r := s.Requests()[0]
	assert.Equal(t, "Bearer sk-abc", r.Header.Get("Authorization"))
	assert.EqualValues(t, 512, r.Body["max_tokens"])
	assert.Equal(t, "low", r.Body["reasoning_effort"])
	assert.EqualValues(t, 0.2, r.Body["temperature"])
	msgs := r.Body["messages"].([]any)
	require.Len(t, msgs, 1, "no system message when System is empty")
	assert.NotContains(t, string(r.Raw), "image_url", "no image without ImagePNG")
}

func TestResponsesMode(t *testing.T) {
	s := llmtest.NewServer(t)
	s.ReplyTool("type_text", map[string]any{"text": "hello", "reason": "fill the search box"})
	modes := &llm.MemoryModes{}
	require.NoError(t, modes.Set("test", llm.ModeResponses))
	c := newClient(t, s, modes)

	rep, err := c.Decide(context.Background(), stepRequest())
	require.NoError(t, err)
	assert.Equal(t, llm.ModeResponses, rep.Mode)
	assert.Equal(t, "type", rep.Action.Type)
	assert.Equal(t, "hello", rep.Action.Str("text"))
	assert.Equal(t, "fill the search box", rep.Thought)
	assert.Equal(t, engine.Usage{InputTokens: 100, OutputTokens: 20, TotalTokens: 120}, rep.Usage)

	require.Equal(t, []string{"/v1/responses"}, s.Paths())
	b := s.Requests()[0].Body
	assert.Equal(t, "gpt-test", b["model"])
	assert.Equal(t, "You drive an Android phone.", b["instructions"])
	assert.Equal(t, "required", b["tool_choice"])
	assert.Equal(t, false, b["parallel_tool_calls"])
	assert.Subset(t, toolNames(t, b["tools"].([]any), false), []string{"tap", "type_text"})
	input := b["input"].([]any)
	require.Len(t, input, 1)
	msg := input[0].(map[string]any)
	assert.Equal(t, "user", msg["role"])
	var kinds []string
	for _, p := range msg["content"].([]any) {
		part := p.(map[string]any)
		kinds = append(kinds, part["type"].(string))
		switch part["type"] {
		case "input_text":
			assert.Equal(t, "Task: open settings. Step 1.", part["text"])
		case "input_image":
			assert.True(t, strings.HasPrefix(part["image_url"].(string), "data:image/png;base64,"))
			assert.Equal(t, "auto", part["detail"])
		}
	}
	assert.Equal(t, []string{"input_text", "input_image"}, kinds)
}

func TestChat404FallsBackToResponsesAndRemembers(t *testing.T) {
	s := llmtest.NewServer(t)
	s.DisableChat()
	s.ReplyTool("tap", map[string]any{"x": 1, "y": 2})
	s.ReplyTool("finish", map[string]any{"message": "done"})
	modes := &llm.MemoryModes{}
	c := newClient(t, s, modes)

	rep, err := c.Decide(context.Background(), stepRequest())
	require.NoError(t, err)
	assert.Equal(t, llm.ModeResponses, rep.Mode)
	assert.Equal(t, "tap", rep.Action.Type)
	assert.Equal(t, llm.ModeResponses, modes.Get("test"), "the working mode is stored")
	assert.Equal(t, llm.ModeResponses, c.Mode())

	rep, err = c.Decide(context.Background(), stepRequest())
	require.NoError(t, err)
	assert.Equal(t, "finish", rep.Action.Type)
	assert.Equal(t, "done", rep.Action.Str("message"))
	assert.Equal(t, []string{"/v1/chat/completions", "/v1/responses", "/v1/responses"}, s.Paths(),
		"the second call goes straight to /responses")
}

func TestRememberedModeFallsBackToChat(t *testing.T) {
	s := llmtest.NewServer(t)
	s.DisableResponses()
	modes := &llm.MemoryModes{}
	require.NoError(t, modes.Set("test", llm.ModeResponses))
	c := newClient(t, s, modes)
	rep, err := c.Decide(context.Background(), stepRequest())
	require.NoError(t, err)
	assert.Equal(t, llm.ModeChat, rep.Mode)
	assert.Equal(t, llm.ModeChat, modes.Get("test"))
	assert.Equal(t, []string{"/v1/responses", "/v1/chat/completions"}, s.Paths())
}

func TestFallbackOn400NotSupported(t *testing.T) {
	s := llmtest.NewServer(t)
	s.ReplyStatus(http.StatusBadRequest,
		`{"error":{"message":"This endpoint is not supported for this model","type":"invalid_request_error"}}`)
	s.ReplyTool("wait", map[string]any{"durationMs": 500})
	c := newClient(t, s, nil)
	rep, err := c.Decide(context.Background(), stepRequest())
	require.NoError(t, err)
	assert.Equal(t, llm.ModeResponses, rep.Mode)
	assert.Equal(t, 500, rep.Action.Int("durationMs"))
}

func TestFallbackOnPlainText404(t *testing.T) {
	s := llmtest.NewServer(t)
	s.ReplyStatus(http.StatusNotFound, "404 page not found")
	c := newClient(t, s, nil)
	rep, err := c.Decide(context.Background(), stepRequest())
	require.NoError(t, err)
	assert.Equal(t, llm.ModeResponses, rep.Mode)
}

func TestBothEndpointsFail(t *testing.T) {
	s := llmtest.NewServer(t)
	s.DisableChat()
	s.DisableResponses()
	c := newClient(t, s, nil)
	_, err := c.Decide(context.Background(), stepRequest())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "chat completions")
	assert.Contains(t, err.Error(), "responses")
	assert.Contains(t, err.Error(), "404")
	var apiErr *llm.APIError
	require.True(t, errors.As(err, &apiErr))
	assert.Equal(t, http.StatusNotFound, apiErr.StatusCode)
}

func TestBadRequestDoesNotFallBack(t *testing.T) {
	s := llmtest.NewServer(t)
	s.ReplyStatus(http.StatusUnauthorized, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`)
	c := newClient(t, s, nil)
	_, err := c.Decide(context.Background(), stepRequest())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "401")
	assert.Contains(t, err.Error(), "Incorrect API key provided")
	assert.Len(t, s.Requests(), 1, "401 is neither retried nor a reason to fall back")
}

func TestJSONActionInText(t *testing.T) {
	for _, tc := range []struct {
		name, text, typ, thought string
		check                    func(t *testing.T, a action.Action)
	}{
		{"fenced", "I will tap the icon.\n```json\n{\"type\":\"tap\",\"x\":1,\"y\":2}\n```", "tap", "I will tap the icon.",
			func(t *testing.T, a action.Action) { assert.Equal(t, 1, a.Int("x")); assert.Equal(t, 2, a.Int("y")) }},
		{"bare", `{"type":"tap","x":1,"y":2}`, "tap", "",
			func(t *testing.T, a action.Action) { assert.Equal(t, 2, a.Int("y")) }},
		{"wrapped", `{"thought":"type the query","action":{"type":"type","text":"hi"}}`, "type", "type the query",
			func(t *testing.T, a action.Action) { assert.Equal(t, "hi", a.Str("text")) }},
		{"tool name", `{"action":{"type":"type_text","text":"hi"}}`, "type", "",
			func(t *testing.T, a action.Action) { assert.Equal(t, "hi", a.Str("text")) }},
		{"name+arguments", `<tool_call>{"name": "launch_app", "arguments": {"packageName": "com.android.settings"}}</tool_call>`,
			"launch_app", "", func(t *testing.T, a action.Action) { assert.Equal(t, "com.android.settings", a.Str("packageName")) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := llmtest.NewServer(t)
			s.ReplyText(tc.text)
			c := newClient(t, s, nil)
			rep, err := c.Decide(context.Background(), stepRequest())
			require.NoError(t, err)
			assert.Equal(t, tc.typ, rep.Action.Type)
			tc.check(t, rep.Action)
			assert.Equal(t, tc.text, rep.Raw)
			require.NotEmpty(t, rep.Problems)
			assert.Contains(t, rep.Problems[0], "no tool call")
			if tc.thought != "" {
				assert.Equal(t, tc.thought, rep.Thought)
			}
		})
	}
}

func TestCallSyntaxInText(t *testing.T) {
	for _, tc := range []struct {
		text, typ, param string
		want             any
	}{
		{"tap(x=1, y=2)", "tap", "y", 2},
		{"Tapping the button: tap(10, 20)", "tap", "x", 10},
		{`type_text(text="hi, there")`, "type", "text", "hi, there"},
		{`type(text='it\'s me')`, "type", "text", "it's me"},
		{`finish(message="done")`, "finish", "message", "done"},
		{"`swipe(x1=1, y1=2, x2=3, y2=4, durationMs=500)`", "swipe", "durationMs", 500},
	} {
		t.Run(tc.text, func(t *testing.T) {
			s := llmtest.NewServer(t)
			s.ReplyText(tc.text)
			c := newClient(t, s, nil)
			rep, err := c.Decide(context.Background(), stepRequest())
			require.NoError(t, err)
			assert.Equal(t, tc.typ, rep.Action.Type)
			assert.Equal(t, tc.want, rep.Action.Params[tc.param])
			assert.Contains(t, rep.Problems[0], "call syntax")
		})
	}
}

func TestNoActionIsAnError(t *testing.T) {
	s := llmtest.NewServer(t)
	long := "I am not sure what to do here. " + strings.Repeat("x", 300)
	s.ReplyText(long)
	c := newClient(t, s, nil)
	rep, err := c.Decide(context.Background(), stepRequest())
	require.ErrorIs(t, err, llm.ErrNoAction)
	assert.Contains(t, err.Error(), "model returned no tool call and no parseable action: I am not sure")
	assert.Less(t, len(err.Error()), 300, "the reply is cut to 200 characters")
	assert.Equal(t, long, rep.Raw, "the reply is kept for the audit trail")
	assert.Equal(t, int64(120), rep.Usage.TotalTokens)
}

func TestMalformedArguments(t *testing.T) {
	for _, tc := range []struct {
		name, args, typ, param string
		want                   any
	}{
		{"trailing comma", `{"x": 10, "y": 20,}`, "tap", "y", 20},
		{"fenced", "```json\n{\"x\": 10, \"y\": 20}\n```", "tap", "x", 10},
		{"truncated", `{"text": "hel`, "type_text", "text", "hel"},
		{"single quotes", `{'x': 5, 'y': 6}`, "tap", "y", 6},
		{"garbage", `not json at all`, "tap", "x", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := llmtest.NewServer(t)
			s.ReplyTool(tc.typ, tc.args)
			c := newClient(t, s, nil)
			rep, err := c.Decide(context.Background(), stepRequest())
			require.NoError(t, err)
			assert.Equal(t, strings.TrimSuffix(tc.typ, "_text"), rep.Action.Type)
			assert.Equal(t, tc.want, rep.Action.Params[tc.param])
			require.NotEmpty(t, rep.Problems)
			assert.True(t, strings.HasPrefix(rep.Problems[0], "arguments were not valid JSON: "), rep.Problems[0])
			assert.Contains(t, rep.Raw, tc.args)
		})
	}
}

func TestThoughtSources(t *testing.T) {
	s := llmtest.NewServer(t)
	s.Push(llmtest.Reply{Text: "The settings icon is top left.",
		ToolCalls: []llmtest.ToolCall{{Name: "tap", Arguments: `{"x":1,"y":1}`}}})
	s.Push(llmtest.Reply{ReasoningContent: "thinking about the icon",
		ToolCalls: []llmtest.ToolCall{{Name: "tap", Arguments: `{"x":1,"y":1}`}}})
	s.Push(llmtest.Reply{ToolCalls: []llmtest.ToolCall{
		{Name: "tap", Arguments: `{"x":1,"y":1}`}, {Name: "finish", Arguments: `{}`}}})
	c := newClient(t, s, nil)

	rep, err := c.Decide(context.Background(), stepRequest())
	require.NoError(t, err)
	assert.Equal(t, "The settings icon is top left.", rep.Thought)

	rep, err = c.Decide(context.Background(), stepRequest())
	require.NoError(t, err)
	assert.Equal(t, "thinking about the icon", rep.Thought, "reasoning_content extra field")

	rep, err = c.Decide(context.Background(), stepRequest())
	require.NoError(t, err)
	assert.Equal(t, "tap", rep.Action.Type)
	require.NotEmpty(t, rep.Problems)
	assert.Contains(t, rep.Problems[0], "2 tool calls")
}

func TestResponsesReasoningThought(t *testing.T) {
	s := llmtest.NewServer(t)
	s.DisableChat()
	s.Push(llmtest.Reply{ReasoningContent: "summary of reasoning",
		ToolCalls: []llmtest.ToolCall{{Name: "wait", Arguments: `{}`}}})
	c := newClient(t, s, nil)
	rep, err := c.Decide(context.Background(), stepRequest())
	require.NoError(t, err)
	assert.Equal(t, "summary of reasoning", rep.Thought)
	assert.Equal(t, "wait", rep.Action.Type)
}

func TestUnknownToolBecomesWait(t *testing.T) {
	s := llmtest.NewServer(t)
	s.ReplyTool("scroll_down", map[string]any{})
	c := newClient(t, s, nil)
	rep, err := c.Decide(context.Background(), stepRequest())
	require.NoError(t, err)
	assert.Equal(t, "wait", rep.Action.Type)
	require.NotEmpty(t, rep.Problems)
	assert.Contains(t, strings.Join(rep.Problems, "\n"), "scroll_down")
}

func TestScriptExhaustedFinishes(t *testing.T) {
	s := llmtest.NewServer(t)
	c := newClient(t, s, nil)
	rep, err := c.Decide(context.Background(), stepRequest())
	require.NoError(t, err)
	assert.Equal(t, "finish", rep.Action.Type)
}

func TestRetry500ThenSuccess(t *testing.T) {
	s := llmtest.NewServer(t)
	s.ReplyStatus(http.StatusInternalServerError, "")
	s.ReplyTool("tap", map[string]any{"x": 3, "y": 4})
	c := newClient(t, s, nil)
	rep, err := c.Decide(context.Background(), stepRequest())
	require.NoError(t, err)
	assert.Equal(t, 3, rep.Action.Int("x"))
	reqs := s.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, reqs[0].Path, reqs[1].Path, "a retry is not a fallback")
	assert.GreaterOrEqual(t, reqs[1].At.Sub(reqs[0].At), 300*time.Millisecond, "retries back off")
}

func TestRetriesExhausted(t *testing.T) {
	s := llmtest.NewServer(t)
	for range 3 {
		s.ReplyStatus(http.StatusBadGateway, "")
	}
	c := newClient(t, s, nil, func(o *llm.Options) { o.MaxRetries = 1 })
	_, err := c.Decide(context.Background(), stepRequest())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "502")
	assert.Len(t, s.Requests(), 2, "one try plus one retry")
	assert.Equal(t, 1, s.Pending())
}

func TestRetry429HonoursRetryAfter(t *testing.T) {
	s := llmtest.NewServer(t)
	s.Push(llmtest.Reply{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {"1"}}})
	s.ReplyTool("tap", map[string]any{"x": 5, "y": 6})
	c := newClient(t, s, nil)
	rep, err := c.Decide(context.Background(), stepRequest())
	require.NoError(t, err)
	assert.Equal(t, 5, rep.Action.Int("x"))
	reqs := s.Requests()
	require.Len(t, reqs, 2)
	assert.GreaterOrEqual(t, reqs[1].At.Sub(reqs[0].At), 950*time.Millisecond, "Retry-After: 1 is honoured")
}

func TestCancelMidRequest(t *testing.T) {
	s := llmtest.NewServer(t)
	s.Push(llmtest.Reply{Delay: 30 * time.Second})
	c := newClient(t, s, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for len(s.Requests()) == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	start := time.Now()
	_, err := c.Decide(ctx, stepRequest())
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Len(t, s.Requests(), 1, "a cancelled call is neither retried nor falls back")
}

func TestTimeout(t *testing.T) {
	s := llmtest.NewServer(t)
	s.Push(llmtest.Reply{Delay: 30 * time.Second})
	c := newClient(t, s, nil, func(o *llm.Options) { o.Timeout = 200 * time.Millisecond })
	start := time.Now()
	_, err := c.Decide(context.Background(), stepRequest())
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "no reply within 200ms")
	assert.Less(t, time.Since(start), 5*time.Second)
}

func TestNewValidation(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("MY_KEY", "")
	_, err := llm.New(llm.Profile{Name: "p", BaseURL: "https://api.example.com/v1"}, llm.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no model")

	_, err = llm.New(llm.Profile{Name: "p", Model: "m", BaseURL: "https://api.example.com/v1", APIKeyEnv: "MY_KEY"}, llm.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "MY_KEY")

	_, err = llm.New(llm.Profile{Name: "p", Model: "m"}, llm.Options{})
	require.Error(t, err, "the default OpenAI base URL needs a key")
	assert.Contains(t, err.Error(), "OPENAI_API_KEY")

	_, err = llm.New(llm.Profile{Name: "p", Model: "m", BaseURL: "ftp://x"}, llm.Options{})
	require.Error(t, err)

	for _, u := range []string{"http://localhost:11434/v1", "http://127.0.0.1:8000/v1", "http://192.168.1.20:1234/v1", "http://[::1]:8080/v1"} {
		_, err = llm.New(llm.Profile{Name: "p", Model: "m", BaseURL: u}, llm.Options{})
		assert.NoError(t, err, "local server %s needs no key", u)
	}

	t.Setenv("MY_KEY", "sk-from-env")
	_, err = llm.New(llm.Profile{Name: "p", Model: "m", BaseURL: "https://api.example.com/v1", APIKeyEnv: "MY_KEY"}, llm.Options{})
	require.NoError(t, err)
}

// TestAPIKeyEnvUnsetNeverFallsBack: a profile naming an unset variable gets
// a clear error, not the OpenAI key sent to another provider.
func TestAPIKeyEnvUnsetNeverFallsBack(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-openai-SECRET")
	t.Setenv("OTHER_PROVIDER_KEY", "")
	_, err := llm.New(llm.Profile{Name: "other", Model: "m", BaseURL: "https://api.other.example/v1", APIKeyEnv: "OTHER_PROVIDER_KEY"}, llm.Options{})
	require.Error(t, err)
	assert.Equal(t, `model profile "other": no API key for https://api.other.example/v1: set apiKey in the profile or the environment variable OTHER_PROVIDER_KEY (named by apiKeyEnv; OPENAI_API_KEY is not used in its place)`, err.Error())

	s := llmtest.NewServer(t) // a local server: no key needed, and none of OpenAI's sent
	c, err := llm.New(llm.Profile{Name: "local", Model: "m", BaseURL: s.BaseURL(), APIKeyEnv: "OTHER_PROVIDER_KEY"}, llm.Options{})
	require.NoError(t, err)
	_, err = c.Decide(context.Background(), engine.ModelRequest{Text: "x"})
	require.NoError(t, err)
	assert.NotContains(t, s.Requests()[0].Header.Get("Authorization"), "sk-openai")
	assert.NotContains(t, s.Requests()[0].Header, "Authorization")
}

func TestKeyFromEnv(t *testing.T) {
	s := llmtest.NewServer(t)
	t.Setenv("MY_KEY", "sk-env")
	t.Setenv("OPENAI_API_KEY", "sk-openai")
	c, err := llm.New(llm.Profile{Name: "p", Model: "m", BaseURL: s.BaseURL(), APIKeyEnv: "MY_KEY"}, llm.Options{})
	require.NoError(t, err)
	_, err = c.Decide(context.Background(), engine.ModelRequest{Text: "x"})
	require.NoError(t, err)
	c, err = llm.New(llm.Profile{Name: "p", Model: "m", BaseURL: s.BaseURL()}, llm.Options{})
	require.NoError(t, err)
	_, err = c.Decide(context.Background(), engine.ModelRequest{Text: "x"})
	require.NoError(t, err)
	reqs := s.Requests()
	assert.Equal(t, "Bearer sk-env", reqs[0].Header.Get("Authorization"))
	assert.Equal(t, "Bearer sk-openai", reqs[1].Header.Get("Authorization"))
	_, hasTools := reqs[0].Body["tools"]
	assert.False(t, hasTools, "no tools, no tool_choice")
	_, hasChoice := reqs[0].Body["tool_choice"]
	assert.False(t, hasChoice)
}

// BenchmarkDecide measures one Decide round trip (request building, HTTP
// over loopback, response parsing, normalization) against the fake server,
// so the agent loop's own overhead can be told apart from the model's.
func BenchmarkDecide(b *testing.B) {
	s := llmtest.NewServer(b)
	s.DiscardRequests()
	c := newClient(b, s, nil)
	req := stepRequest()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		if _, err := c.Decide(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/op")
}
