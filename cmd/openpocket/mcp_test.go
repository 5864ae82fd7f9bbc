package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/cli"
	"github.com/openpocket/openpocket/internal/humanauth"
	"github.com/openpocket/openpocket/internal/lease"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/mcp"
	"github.com/openpocket/openpocket/internal/mcp/backend"
	"github.com/openpocket/openpocket/internal/relay"
	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/internal/wire"
)

// withMCPClient runs `openpocket --home H -s SERIAL mcp` through the CLI,
// with the server bound to an in-process transport and the SDK's client
// connected to it; scenario runs while the command serves.
func withMCPClient(t testing.TB, home, serial string, copts *sdk.ClientOptions, scenario func(ctx context.Context, cs *sdk.ClientSession)) {
	t.Helper()
	withMCPBackend(t, home, serial, copts, func(ctx context.Context, cs *sdk.ClientSession, _ *backend.Backend) { scenario(ctx, cs) })
}

// withMCPBackend is withMCPClient with the server's backend too.
func withMCPBackend(t testing.TB, home, serial string, copts *sdk.ClientOptions, scenario func(ctx context.Context, cs *sdk.ClientSession, b *backend.Backend)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	serve := func(ctx context.Context, b *backend.Backend, o cli.MCPServeOptions) error {
		server := mcp.New(b, mcp.Options{Version: o.Version})
		st, ct := sdk.NewInMemoryTransports()
		ss, err := server.SDK().Connect(ctx, st, nil)
		if err != nil {
			return err
		}
		defer ss.Close()
		client := sdk.NewClient(&sdk.Implementation{Name: "openpocket-test", Version: "1"}, copts)
		cs, err := client.Connect(ctx, ct, nil)
		if err != nil {
			return err
		}
		defer cs.Close()
		scenario(ctx, cs, b)
		return nil
	}
	var stdout, stderr strings.Builder
	code := cli.MainWith(ctx, []string{"--home", home, "-s", serial, "mcp"}, &stdout, &stderr, mcpInProcess{Assembly: wire.New(), serve: serve})
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
}

// call calls a tool and returns its result, failing on a protocol error.
func call(t *testing.T, ctx context.Context, cs *sdk.ClientSession, name string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err, "tools/call %s", name)
	t.Logf("%s %v -> error=%t %.300s", name, args, res.IsError, text(res))
	return res
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// homeKey carries the test's home to the subtests' helpers.
type homeKey struct{}

func mcpHome(ctx context.Context) string { return ctx.Value(homeKey{}).(string) }

func TestMCPToolsOnVirtualPhone(t *testing.T) {
	phone := simtest.Start(t)
	home := t.TempDir()
	withMCPClient(t, home, phone.Serial(), nil, func(ctx context.Context, cs *sdk.ClientSession) {
		ctx = context.WithValue(ctx, homeKey{}, home)
		t.Run("list tools", func(t *testing.T) { mcpListTools(t, ctx, cs, phone) })
		t.Run("devices", func(t *testing.T) { mcpDevices(t, ctx, cs, phone) })
		t.Run("snapshot", func(t *testing.T) { mcpSnapshot(t, ctx, cs, phone) })
		t.Run("tap the Wi-Fi switch by selector", func(t *testing.T) { mcpTapTheWiFiSwitchBySelector(t, ctx, cs, phone) })
		t.Run("act tap_element by mark id", func(t *testing.T) { mcpActTapElementByMarkId(t, ctx, cs, phone) })
		t.Run("run inline Lua", func(t *testing.T) { mcpRunInlineLua(t, ctx, cs, phone) })
		t.Run("play an example playbook", func(t *testing.T) { mcpPlayAnExamplePlaybook(t, ctx, cs, phone) })
		t.Run("replay a skill", func(t *testing.T) { mcpReplayASkill(t, ctx, cs, phone) })
		t.Run("cancel a long wait_for", func(t *testing.T) { mcpCancelALongWaitFor(t, ctx, cs, phone) })
		t.Run("bad arguments are tool errors", func(t *testing.T) { mcpBadArgumentsAreToolErrors(t, ctx, cs, phone) })
		t.Run("resources", func(t *testing.T) { mcpResources(t, ctx, cs, phone) })
	})
}

func mcpListTools(t *testing.T, ctx context.Context, cs *sdk.ClientSession, phone *sim.Sim) {
	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	var names []string
	byName := map[string]*sdk.Tool{}
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		byName[tool.Name] = tool
	}
	for _, want := range []string{"devices", "snapshot", "act", "find", "wait_for", "tap", "type_text", "launch_app",
		"run_lua", "play", "skills_list", "skill_run", "agent_run", "sessions_list", "session_get"} {
		assert.Contains(t, names, want)
	}
	// type_text's parameters come from the action table's "type" spec.
	schema, _ := json.Marshal(byName["type_text"].InputSchema)
	assert.Contains(t, string(schema), `"text"`)
	assert.Contains(t, string(schema), `"device"`)
	act, _ := json.Marshal(byName["act"].InputSchema)
	assert.Contains(t, string(act), `"tap_element"`)
	assert.Contains(t, string(act), `"elementId"`)
}

func mcpDevices(t *testing.T, ctx context.Context, cs *sdk.ClientSession, phone *sim.Sim) {
	res := call(t, ctx, cs, "devices", nil)
	require.False(t, res.IsError, text(res))
	assert.Contains(t, text(res), phone.Serial())
}

func mcpSnapshot(t *testing.T, ctx context.Context, cs *sdk.ClientSession, phone *sim.Sim) {
	res := call(t, ctx, cs, "launch_app", map[string]any{"packageName": "com.android.settings"})
	require.False(t, res.IsError, text(res))
	res = call(t, ctx, cs, "snapshot", map[string]any{"som": true})
	require.False(t, res.IsError, text(res))
	assert.Contains(t, text(res), "current app com.android.settings")
	assert.Regexp(t, `mark 1: label=".*" clickable=`, text(res))
	var img *sdk.ImageContent
	for _, c := range res.Content {
		if ic, ok := c.(*sdk.ImageContent); ok {
			img = ic
		}
	}
	require.NotNil(t, img, "snapshot has image content")
	// The image the agent's model gets: JPEG unless the profile asks for
	// PNG; the MIME type names the bytes.
	assert.Equal(t, screen.SniffImageMIME(img.Data), img.MIMEType)
	assert.Contains(t, []string{"image/jpeg", "image/png"}, img.MIMEType)
	// What the client's model is shown, kept with the test's artifacts.
	ext := strings.TrimPrefix(img.MIMEType, "image/")
	require.NoError(t, os.WriteFile(filepath.Join(t.ArtifactDir(), "snapshot-som."+ext), img.Data, 0o644))
}

func mcpTapTheWiFiSwitchBySelector(t *testing.T, ctx context.Context, cs *sdk.ClientSession, phone *sim.Sim) {
	before := phone.Phone().WifiOn()
	res := call(t, ctx, cs, "tap", map[string]any{"selector": map[string]any{"id": "wifi_switch"}})
	require.False(t, res.IsError, text(res))
	assert.Contains(t, text(res), "wifi_switch")
	assert.Eventually(t, func() bool { return phone.Phone().WifiOn() != before }, 5*time.Second, 50*time.Millisecond)
	res = call(t, ctx, cs, "find", map[string]any{"selector": map[string]any{"id": "wifi_switch", "checked": !before}, "timeout_ms": 3000})
	require.False(t, res.IsError, text(res))
}

func mcpActTapElementByMarkId(t *testing.T, ctx context.Context, cs *sdk.ClientSession, phone *sim.Sim) {
	res := call(t, ctx, cs, "snapshot", nil)
	require.False(t, res.IsError, text(res))
	id := markOf(t, text(res), "Wi-Fi")
	before := phone.Phone().WifiOn()
	res = call(t, ctx, cs, "act", map[string]any{"action": map[string]any{"type": "tap_element", "elementId": id}})
	require.False(t, res.IsError, text(res))
	assert.Contains(t, text(res), "state_delta")
	assert.Eventually(t, func() bool { return phone.Phone().WifiOn() != before }, 5*time.Second, 50*time.Millisecond)
}

func mcpRunInlineLua(t *testing.T, ctx context.Context, cs *sdk.ClientSession, phone *sim.Sim) {
	res := call(t, ctx, cs, "run_lua", map[string]any{"code": `print("app=" .. app.current()); print(arg[1])`, "args": []string{"hello"}})
	require.False(t, res.IsError, text(res))
	assert.Contains(t, text(res), "app=com.android.settings")
	assert.Contains(t, text(res), "hello")
	res = call(t, ctx, cs, "run_lua", map[string]any{"code": "error('boom')"})
	assert.True(t, res.IsError)
	assert.Contains(t, text(res), "boom")
}

func mcpPlayAnExamplePlaybook(t *testing.T, ctx context.Context, cs *sdk.ClientSession, phone *sim.Sim) {
	// play reads files in the workspace only: copy the example there and
	// name it relative to the workspace.
	src, err := os.ReadFile("../../examples/wifi_toggle.yaml")
	require.NoError(t, err)
	ws := filepath.Join(mcpHome(ctx), "workspace")
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "flows"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "flows", "wifi_toggle.yaml"), src, 0o644))
	res := call(t, ctx, cs, "play", map[string]any{"file": "flows/wifi_toggle.yaml"})
	require.False(t, res.IsError, text(res))
	var report struct {
		Status    string `json:"status"`
		OutputDir string `json:"outputDir"`
		Steps     []struct {
			Status string `json:"status"`
		} `json:"steps"`
	}
	require.NoError(t, json.Unmarshal([]byte(text(res)), &report))
	assert.Equal(t, "passed", report.Status)
	assert.NotEmpty(t, report.Steps)
	assert.FileExists(t, filepath.Join(report.OutputDir, "steps.json"))

	inline := "name: inline check\nsteps:\n  - launch: com.android.settings\n  - assert_visible: {id: wifi_switch}\n  - assert_visible: {text: No such row}\n"
	res = call(t, ctx, cs, "play", map[string]any{"yaml": inline, "timeout_ms": 20000})
	assert.True(t, res.IsError, "a failing playbook is a failed call")
	assert.Contains(t, text(res), `"status": "failed"`)
}

func mcpReplayASkill(t *testing.T, ctx context.Context, cs *sdk.ClientSession, phone *sim.Sim) {
	res := call(t, ctx, cs, "skills_list", nil)
	require.False(t, res.IsError, text(res))
	assert.Contains(t, text(res), "toggle-wifi")
	res = call(t, ctx, cs, "skill_run", map[string]any{"name": "toggle-wifi", "params": map[string]string{"state": "off"}})
	require.False(t, res.IsError, text(res))
	assert.False(t, phone.Phone().WifiOn())
	res = call(t, ctx, cs, "skill_run", map[string]any{"name": "toggle-wifi", "params": map[string]string{"state": "on"}})
	require.False(t, res.IsError, text(res))
	assert.True(t, phone.Phone().WifiOn())
}

func mcpCancelALongWaitFor(t *testing.T, ctx context.Context, cs *sdk.ClientSession, phone *sim.Sim) {
	callCtx, cancelCall := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(callCtx, &sdk.CallToolParams{Name: "wait_for",
			Arguments: map[string]any{"selector": map[string]any{"text": "Never shown"}, "timeout_ms": 120000}})
		done <- err
	}()
	time.Sleep(700 * time.Millisecond)
	cancelCall()
	select {
	case err := <-done:
		require.Error(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("wait_for did not return after the client cancelled it")
	}
	// The server-side call ended too: the device is free for the
	// next call (calls on one device queue behind each other).
	next, cancelNext := context.WithTimeout(ctx, 30*time.Second)
	defer cancelNext()
	res, err := cs.CallTool(next, &sdk.CallToolParams{Name: "find", Arguments: map[string]any{"selector": map[string]any{"id": "wifi_switch"}}})
	require.NoError(t, err)
	require.False(t, res.IsError, text(res))
}

func mcpBadArgumentsAreToolErrors(t *testing.T, ctx context.Context, cs *sdk.ClientSession, phone *sim.Sim) {
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"no_such_tool", nil, `unknown tool "no_such_tool"`},
		{"tap", map[string]any{"selector": 42}, "selector"},
		{"run_lua", map[string]any{"code": 7}, `"code"`},
		{"act", map[string]any{"action": map[string]any{"type": "tap", "x": "left", "y": 3}}, "x"},
		{"act", map[string]any{"action": map[string]any{"type": "fly"}}, `unknown action type "fly"`},
		{"find", map[string]any{"selector": map[string]any{"text": "Nothing like this"}, "timeout_ms": 300}, "not found"},
		{"snapshot", map[string]any{"colour": true}, "colour"},
		{"session_get", map[string]any{"id": "../../etc/passwd"}, "expected an id"},
	} {
		res := call(t, ctx, cs, c.tool, c.args)
		assert.True(t, res.IsError, "%s %v: %s", c.tool, c.args, text(res))
		assert.Contains(t, text(res), c.want, c.tool)
	}
	// Still serving.
	res := call(t, ctx, cs, "devices", nil)
	assert.False(t, res.IsError, text(res))
}

func mcpResources(t *testing.T, ctx context.Context, cs *sdk.ClientSession, phone *sim.Sim) {
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "openpocket://docs/lua-api.md"})
	require.NoError(t, err)
	require.Len(t, res.Contents, 1)
	assert.Contains(t, res.Contents[0].Text, "ui.find")
	_, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "openpocket://sessions/recent"})
	require.NoError(t, err)
}

// markOf finds the mark id of the element line whose label contains label
// and that is checkable (the switch of that row, or the row itself).
func markOf(t *testing.T, block, label string) string {
	t.Helper()
	for _, line := range strings.Split(block, "\n") {
		if strings.HasPrefix(line, "mark ") && strings.Contains(line, label) && strings.Contains(line, "checked") {
			return strings.TrimPrefix(strings.SplitN(line, ":", 2)[0], "mark ")
		}
	}
	t.Fatalf("no checkable element labelled %q in:\n%s", label, block)
	return ""
}

// TestMCPAgentRun hands tasks to OpenPocket's agent (the real model
// client against the fake OpenAI server): progress arrives as MCP progress
// notifications, the session is listed and readable, and a client's
// cancellation stops a run and finalizes its session.
func TestMCPAgentRun(t *testing.T) {
	phone := simtest.Start(t)
	srv := llmtest.NewServer(t)
	home := homeWithModel(t, srv)
	var mu sync.Mutex
	var progress []string
	copts := &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
		mu.Lock()
		defer mu.Unlock()
		progress = append(progress, req.Params.Message)
	}}
	withMCPClient(t, home, phone.Serial(), copts, func(ctx context.Context, cs *sdk.ClientSession) {
		srv.ReplyTool("launch_app", map[string]any{"packageName": "com.android.settings"})
		srv.ReplyTool("finish", map[string]any{"message": "Settings is open"})
		params := &sdk.CallToolParams{Name: "agent_run", Arguments: map[string]any{"task": "open settings", "max_steps": 5}}
		params.SetProgressToken("run-1")
		res, err := cs.CallTool(ctx, params)
		require.NoError(t, err)
		require.False(t, res.IsError, text(res))
		assert.Contains(t, text(res), `"status": "SUCCESS"`)
		assert.Contains(t, text(res), "Settings is open")
		mu.Lock()
		assert.Contains(t, strings.Join(progress, "\n"), "step 1/5: ")
		mu.Unlock()

		res = call(t, ctx, cs, "sessions_list", nil)
		require.False(t, res.IsError, text(res))
		assert.Contains(t, text(res), "open settings")
		res = call(t, ctx, cs, "session_get", map[string]any{"id": "latest"})
		require.False(t, res.IsError, text(res))
		assert.Contains(t, text(res), "open settings")

		cancelAgentRun(t, ctx, cs, srv, &mu, &progress)
	})
}

// cancelAgentRun starts a long agent run, cancels it from the client once
// its first step shows, and checks the session was finalized.
func cancelAgentRun(t *testing.T, ctx context.Context, cs *sdk.ClientSession, srv *llmtest.Server, mu *sync.Mutex, progress *[]string) {
	// A long run, cancelled by the client once its first step shows,
	// while the second waits.
	srv.ReplyTool("launch_app", map[string]any{"packageName": "com.android.settings"})
	srv.ReplyTool("wait", map[string]any{"durationMs": 60000})
	mu.Lock()
	*progress = nil
	mu.Unlock()
	runCtx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	done := make(chan error, 1)
	go func() {
		p := &sdk.CallToolParams{Name: "agent_run", Arguments: map[string]any{"task": "wait a minute"}}
		p.SetProgressToken("run-2")
		_, err := cs.CallTool(runCtx, p)
		done <- err
	}()
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(*progress) > 0
	}, 30*time.Second, 20*time.Millisecond, "first step of the long run")
	cancelRun()
	select {
	case err := <-done:
		require.Error(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("agent_run did not return after the client cancelled it")
	}
	// By id: two sessions started in the same second share a
	// timestamp, so "latest" is not the one to ask for.
	var session string
	require.Eventually(t, func() bool {
		var list struct {
			Sessions []struct{ ID, Task, Status string }
		}
		require.NoError(t, json.Unmarshal([]byte(text(call(t, ctx, cs, "sessions_list", nil))), &list))
		for _, s := range list.Sessions {
			if s.Task == "wait a minute" && s.Status != "running" {
				session = text(call(t, ctx, cs, "session_get", map[string]any{"id": s.ID}))
				return true
			}
		}
		return false
	}, 30*time.Second, 100*time.Millisecond, "the cancelled run's session is finalized")
	assert.Contains(t, session, "## Final\n\n- status: FAILED")
	assert.Contains(t, session, "cancelled")
}

// TestMCPHonoursDeviceLeases: a device another process drives is refused
// with the CLI's message, and an unknown device argument names the serial.
func TestMCPHonoursDeviceLeases(t *testing.T) {
	phone := simtest.Start(t)
	withMCPClient(t, t.TempDir(), phone.Serial(), nil, func(ctx context.Context, cs *sdk.ClientSession) {
		held, err := lease.Acquire(ctx, phone.Serial(), lease.Options{Command: "openpocket agent"})
		require.NoError(t, err)
		res := call(t, ctx, cs, "snapshot", nil)
		assert.True(t, res.IsError)
		assert.Contains(t, text(res), "in use by")
		assert.Contains(t, text(res), "openpocket agent")
		held.Release()
		res = call(t, ctx, cs, "snapshot", nil)
		assert.False(t, res.IsError, text(res))

		res = call(t, ctx, cs, "snapshot", map[string]any{"device": "no-such-serial"})
		assert.True(t, res.IsError)
		assert.Contains(t, text(res), "no-such-serial")
	})
}

// TestMCPPlayProgress: a play call with a progress token gets one MCP
// progress notification per top-level step as it ends, counting up and
// naming the step; a call without a token gets none.
func TestMCPPlayProgress(t *testing.T) {
	phone := simtest.Start(t)
	var mu sync.Mutex
	var got []*sdk.ProgressNotificationParams
	copts := &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, req.Params)
	}}
	withMCPClient(t, t.TempDir(), phone.Serial(), copts, func(ctx context.Context, cs *sdk.ClientSession) {
		inline := "name: progress\nsteps:\n  - launch: com.android.settings\n  - assert_visible: {id: wifi_switch}\n  - back\n"
		params := &sdk.CallToolParams{Name: "play", Arguments: map[string]any{"yaml": inline}}
		params.SetProgressToken("play-1")
		res, err := cs.CallTool(ctx, params)
		require.NoError(t, err)
		require.False(t, res.IsError, text(res))
		require.Eventually(t, func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(got) == 3
		}, 10*time.Second, 10*time.Millisecond, "one notification per step")
		mu.Lock()
		for i, p := range got {
			assert.Equal(t, "play-1", p.ProgressToken)
			assert.Equal(t, float64(i+1), p.Progress, "progress counts the steps")
			assert.True(t, strings.HasPrefix(p.Message, fmt.Sprintf("step %d: ", i+1)), p.Message)
		}
		assert.Contains(t, got[0].Message, "com.android.settings")
		got = nil
		mu.Unlock()

		res = call(t, ctx, cs, "play", map[string]any{"yaml": inline})
		require.False(t, res.IsError, text(res))
		mu.Lock()
		assert.Empty(t, got, "no token, no notifications")
		mu.Unlock()
	})
}

// mcpInProcess is the application of the in-process MCP tests: the real
// adapters and relay, and serve in place of the MCP server's transports.
// `openpocket mcp` reaches no other front end, so those stay unbound
// (a call would fail the test with a nil interface).
type mcpInProcess struct {
	wire.Assembly
	cli.GatewayServer
	cli.JobRunners
	cli.DashboardServer
	cli.ChannelStarter
	serve func(ctx context.Context, b *backend.Backend, o cli.MCPServeOptions) error
}

func (mcpInProcess) StartRelay(ctx context.Context, store *humanauth.Store, addr string, _ cli.RelayPhone) (string, func(), error) {
	return relay.Start(ctx, store, relay.Options{Addr: addr})
}

func (a mcpInProcess) ServeMCP(ctx context.Context, calls cli.MCPCalls, o cli.MCPServeOptions) error {
	// As the application's ServeMCP builds it.
	b := backend.New(backend.Env{Home: o.Home, Config: o.Config, Port: calls, ADBServer: o.ADBServer, Warn: o.Warn})
	defer b.Close()
	return a.serve(ctx, b, o)
}
