package main_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/browsertest"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/internal/workspace"
)

var (
	placeholderKey = regexp.MustCompile(`delegation_template=[^"]*\{\{human_auth:(username)\}\}`)
)

// centerOf finds the scaled center of the element whose label mentions
// name in the step message the model got.
func centerOf(raw, name string) (x, y int, ok bool) {
	re := regexp.MustCompile(`label=\\"[^\\"]*(?i:` + name + `)[^\\"]*\\"[^\]]*?center=\((\d+),(\d+)\)`)
	m := re.FindAllStringSubmatch(raw, -1)
	if len(m) == 0 {
		return 0, 0, false
	}
	last := m[len(m)-1]
	var p [2]int
	for i := range p {
		json.Unmarshal([]byte(last[i+1]), &p[i])
	}
	return p[0], p[1], true
}

// TestDelegationModeTheModelAppliesCredentials: with humanAuth.mode
// "delegate" the runtime types nothing on approval; the session gets
// delegation_result= and one delegation_template= per field, and the
// model types each value through its {{human_auth:…}} placeholder, which
// the runtime fills in. The run (stdin /dev/null, approved on the relay
// page) gets past the password, and the password is in no file of the home and
// in no request to the model.
func TestDelegationModeTheModelAppliesCredentials(t *testing.T) {
	phone := simtest.Start(t)
	srv := llmtest.NewServer(t)
	srv.ReplyTool("launch_app", map[string]any{"packageName": "com.openpocket.login"})
	srv.ReplyTool("request_human_auth", map[string]any{"capability": "oauth", "instruction": "Sign in to Login", "timeoutSec": 120,
		"uiTemplate": map[string]any{"artifactKind": "credentials", "fields": []any{
			map[string]any{"id": "username", "label": "User name", "type": "text", "required": true},
			map[string]any{"id": "password", "label": "Password", "type": "password", "required": true}}}})
	var mu sync.Mutex
	step := 0
	srv.Respond(func(r llmtest.Request) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		raw := string(r.Raw)
		m := placeholderKey.FindStringSubmatch(raw)
		if m == nil {
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "finish", Arguments: `{"message":"no delegation_template seen"}`}}}
		}
		id := m[1]
		tool := func(name string, args any) llmtest.Reply {
			b, _ := json.Marshal(args)
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: name, Arguments: string(b)}}}
		}
		step++
		switch step {
		case 1, 3:
			field := map[int]string{1: "username", 3: "password"}[step]
			x, y, ok := centerOf(raw, field)
			if !ok {
				return tool("finish", map[string]any{"message": "no " + field + " field on screen"})
			}
			return tool("tap", map[string]any{"x": x, "y": y})
		case 2:
			return tool("type_text", map[string]any{"text": "{{human_auth:" + id + "}}"})
		case 4:
			return tool("type_text", map[string]any{"text": "{{human_auth:password}}"})
		case 5:
			return tool("keyevent", map[string]any{"keycode": "KEYCODE_ENTER"})
		}
		return tool("finish", map[string]any{"message": "logged in"})
	})
	home := authHome(t, srv, func(c *workspace.Config) {
		c.Agent.ReturnHomeOnTaskEnd = false
		c.HumanAuth.Mode = "delegate"
	})
	run := startAgent(t, home, phone.Serial(), nil, "log in")
	ctx := browsertest.Browser(t, browsertest.Viewport{Width: 390, Height: 844, Mobile: true})
	_, url := run.link(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible("#f_password"),
		chromedp.SendKeys("#f_username", "alice"), chromedp.SendKeys("#f_password", "hunter2"),
		chromedp.Click("#approve"), chromedp.WaitVisible("#message")))

	assert.Equal(t, 0, exitCode(t, run.cmd, run.stdout), run.errText())
	s := sessionText(t, home)
	// The password was right: the Login app asks for the second factor.
	assert.Equal(t, "com.openpocket.login/.OtpActivity", phone.Phone().CurrentActivity(), "the model's placeholders were filled in\n%s", s)
	assert.Contains(t, s, "delegation_result=stored, not applied (humanAuth.mode=delegate)")
	assert.Contains(t, s, "delegation_template=tap each field, then type_text its value: username {{human_auth:username}}, password (secret) {{human_auth:password}}")
	assert.Contains(t, s, `"text": "{{human_auth:password}}"`, "the session keeps the placeholder the model wrote")
	assert.NotContains(t, s, "typed password (secret)", "the runtime applied nothing itself")
	for _, r := range srv.Requests() {
		assert.NotContains(t, string(r.Raw), "hunter2", "the model never reads the password")
	}
	for path, text := range filesUnder(t, home) {
		assert.NotContains(t, text, "hunter2", path)
	}
	assert.False(t, strings.Contains(run.errText(), "hunter2"))
}
