package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
)

// fakeRunner answers from fields; unset ones fail or panic as a test asks.
type fakeRunner struct {
	skills  func() (any, error)
	runLua  func(ctx context.Context, device string, src []byte, args []string, timeout time.Duration) (string, error)
	devices any
}

func (f *fakeRunner) Devices(ctx context.Context) (any, error) { return f.devices, nil }
func (f *fakeRunner) Phone(ctx context.Context, serial string) (*device.Phone, func(), error) {
	return nil, nil, errors.New("no device configured")
}
func (f *fakeRunner) RunLua(ctx context.Context, device, chunk string, src []byte, args []string, timeout time.Duration) (string, error) {
	return f.runLua(ctx, device, src, args, timeout)
}
func (f *fakeRunner) Play(ctx context.Context, device, file string, yaml []byte, params map[string]string, timeout time.Duration, onStep func(done int, label string)) (any, error) {
	return map[string]any{"status": "failed", "error": "step 2: not visible"}, nil
}
func (f *fakeRunner) Skills(ctx context.Context) (any, error) { return f.skills() }
func (f *fakeRunner) RunSkill(ctx context.Context, device, name string, params map[string]string) (engine.RunResult, error) {
	return engine.RunResult{}, errors.New("no skill " + name)
}
func (f *fakeRunner) Agent(ctx context.Context, a AgentCall) (engine.RunResult, error) {
	return engine.RunResult{}, errors.New("model profile \"x\" is not in config.json")
}
func (f *fakeRunner) SessionsList(ctx context.Context, limit int) (any, error) { return []any{}, nil }
func (f *fakeRunner) SessionGet(ctx context.Context, id string) (string, error) {
	return "", errors.New("no session")
}

var _ Runner = (*fakeRunner)(nil)

func connect(t *testing.T, r Runner) (context.Context, *sdk.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	st, ct := sdk.NewInMemoryTransports()
	ss, err := New(r, Options{}).SDK().Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return ctx, cs
}

func resultText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestToolSchemasComeFromTheActionTable(t *testing.T) {
	ctx, cs := connect(t, &fakeRunner{})
	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	byName := map[string]map[string]any{}
	for _, tool := range tools.Tools {
		data, _ := json.Marshal(tool.InputSchema)
		var m map[string]any
		require.NoError(t, json.Unmarshal(data, &m))
		byName[tool.Name] = m
		assert.Equal(t, "object", m["type"], tool.Name)
	}
	// type_text and launch_app: the spec's own parameters plus device.
	for tool, spec := range map[string]string{"type_text": "type", "launch_app": "launch_app"} {
		s, ok := action.Lookup(spec)
		require.True(t, ok)
		props := byName[tool]["properties"].(map[string]any)
		for _, p := range s.Params {
			assert.Contains(t, props, p.Name, tool)
		}
		assert.Len(t, props, len(s.Params)+1, tool)
		assert.Contains(t, props, "device")
	}
	// act: one branch per device action (and wait), none for the rest.
	branches := byName["act"]["properties"].(map[string]any)["action"].(map[string]any)["oneOf"].([]any)
	var types []string
	for _, b := range branches {
		types = append(types, b.(map[string]any)["properties"].(map[string]any)["type"].(map[string]any)["const"].(string))
	}
	var want []string
	for _, s := range action.Specs() {
		if s.Category == action.CategoryDevice || s.Name == "wait" {
			want = append(want, s.Name)
		}
	}
	assert.ElementsMatch(t, want, types)
	assert.NotContains(t, types, "finish")
	assert.NotContains(t, types, "run_script")
}

func TestFailuresAreToolErrors(t *testing.T) {
	r := &fakeRunner{
		skills: func() (any, error) { panic("nil map") },
		runLua: func(ctx context.Context, device string, src []byte, args []string, timeout time.Duration) (string, error) {
			return "partial\n", errors.New("mcp.lua:3: attempt to index a nil value")
		},
	}
	ctx, cs := connect(t, r)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"skills_list", nil, "internal error: nil map"},
		{"run_lua", map[string]any{"code": "x.y = 1"}, "partial\n\nerror: mcp.lua:3: attempt to index a nil value"},
		{"run_lua", map[string]any{"code": " "}, `"code" is required`},
		{"run_lua", map[string]any{"code": "x", "timeout_ms": -1}, "timeout_ms must be positive"},
		{"snapshot", nil, "no device configured"},
		{"act", map[string]any{"action": map[string]any{"type": "finish", "message": "x"}}, `unknown action type "finish"`},
		{"act", map[string]any{"action": map[string]any{"type": "tap", "x": 1}}, `missing required parameter "y"`},
		{"act", map[string]any{}, `"action" is required`},
		{"play", map[string]any{}, `exactly one of "file"`},
		{"play", map[string]any{"yaml": "name: x"}, "not visible"},
		{"skill_run", map[string]any{"name": "nope"}, "no skill nope"},
		{"agent_run", map[string]any{"task": "x"}, "model profile"},
		{"tap", map[string]any{"selector": ""}, "selector string is empty"},
		{"wait_for", map[string]any{"selector": map[string]any{"id": "x"}, "timeout_ms": -5}, "must not be negative"},
		{"type_text", map[string]any{"text": 5}, `"text"`},
		{"devices", map[string]any{"all": true}, `unknown argument "all"`},
	} {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
		require.NoError(t, err, c.tool)
		assert.True(t, res.IsError, "%s %v: %s", c.tool, c.args, resultText(res))
		assert.Contains(t, resultText(res), c.want, c.tool)
	}
}

func TestSelectorToolsRunTheUIModule(t *testing.T) {
	var got []string
	r := &fakeRunner{runLua: func(ctx context.Context, device string, src []byte, args []string, timeout time.Duration) (string, error) {
		got = append([]string{device}, args...)
		assert.Contains(t, string(src), `ui[arg[1]](sel, opts)`)
		return "log line\n" + resultMark + `{"text":"Wi-Fi","checked":true}` + "\n", nil
	}}
	ctx, cs := connect(t, r)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "wait_for", Arguments: map[string]any{
		"device": "emulator-5554", "selector": map[string]any{"text": "Wi-Fi", "below": "Network"}, "timeout_ms": 1500}})
	require.NoError(t, err)
	require.False(t, res.IsError, resultText(res))
	assert.Equal(t, []string{"emulator-5554", "wait", `{"below":"Network","text":"Wi-Fi"}`, "1500"}, got)
	assert.JSONEq(t, `{"element": {"text": "Wi-Fi", "checked": true}}`, resultText(res))
}

func TestCheckBind(t *testing.T) {
	assert.NoError(t, checkBind("127.0.0.1:8765", ""))
	assert.NoError(t, checkBind("localhost:8765", ""))
	assert.NoError(t, checkBind("[::1]:8765", ""))
	assert.NoError(t, checkBind("0.0.0.0:8765", "s3cret"))
	err := checkBind("0.0.0.0:8765", "")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--token")
	err = checkBind(":8765", "")
	require.Error(t, err, "an empty host listens on every interface")
	assert.Error(t, checkBind("8765", ""))
}

// TestStreamableHTTPWithToken serves over HTTP: a client with the bearer
// token lists the tools; one without is refused.
func TestStreamableHTTPWithToken(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrs := make(chan string, 1)
	served := make(chan error, 1)
	go func() {
		served <- Serve(ctx, &fakeRunner{}, nil, nil, Options{HTTP: "127.0.0.1:0", Token: "s3cret", OnListen: func(a string) { addrs <- a }})
	}()
	var addr string
	select {
	case addr = <-addrs:
	case err := <-served:
		t.Fatalf("serve: %v", err)
	}
	url := "http://" + addr + "/"

	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	httpClient := &http.Client{Transport: bearer{"s3cret"}}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: httpClient}, nil)
	require.NoError(t, err)
	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	assert.NotEmpty(t, tools.Tools)
	cs.Close()

	cancel()
	select {
	case err := <-served:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the HTTP server did not stop with its context")
	}
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}
