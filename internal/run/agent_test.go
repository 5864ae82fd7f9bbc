package run_test

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/run"
)

// scriptedModel answers with the given actions in turn, recording requests.
type scriptedModel struct {
	mu      sync.Mutex
	actions []action.Action
	reqs    []engine.ModelRequest
}

func (m *scriptedModel) Decide(ctx context.Context, req engine.ModelRequest) (engine.ModelReply, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, req)
	a := m.actions[0]
	if len(m.actions) > 1 {
		m.actions = m.actions[1:]
	}
	return engine.ModelReply{Action: a, Mode: "chat"}, ctx.Err()
}

func (m *scriptedModel) Profile() (string, string) { return "scripted", "scripted-model" }

func TestAgentHumanAuthEventsAndModelImage(t *testing.T) {
	model := &scriptedModel{actions: []action.Action{
		{Type: "request_human_auth", Params: map[string]any{"capability": "2fa", "instruction": "Enter the code", "timeoutSec": 30}},
		{Type: "finish", Params: map[string]any{"message": "done"}},
	}}
	var profiles []string
	svc, _ := newService(t, run.Config{
		Model: func(profile string) (engine.Model, error) { return model, nil },
		ModelImage: func(profile string) (screen.ImageEncoding, bool) {
			profiles = append(profiles, profile)
			return screen.ImageEncoding{Format: screen.FormatPNG}, true
		},
	})
	var own recorder
	var asked []run.HumanAuthRequest
	res, err := svc.Agent(t.Context(), run.AgentOptions{Task: "log in", Model: "work", Events: own.add,
		HumanAuthFor: func(ctx context.Context, sess *engine.Session) (run.HumanAuthFunc, error) {
			require.NotNil(t, sess, "the hook gets the run's session")
			return func(ctx context.Context, req run.HumanAuthRequest) (run.HumanAuthDecision, error) {
				asked = append(asked, req)
				return run.HumanAuthDecision{Status: "approved", Message: "ok", Text: "123456"}, nil
			}, nil
		}})
	require.NoError(t, err)
	assert.True(t, res.Success, res.Message)
	assert.Equal(t, "done", res.Message)
	assert.NotEmpty(t, res.RunID)
	require.Len(t, asked, 1)
	assert.Equal(t, "2fa", asked[0].Capability)

	auth := own.of(run.KindHumanAuth)
	require.Len(t, auth, 2, "asked, then answered")
	assert.False(t, auth[0].HumanAuth.Answered)
	assert.Equal(t, "Enter the code", auth[0].HumanAuth.Instruction)
	assert.True(t, auth[1].HumanAuth.Answered)
	assert.Equal(t, "approved", auth[1].HumanAuth.Status)
	for _, ev := range own.events {
		assert.NotContains(t, fmt.Sprintf("%+v %+v %+v", ev.Fields, ev.HumanAuth, ev.AgentStep), "123456", "the typed answer never reaches an event")
	}
	steps := own.of(run.KindAgentStep)
	require.Len(t, steps, 2)
	assert.Equal(t, 1, steps[0].AgentStep.Step)
	prog := own.of(run.KindProgress)
	require.NotEmpty(t, prog)
	assert.Equal(t, steps[0].AgentStep.MaxSteps, prog[0].Progress.Total)

	assert.Equal(t, []string{"work"}, profiles, "the run's profile picks the screenshot encoding")
	require.NotEmpty(t, model.reqs)
	assert.True(t, bytes.HasPrefix(model.reqs[0].ImagePNG, []byte("\x89PNG")), "the model gets PNG screenshots as its profile asks")
	end := own.of(run.KindRunEnd)
	require.Len(t, end, 1)
	assert.True(t, end[0].End.Success)
	assert.Equal(t, run.RunAgent, end[0].Run.Kind)
}

func TestAgentWithoutModelIsAnErrorWithNothingRun(t *testing.T) {
	svc := run.New(run.Config{})
	res, err := svc.Agent(t.Context(), run.AgentOptions{Task: "x"})
	require.ErrorIs(t, err, engine.ErrNoModel)
	assert.Empty(t, res.SessionPath)
}
