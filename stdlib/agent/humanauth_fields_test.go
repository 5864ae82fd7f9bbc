package agent_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/internal/sim/android"
	"github.com/openpocket/openpocket/stdlib/agent"
)

// centerOf finds an element's center in the phone's UI dump.
func centerOf(t *testing.T, dump []byte, resID string) (int, int) {
	t.Helper()
	re := regexp.MustCompile(`resource-id="` + regexp.QuoteMeta(resID) + `"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"`)
	m := re.FindSubmatch(dump)
	require.NotNil(t, m, resID)
	n := make([]int, 4)
	for i := range n {
		n[i], _ = strconv.Atoi(string(m[i+1]))
	}
	return (n[0] + n[2]) / 2, (n[1] + n[3]) / 2
}

// TestCredentialsGoIntoTheirFieldsNeverToTheModel: the model focuses the
// user name field and asks for credentials; the approved password is
// typed only into the password field (not the focused one), the user name
// into the user name field, the login goes through, and the model is told
// the kind and the field names — never the values, which no file the run
// wrote holds either.
func TestCredentialsGoIntoTheirFieldsNeverToTheModel(t *testing.T) {
	r := newRig(t)
	const secret = android.LoginPassword
	n := 0
	var focusUser string
	m := &fakeModel{next: func(req engine.ModelRequest) (engine.ModelReply, error) {
		n++
		steps := []map[string]any{
			{"type": "launch_app", "packageName": android.PkgLogin},
			{"type": "shell", "command": focusUser},
			{"type": "request_human_auth", "capability": "oauth", "instruction": "Sign in to Login",
				"uiTemplate": map[string]any{"artifactKind": "credentials", "fields": []any{
					map[string]any{"id": "password", "label": "Password", "type": "password"},
					map[string]any{"id": "username", "label": "User", "type": "text"}}}},
			{"type": "keyevent", "keycode": "KEYCODE_ENTER"}, // user name (typed last) → password
			{"type": "keyevent", "keycode": "KEYCODE_ENTER"}, // submits
			{"type": "finish", "message": "signed in"},
		}
		if n == 2 {
			x, y := centerOf(t, r.sim.Phone().UIDumpXML(), android.PkgLogin+":id/username")
			focusUser = fmt.Sprintf("input tap %d %d", x, y)
			steps[1]["command"] = focusUser
		}
		a, _ := action.Normalize(steps[min(n-1, 5)], nil)
		return engine.ModelReply{Action: a}, nil
	}}
	auth := func(_ context.Context, req agent.HumanAuthRequest) (agent.HumanAuthDecision, error) {
		// As the relay answers a credentials form: the password first.
		return agent.HumanAuthDecision{Status: "approved", Message: "the user approved and credentials provided",
			Artifact: &agent.HumanAuthArtifact{Kind: "credentials", Path: "/state/human-auth-artifacts/x.json", MIME: "application/json"},
			Fields: []agent.HumanAuthField{
				{Key: "password", Label: "Password", Type: "password", Value: secret, Secret: true},
				{Key: "username", Label: "User", Type: "text", Value: "alice"}}}, nil
	}
	res, err := r.run(context.Background(), m, "sign in", agent.Options{MaxSteps: 8, HumanAuth: auth})
	require.NoError(t, err)
	assert.True(t, res.Success, res.Message)
	tr, err := agent.ReadTrace(agent.TracePath(res.SessionPath))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(tr), 3)
	told := tr[2].Result
	assert.Equal(t, android.PkgLogin+"/.OtpActivity", r.sim.Phone().CurrentActivity(), "user name and password went into their fields")

	require.GreaterOrEqual(t, len(m.calls), 4)
	assert.Contains(t, told, "human_artifact_kind=credentials fields=password (secret),username")
	assert.Contains(t, told, "typed password (secret) (7 characters) into password field "+android.PkgLogin+":id/password")
	assert.Contains(t, told, "typed username (5 characters) into text field "+android.PkgLogin+":id/username")
	for i, c := range m.calls {
		assert.NotContains(t, c.Text, secret, "model request %d", i)
	}
	assertNoSecret(t, r.home.Dir(), secret)
	for _, ev := range r.events {
		assert.NotContains(t, fmt.Sprint(ev.Fields), secret, ev.Kind)
	}
}

// A secret with no password field on screen is not typed at all.
func TestSecretWithoutPasswordFieldIsNotTyped(t *testing.T) {
	r := newRig(t)
	n := 0
	m := &fakeModel{next: func(req engine.ModelRequest) (engine.ModelReply, error) {
		n++
		steps := []map[string]any{
			{"type": "launch_app", "packageName": android.PkgNotes},
			{"type": "request_human_auth", "capability": "unknown", "instruction": "PIN please"},
			{"type": "finish", "message": "done"},
		}
		a, _ := action.Normalize(steps[min(n-1, 2)], nil)
		return engine.ModelReply{Action: a}, nil
	}}
	auth := func(context.Context, agent.HumanAuthRequest) (agent.HumanAuthDecision, error) {
		return agent.HumanAuthDecision{Status: "approved", Message: "the user approved",
			Fields: []agent.HumanAuthField{{Key: "pin", Type: "password", Value: "8642", Secret: true}}}, nil
	}
	_, err := r.run(context.Background(), m, "pin", agent.Options{MaxSteps: 4, HumanAuth: auth})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(m.calls), 3)
	assert.Contains(t, m.calls[2].Text, "pin (secret) not typed: no password field on screen")
	assert.NotContains(t, string(r.sim.Phone().UIDumpXML()), "8642")
}
