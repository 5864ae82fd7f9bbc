package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/internal/workspace"
	"github.com/openpocket/openpocket/stdlib/agent"
)

// agentApp is an App over a fresh home whose default model profile "fake"
// points at a fake OpenAI server, driving a virtual phone.
func agentApp(t *testing.T) (*App, *llmtest.Server, *bytes.Buffer) {
	t.Helper()
	app, srv, out, _ := agentAppWithSim(t)
	return app, srv, out
}

// agentAppWithSim is agentApp that also returns the virtual phone.
func agentAppWithSim(t *testing.T) (*App, *llmtest.Server, *bytes.Buffer, *sim.Sim) {
	t.Helper()
	t.Setenv(workspace.EnvHome, "")
	t.Setenv("OPENAI_API_KEY", "")
	s := simtest.Start(t)
	srv := llmtest.NewServer(t)
	home := filepath.Join(t.TempDir(), "home")
	h, err := workspace.Open(home)
	require.NoError(t, err)
	cfg := h.Config()
	cfg.Models = map[string]workspace.ModelProfile{
		"fake":  {BaseURL: srv.BaseURL(), Model: "gpt-fake"},
		"other": {BaseURL: srv.BaseURL(), Model: "gpt-other", APIKey: "sk-secret-value"},
	}
	cfg.DefaultModel = "fake"
	cfg.Agent.LoopDelayMs = 0
	cfg.Agent.ReturnHomeOnTaskEnd = false
	require.NoError(t, h.SaveConfig(cfg))
	var out, errOut bytes.Buffer
	app := &App{sys: testSystem{}, Globals: Globals{Home: home, Device: s.Serial(), ADBServer: "127.0.0.1:5037"}, Stdout: &out, Stderr: &errOut, Ctx: context.Background()}
	t.Cleanup(app.runCleanups)
	return app, srv, &out, s
}

func TestAgentCmdJSON(t *testing.T) {
	app, srv, out := agentApp(t)
	srv.ReplyTool("launch_app", map[string]any{"packageName": "com.android.settings"})
	srv.ReplyTool("finish", map[string]any{"message": "Settings is open"})
	require.NoError(t, (&AgentCmd{Task: "open settings", JSON: true}).Run(deps(t, app)))

	var got agentResult
	require.NoError(t, json.Unmarshal(out.Bytes(), &got), out.String())
	assert.Equal(t, "SUCCESS", got.Status)
	assert.Equal(t, "Settings is open", got.Message)
	assert.Equal(t, 2, got.Steps)
	assert.Equal(t, int64(240), got.Tokens.TotalTokens)
	assert.FileExists(t, got.SessionPath)
	tr, err := agent.ReadTrace(agent.TracePath(got.SessionPath))
	require.NoError(t, err)
	assert.Len(t, tr, 2)
	assert.Len(t, srv.Requests(), 2)
}

func TestAgentCmdFailedPlain(t *testing.T) {
	app, srv, out := agentApp(t)
	srv.ReplyTool("wait", map[string]any{"durationMs": 100})
	err := (&AgentCmd{Task: "never done", MaxSteps: 1}).Run(deps(t, app))
	require.Error(t, err)
	assert.Equal(t, ExitFailed, ExitCode(err))
	assert.True(t, isReported(err))
	s := out.String()
	assert.Contains(t, s, "step 1/1 action=wait(100ms) model_ms=")
	assert.Contains(t, s, `result="Waited 100 ms"`)
	assert.Contains(t, s, "FAILED: max steps (1) reached\nsession: "+filepath.Join(app.Home, "workspace", "sessions", "session-"))
}

func TestAgentCmdBadInput(t *testing.T) {
	app, _, _ := agentApp(t)
	err := (&AgentCmd{Task: "x", Model: "missing"}).Run(deps(t, app))
	assert.Equal(t, ExitUsage, ExitCode(err))
	assert.Contains(t, err.Error(), `model profile "missing" is not in`)
	err = (&AgentCmd{Task: "  "}).Run(deps(t, app))
	assert.Equal(t, ExitUsage, ExitCode(err))
}

func TestRunAgentForScheduler(t *testing.T) {
	app, srv, out := agentApp(t)
	srv.ReplyTool("finish", map[string]any{"message": "done"})
	res, err := app.runAgent(context.Background(), "cron task", agentRunOptions{Model: "other"})
	require.NoError(t, err)
	assert.True(t, res.Success)
	assert.Equal(t, 1, res.Steps)
	assert.Empty(t, out.String(), "no output without a progress callback")
	assert.Equal(t, "gpt-other", srv.Requests()[0].Body["model"])
}

func TestAgentProgressLines(t *testing.T) {
	var b bytes.Buffer
	p := newAgentProgress(&b, true)
	p.event(engineEvent("agent_step", map[string]any{"step": 2.0, "max_steps": 10.0, "action": "tap_element(6)", "result": "Tapped element 6\nstate_delta changed=true", "model_ms": 1234.0}))
	p.event(engineEvent("other", nil))
	assert.Equal(t, "\x1b[1mstep 2/10\x1b[0m  tap_element(6)                   Tapped element 6 \x1b[2m(model 1.2s)\x1b[0m\n", b.String())
}

// TestAgentModelGrammar checks the commands' kong tags with the lines the
// lead adds to CLI.
func TestAgentModelGrammar(t *testing.T) {
	var g struct {
		Globals
		Agent AgentCmd `cmd:"" help:"Run a task with a model: it looks at the screen and picks one action per step."`
		Model ModelCmd `cmd:"" help:"List, show and choose model profiles."`
	}
	p, err := kong.New(&g, kong.Exit(func(int) {}))
	require.NoError(t, err)
	k, err := p.Parse([]string{"agent", "--model", "other", "--max-steps", "7", "--json", "Turn Wi-Fi off"})
	require.NoError(t, err)
	assert.Equal(t, "agent <task>", k.Command())
	assert.Equal(t, AgentCmd{Task: "Turn Wi-Fi off", Model: "other", MaxSteps: 7, JSON: true}, g.Agent)
	k, err = p.Parse([]string{"model", "set", "other"})
	require.NoError(t, err)
	assert.Equal(t, "model set <profile>", k.Command())
	k, err = p.Parse([]string{"model", "show"})
	require.NoError(t, err)
	assert.Equal(t, "model show", k.Command())
	_, err = p.Parse([]string{"model", "list"})
	require.NoError(t, err)
}
