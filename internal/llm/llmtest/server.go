// Package llmtest is a fake OpenAI-compatible model server for tests. It
// speaks the wire format of POST /chat/completions and POST /responses on an
// httptest server, answers from a script of canned replies (tool calls, plain
// text, HTTP errors, delays) and records every request for assertions. The
// real openai-go client can be pointed at Server.BaseURL, so tests exercise
// the same request building and response parsing as production.
//
// When the script is exhausted the server asks the responder set with
// Respond (a model that reacts to what it is sent), or else answers with a
// finish tool call, so an agent loop under test always terminates.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Request is one request the server received.
type Request struct {
	// Method and Path as received, e.g. "POST", "/v1/chat/completions".
	Method string
	Path   string
	Header http.Header
	// Body is the decoded JSON body (nil when it was not a JSON object).
	Body map[string]any
	// Raw is the body as received.
	Raw []byte
	// At is when the request arrived.
	At time.Time
}

// IsChat reports whether the request went to the chat completions endpoint.
func (r Request) IsChat() bool { return strings.HasSuffix(r.Path, "/chat/completions") }

// IsCompletions reports whether the request went to the legacy completions endpoint.
func (r Request) IsCompletions() bool {
	return strings.HasSuffix(r.Path, "/completions") && !r.IsChat()
}

// IsResponses reports whether the request went to the Responses endpoint.
func (r Request) IsResponses() bool { return strings.HasSuffix(r.Path, "/responses") }

// ToolCall is one function call in a scripted reply.
type ToolCall struct {
	Name string
	// Arguments is the raw JSON arguments string sent to the client.
	Arguments string
}

// Usage is the token usage reported with a reply.
type Usage struct {
	Input, Output int64
}

// Reply is one scripted answer. A Status >= 400 sends an error (Body, or an
// OpenAI-style error JSON when Body is empty); otherwise the reply carries
// ToolCalls and/or Text in the wire shape of the endpoint that was called.
type Reply struct {
	Status int
	Header http.Header
	Body   string

	ToolCalls []ToolCall
	Text      string
	// ReasoningContent is sent as the provider extra field
	// message.reasoning_content (chat) or a reasoning summary (responses).
	ReasoningContent string
	// Usage overrides the default usage (100 input, 20 output tokens).
	Usage *Usage
	// Delay holds the reply back; it ends early when the client goes away.
	Delay time.Duration
}

// DefaultUsage is reported when a Reply sets no Usage.
var DefaultUsage = Usage{Input: 100, Output: 20}

// Server is a scripted fake model server. Its methods are safe for
// concurrent use.
type Server struct {
	srv *httptest.Server

	mu                sync.Mutex
	script            []Reply
	requests          []Request
	noRecord          bool
	chatDisabled      bool
	responsesDisabled bool
	// completionsDisabled answers the legacy completions endpoint with 404.
	completionsDisabled bool
	seq                 int
	respond             func(Request) Reply
}

// Respond sets the function that answers requests once the script is
// exhausted: a scripted model that decides from the request (the screen
// described in the step message) instead of replaying fixed replies.
func (s *Server) Respond(f func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.respond = f
}

// NewServer starts a fake server that is closed when the test ends.
func NewServer(t testing.TB) *Server {
	t.Helper()
	s := &Server{}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the server root, e.g. "http://127.0.0.1:1234".
func (s *Server) URL() string { return s.srv.URL }

// BaseURL is the OpenAI-style base URL to configure clients with
// ("<URL>/v1").
func (s *Server) BaseURL() string { return s.srv.URL + "/v1" }

// Close shuts the server down (also done automatically at test end).
func (s *Server) Close() { s.srv.Close() }

// Push appends replies to the script.
func (s *Server) Push(r ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, r...)
}

// ReplyTool scripts a reply with one function call. args is marshalled to
// JSON, except a string, which is sent verbatim as the arguments string (so
// tests can send malformed JSON).
func (s *Server) ReplyTool(name string, args any) {
	s.Push(Reply{ToolCalls: []ToolCall{{Name: name, Arguments: argString(args)}}})
}

// ReplyText scripts a reply with assistant text and no tool call.
func (s *Server) ReplyText(text string) { s.Push(Reply{Text: text}) }

// ReplyStatus scripts an HTTP error reply. An empty body sends an
// OpenAI-style error object.
func (s *Server) ReplyStatus(code int, body string) { s.Push(Reply{Status: code, Body: body}) }

// DisableChat makes /chat/completions answer 404 (without consuming the
// script), like a provider that only offers the Responses API.
func (s *Server) DisableChat() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chatDisabled = true
}

// DisableResponses makes /responses answer 404 without consuming the script.
func (s *Server) DisableResponses() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.responsesDisabled = true
}

// DisableCompletions makes POST /completions answer 404.
func (s *Server) DisableCompletions() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.completionsDisabled = true
}

// DiscardRequests stops recording requests (for benchmarks).
func (s *Server) DiscardRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noRecord = true
	s.requests = nil
}

// Requests returns a copy of the recorded requests in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Paths returns the paths of the recorded requests in arrival order.
func (s *Server) Paths() []string {
	var out []string
	for _, r := range s.Requests() {
		out = append(out, r.Path)
	}
	return out
}

// Pending is the number of scripted replies not yet consumed.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script)
}

func argString(args any) string {
	switch v := args.(type) {
	case nil:
		return "{}"
	case string:
		return v
	case []byte:
		return string(v)
	case json.RawMessage:
		return string(v)
	}
	b, err := json.Marshal(args)
	if err != nil {
		panic(fmt.Sprintf("llmtest: cannot marshal tool arguments: %v", err))
	}
	return string(b)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	req := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Raw: raw, At: time.Now()}
	var body map[string]any
	if json.Unmarshal(raw, &body) == nil {
		req.Body = body
	}

	s.mu.Lock()
	if !s.noRecord {
		s.requests = append(s.requests, req)
	}
	chat, resp, compl := req.IsChat(), req.IsResponses(), req.IsCompletions()
	if r.Method != http.MethodPost || (!chat && !resp && !compl) {
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, "", "unknown endpoint "+r.Method+" "+r.URL.Path)
		return
	}
	if (chat && s.chatDisabled) || (resp && s.responsesDisabled) || (compl && s.completionsDisabled) {
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, "", "Invalid URL (POST "+r.URL.Path+")")
		return
	}
	var rep Reply
	respond := s.respond
	scripted := len(s.script) > 0
	if scripted {
		rep = s.script[0]
		s.script = s.script[1:]
	} else if respond == nil {
		rep = Reply{ToolCalls: []ToolCall{{Name: "finish", Arguments: `{"message":"llmtest: script exhausted"}`}}}
	}
	s.seq++
	seq := s.seq
	s.mu.Unlock()
	if !scripted && respond != nil {
		rep = respond(req)
	}

	if rep.Delay > 0 {
		t := time.NewTimer(rep.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	for k, vs := range rep.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if rep.Status >= 400 {
		writeError(w, rep.Status, rep.Body, http.StatusText(rep.Status))
		return
	}
	model, _ := body["model"].(string)
	var out any
	switch {
	case chat:
		out = chatCompletion(seq, model, rep)
	case compl:
		out = textCompletion(seq, model, rep)
	default:
		out = response(seq, model, rep)
	}
	w.Header().Set("Content-Type", "application/json")
	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(out)
}

func writeError(w http.ResponseWriter, code int, body, msg string) {
	if body == "" {
		b, _ := json.Marshal(map[string]any{"error": map[string]any{
			"message": msg, "type": "invalid_request_error", "param": nil, "code": nil,
		}})
		body = string(b)
	}
	if json.Valid([]byte(body)) {
		w.Header().Set("Content-Type", "application/json")
	} else {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	}
	w.WriteHeader(code)
	_, _ = io.WriteString(w, body)
}

func usageOf(rep Reply) Usage {
	if rep.Usage != nil {
		return *rep.Usage
	}
	return DefaultUsage
}

// chatCompletion builds a chat.completion object.
func chatCompletion(seq int, model string, rep Reply) map[string]any {
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	if rep.Text != "" {
		msg["content"] = rep.Text
	}
	if rep.ReasoningContent != "" {
		msg["reasoning_content"] = rep.ReasoningContent
	}
	finish := "stop"
	if len(rep.ToolCalls) > 0 {
		var calls []any
		for i, tc := range rep.ToolCalls {
			calls = append(calls, map[string]any{
				"id":       fmt.Sprintf("call_%d_%d", seq, i),
				"type":     "function",
				"function": map[string]any{"name": tc.Name, "arguments": tc.Arguments},
			})
		}
		msg["tool_calls"] = calls
		finish = "tool_calls"
	}
	u := usageOf(rep)
	return map[string]any{
		"id":      fmt.Sprintf("chatcmpl-llmtest-%d", seq),
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   model,
		"choices": []any{map[string]any{
			"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil,
		}},
		"usage": map[string]any{
			"prompt_tokens": u.Input, "completion_tokens": u.Output, "total_tokens": u.Input + u.Output,
		},
	}
}

// response builds a Responses API response object.
func response(seq int, model string, rep Reply) map[string]any {
	var output []any
	if rep.ReasoningContent != "" {
		output = append(output, map[string]any{
			"id": fmt.Sprintf("rs_%d", seq), "type": "reasoning",
			"summary": []any{map[string]any{"type": "summary_text", "text": rep.ReasoningContent}},
		})
	}
	if rep.Text != "" {
		output = append(output, map[string]any{
			"id": fmt.Sprintf("msg_%d", seq), "type": "message", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": rep.Text, "annotations": []any{}}},
		})
	}
	for i, tc := range rep.ToolCalls {
		output = append(output, map[string]any{
			"id": fmt.Sprintf("fc_%d_%d", seq, i), "type": "function_call", "status": "completed",
			"call_id": fmt.Sprintf("call_%d_%d", seq, i), "name": tc.Name, "arguments": tc.Arguments,
		})
	}
	if output == nil {
		output = []any{}
	}
	u := usageOf(rep)
	return map[string]any{
		"id":                  fmt.Sprintf("resp_llmtest_%d", seq),
		"object":              "response",
		"created_at":          time.Now().Unix(),
		"status":              "completed",
		"model":               model,
		"output":              output,
		"parallel_tool_calls": false,
		"tool_choice":         "required",
		"tools":               []any{},
		"usage": map[string]any{
			"input_tokens": u.Input, "output_tokens": u.Output, "total_tokens": u.Input + u.Output,
			"input_tokens_details":  map[string]any{"cached_tokens": 0},
			"output_tokens_details": map[string]any{"reasoning_tokens": 0},
		},
	}
}

// textCompletion is a legacy completions reply (text only; tool calls
// cannot be expressed there and are dropped).
func textCompletion(seq int, model string, rep Reply) map[string]any {
	u := usageOf(rep)
	return map[string]any{
		"id": fmt.Sprintf("cmpl-%d", seq), "object": "text_completion", "created": time.Now().Unix(), "model": model,
		"choices": []any{map[string]any{"index": 0, "text": rep.Text, "finish_reason": "stop", "logprobs": nil}},
		"usage":   map[string]any{"prompt_tokens": u.Input, "completion_tokens": u.Output, "total_tokens": u.Input + u.Output},
	}
}
