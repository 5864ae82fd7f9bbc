package cli

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/channel"
	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/gateway"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/workspace"
)

// wifiJob runs a scheduled agent_turn job "turn off wi-fi" with the job
// runner cmd/openpocket binds for the gateway and `cron run`.
func wifiJob(t *testing.T, app *App) (bool, string) {
	t.Helper()
	svc, err := app.runService()
	require.NoError(t, err)
	ok, msg, err := gateway.NewJobRunner(gateway.JobRunnerOptions{Service: svc}).Run(context.Background(),
		cron.Job{ID: "wifi", Payload: cron.Payload{Kind: cron.PayloadAgentTurn, Task: "turn off wi-fi"}})
	require.NoError(t, err)
	return ok, msg
}

// TestScheduledAgentJobReplaysALearnedTask: a gateway/cron agent_turn job
// whose task a skill was learned for replays it with zero model calls, as
// `openpocket agent` does.
func TestScheduledAgentJobReplaysALearnedTask(t *testing.T) {
	app, srv, s, art := learnedWifiOff(t)
	ok, msg := wifiJob(t, app)
	assert.True(t, ok, msg)
	assert.Contains(t, msg, "Replayed the learned skill "+art.Name)
	assert.False(t, s.Phone().WifiOn(), "the replay turned Wi-Fi off")
	assert.Empty(t, srv.Requests(), "no model call")
}

// TestChatTaskReplaysALearnedTask: a chat channel's task (ChannelRunner,
// what the gateway hands Telegram) replays a learned skill without the
// model, and the chat's status message is told each replay step.
func TestChatTaskReplaysALearnedTask(t *testing.T) {
	app, srv, s, art := learnedWifiOff(t)
	svc, err := app.runService()
	require.NoError(t, err)
	cfg, err := app.config()
	require.NoError(t, err)
	r := &ChannelRunner{f: app.services(), home: home(t, app), auth: app.humanAuth(),
		current: func() (*run.Service, workspace.Config, func()) { return svc, cfg, func() {} }}
	var (
		kinds []string
		steps []engine.Event
	)
	res, err := r.RunTask(context.Background(), "Turn off Wi-Fi", "telegram:42", func(ev engine.Event) {
		kinds = append(kinds, ev.Kind)
		if ev.Kind == channel.ReplayStep {
			steps = append(steps, ev)
		}
	}, nil, nil)
	require.NoError(t, err)
	assert.True(t, res.Success, res.Message)
	assert.Contains(t, res.Message, "Replayed the learned skill "+art.Name)
	assert.False(t, s.Phone().WifiOn())
	assert.Empty(t, srv.Requests(), "no model call")
	assert.Contains(t, kinds, string(run.KindReplayFirst))
	// The chat's status message narrates the replay step by step.
	require.NotEmpty(t, steps, "replay steps are narrated: %v", kinds)
	for i, st := range steps {
		assert.Equal(t, i+1, st.Int("step"), "steps count up")
		assert.NotEmpty(t, st.Fields["action"], "each step has its label")
	}
}

// TestReplayFirstOffInConfigAsksTheModel: agent.replayFirst false in
// config.json turns replay-first off for scheduled jobs and `agent`.
func TestReplayFirstOffInConfigAsksTheModel(t *testing.T) {
	app, srv, _, s := agentAppWithSim(t)
	h, err := workspace.Open(app.Home) // before the app reads it
	require.NoError(t, err)
	cfg := h.Config()
	cfg.Agent.ReplayFirst = false
	require.NoError(t, h.SaveConfig(cfg))
	writeWifiOffSkill(t, h)

	srv.ReplyTool("finish", map[string]any{"message": "asked the model"})
	ok, msg := wifiJob(t, app)
	assert.True(t, ok, msg)
	assert.Equal(t, "asked the model", msg)
	assert.Len(t, srv.Requests(), 1)
	assert.True(t, s.Phone().WifiOn(), "nothing replayed")

	srv.ReplyTool("finish", map[string]any{"message": "asked again"})
	require.NoError(t, (&AgentCmd{Task: "turn off wi-fi"}).Run(deps(t, app)))
	assert.Len(t, srv.Requests(), 2, "`agent` follows agent.replayFirst too")
}
