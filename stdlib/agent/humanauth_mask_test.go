package agent_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/sim/android"
	"github.com/openpocket/openpocket/stdlib/agent"
)

// TestAppliedCodeIsMaskedInLaterElementLists: a one-time code a person
// approves is typed into the focused plain text field (not a password
// field); the phone holds it, but the element lists the model reads next
// show the field masked, and the session never holds the code.
func TestAppliedCodeIsMaskedInLaterElementLists(t *testing.T) {
	r := newRig(t)
	p := r.scratch()
	grant(t, p, android.PkgNotes, "android.permission.POST_NOTIFICATIONS") // no dialog over the note
	launch(t, p, android.PkgNotes)
	tapID(t, p, "note_input")
	n := 0
	m := &fakeModel{next: func(engine.ModelRequest) (engine.ModelReply, error) {
		n++
		if n == 1 {
			a, _ := action.New("request_human_auth", map[string]any{"capability": "2fa", "instruction": "Enter the code"})
			return engine.ModelReply{Action: a}, nil
		}
		a, _ := action.New("finish", map[string]any{"message": "done"})
		return engine.ModelReply{Action: a}, nil
	}}
	var out bytes.Buffer
	res, err := r.run(context.Background(), m, "sign in", agent.Options{MaxSteps: 3,
		HumanAuth: agent.TerminalAuth(strings.NewReader("y\n482913\n"), &out)})
	require.NoError(t, err)
	require.True(t, res.Success, res.Message)
	assert.Contains(t, string(r.sim.Phone().UIDumpXML()), `text="482913"`, "the code is in the field on the phone")
	require.Len(t, m.calls, 2)
	assert.NotContains(t, m.calls[1].Text, "482913", "the model never reads the code back")
	assert.Contains(t, m.calls[1].Text, screen.SecretMask, "the field shows the mask")
	assert.NotContains(t, readFile(t, res.SessionPath), "482913")
}
