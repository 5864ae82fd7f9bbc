package llmtest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestRespondAfterScript: scripted replies come first, then the responder
// decides from each request it is given.
func TestRespondAfterScript(t *testing.T) {
	s := NewServer(t)
	s.ReplyTool("wait", map[string]any{"durationMs": 100})
	s.Respond(func(r Request) Reply {
		msgs, _ := r.Body["messages"].([]any)
		return Reply{ToolCalls: []ToolCall{{Name: "finish", Arguments: `{"message":"saw ` + strings.Repeat("m", len(msgs)) + `"}`}}}
	})
	call := func(body string) string {
		t.Helper()
		resp, err := http.Post(s.BaseURL()+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			Choices []struct {
				Message struct {
					ToolCalls []struct {
						Function struct{ Name, Arguments string } `json:"function"`
					} `json:"tool_calls"`
				} `json:"message"`
			} `json:"choices"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		fn := out.Choices[0].Message.ToolCalls[0].Function
		return fn.Name + " " + fn.Arguments
	}
	if got := call(`{"messages":[{}]}`); got != `wait {"durationMs":100}` {
		t.Fatalf("first reply %q, want the scripted one", got)
	}
	if got := call(`{"messages":[{},{},{}]}`); got != `finish {"message":"saw mmm"}` {
		t.Fatalf("second reply %q, want the responder's answer to the request", got)
	}
	if n := len(s.Requests()); n != 2 {
		t.Fatalf("%d requests recorded", n)
	}
}
