package adb_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/sim/android"
)

// The relay's password typed into whatever field the model focused (here
// the user name field, not a password field): once the typing code marks
// it, the next element list shows the mask, in the field and wherever the
// app repeats the value; the password field shows the mask too.
func TestMarkedSecretNeverInTheElementList(t *testing.T) {
	_, d := openShared(t)
	p := device.NewPhone(d, device.Options{})
	a := agentStep{t, p, context.Background()}
	_, err := p.LaunchApp(a.ctx, android.PkgLogin)
	require.NoError(t, err)
	snap := a.look()
	user := elementWith(t, snap, byResID(android.PkgLogin+":id/username"))
	a.act(snap, tapElement(user))
	const secret = "Hunter2pw"
	a.act(a.look(), action.Action{Type: "type", Params: map[string]any{"text": secret}})
	snap = a.look()
	require.Contains(t, screen.ElementBlock(snap.UIElements, snap.UINotes), secret, "unmarked, the typed text is shown")

	field := elementWith(t, snap, byResID(android.PkgLogin+":id/username"))
	p.MarkSecret(secret, device.SecretFieldOf(field))
	snap = a.look()
	block := screen.ElementBlock(snap.UIElements, snap.UINotes)
	assert.NotContains(t, block, secret)
	assert.NotContains(t, strings.ToLower(block), "hunter")
	field = elementWith(t, snap, byResID(android.PkgLogin+":id/username"))
	assert.Equal(t, screen.SecretMask, field.Text)

	// The password field: masked by its own password="true".
	pw := elementWith(t, snap, byResID(android.PkgLogin+":id/password"))
	a.act(snap, tapElement(pw))
	a.act(a.look(), action.Action{Type: "type", Params: map[string]any{"text": "abc"}})
	snap = a.look()
	pw = elementWith(t, snap, byResID(android.PkgLogin+":id/password"))
	assert.Equal(t, screen.SecretMask, pw.Text)
	assert.True(t, pw.Password)
}
