package agent_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/internal/sim/android"
	"github.com/openpocket/openpocket/stdlib/agent"
)

// payCard is an approved payment_card answer as the relay hands it over.
func payCard(number, cvc string) func(context.Context, agent.HumanAuthRequest) (agent.HumanAuthDecision, error) {
	return func(context.Context, agent.HumanAuthRequest) (agent.HumanAuthDecision, error) {
		return agent.HumanAuthDecision{Status: "approved", Message: "the user approved and card details provided",
			Artifact: &agent.HumanAuthArtifact{Kind: "payment_card", Path: "/state/human-auth-artifacts/x.json", MIME: "application/json"},
			Fields: []agent.HumanAuthField{
				{Key: "card_number", Type: "card-number", Value: number, Secret: true},
				{Key: "expiry", Type: "expiry", Value: "09/30", Secret: true},
				{Key: "cvc", Type: "cvc", Value: cvc, Secret: true},
				{Key: "name", Type: "text", Value: "Grace Hopper"}}}, nil
	}
}

// payModel opens the Pay app, optionally taps "Pay by card" (through a
// shell tap at the button's center), asks for the card, presses ENTER and
// finishes.
func payModel(t *testing.T, r *rig, openForm bool) *fakeModel {
	n := 0
	return &fakeModel{next: func(req engine.ModelRequest) (engine.ModelReply, error) {
		n++
		steps := []map[string]any{
			{"type": "launch_app", "packageName": android.PkgPay},
			{"type": "wait", "durationMs": 10},
			{"type": "request_human_auth", "capability": "payment", "instruction": "Pay 19.90 EUR"},
			{"type": "keyevent", "keycode": "KEYCODE_ENTER"},
			{"type": "finish", "message": "paid"},
		}
		if n == 2 && openForm {
			x, y := centerOf(t, r.sim.Phone().UIDumpXML(), android.PkgPay+":id/card_button")
			steps[1] = map[string]any{"type": "shell", "command": fmt.Sprintf("input tap %d %d", x, y)}
		}
		a, problems := action.Normalize(steps[min(n-1, 4)], nil)
		require.Empty(t, problems)
		return engine.ModelReply{Action: a}, nil
	}}
}

// On the secure card form the card goes in field by field; the model,
// its events, the session and the home never see the number or the CVC.
func TestPaymentCardFillsTheSecureCardForm(t *testing.T) {
	r := newRig(t)
	r.sim.Phone().InstallCapabilityApps()
	const number, cvc = "5555555555554444", "8264"
	m := payModel(t, r, true)
	res, err := r.run(context.Background(), m, "pay by card", agent.Options{MaxSteps: 8, HumanAuth: payCard(number, cvc)})
	require.NoError(t, err)
	assert.True(t, res.Success, res.Message)
	card, paid := r.sim.Phone().CardPaid()
	require.True(t, paid, "the Pay app recorded no payment")
	assert.Equal(t, android.CardPayment{Number: number, Expiry: "09/30", CVC: cvc, Name: "Grace Hopper"}, card)
	told := stepResult(t, res.SessionPath, 2)
	assert.Contains(t, told, "human_artifact_kind=payment_card fields=card_number (secret),expiry (secret),cvc (secret),name")
	assert.Contains(t, told, "typed card_number (secret) (16 characters) into field 1 of the secure form")
	assert.Contains(t, told, "typed name (12 characters) into field 4 of the secure form")
	for _, secret := range []string{number, cvc} {
		for i, c := range m.calls {
			assert.NotContains(t, c.Text, secret, "model request %d", i)
		}
		assertNoSecret(t, r.home.Dir(), secret)
		for _, ev := range r.events {
			assert.NotContains(t, fmt.Sprint(ev.Fields), secret, ev.Kind)
		}
	}
}

// A screen without text fields that is not secure (the checkout page)
// gets no card: typed blindly, it would land wherever focus is and show
// up in the next screenshot or element list.
func TestPaymentCardNotTypedOnAnOrdinaryScreen(t *testing.T) {
	r := newRig(t)
	r.sim.Phone().InstallCapabilityApps()
	m := payModel(t, r, false)
	res, err := r.run(context.Background(), m, "pay by card", agent.Options{MaxSteps: 8, HumanAuth: payCard("5555555555554444", "8264")})
	require.NoError(t, err)
	_, paid := r.sim.Phone().CardPaid()
	assert.False(t, paid)
	assert.Contains(t, stepResult(t, res.SessionPath, 2), "card_number (secret) not typed: no password field on screen")
	assert.False(t, slices.Contains(r.sim.Phone().KeyLog(), 61), "no TAB pressed outside the secure form")
}

// stepResult is the full result of step i (from 0) in the run's trace;
// the prompt shows it shortened.
func stepResult(t *testing.T, sessionPath string, i int) string {
	t.Helper()
	tr, err := agent.ReadTrace(agent.TracePath(sessionPath))
	require.NoError(t, err)
	require.Greater(t, len(tr), i)
	return tr[i].Result
}

// Only a card goes into a secure form blind: approved credentials on the
// same element-less secure screen are not typed (nothing there says which
// app owns the fields a password would land in).
func TestCredentialsNotTypedIntoASecureFormBlind(t *testing.T) {
	r := newRig(t)
	r.sim.Phone().InstallCapabilityApps()
	m := payModel(t, r, true)
	login := func(ctx context.Context, req agent.HumanAuthRequest) (agent.HumanAuthDecision, error) {
		d, err := payCard("5555555555554444", "8264")(ctx, req)
		d.Artifact.Kind = "credentials"
		d.Fields = []agent.HumanAuthField{{Key: "username", Type: "text", Value: "grace"},
			{Key: "password", Type: "password", Value: "Hunter2-secret", Secret: true}}
		return d, err
	}
	res, err := r.run(context.Background(), m, "pay by card", agent.Options{MaxSteps: 8, HumanAuth: login})
	require.NoError(t, err)
	assert.Contains(t, stepResult(t, res.SessionPath, 2), "password (secret) not typed: no password field on screen")
	assert.False(t, slices.Contains(r.sim.Phone().KeyLog(), 61), "no TAB pressed: the form was not typed into")
	assertNoSecret(t, r.home.Dir(), "Hunter2-secret")
}
