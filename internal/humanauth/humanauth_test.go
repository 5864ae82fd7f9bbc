package humanauth_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/humanauth"
	"github.com/openpocket/openpocket/stdlib/agent"
)

// ask runs b.Ask in the background and returns its link and result.
func ask(t *testing.T, b *humanauth.Broker, req agent.HumanAuthRequest) (<-chan humanauth.Link, <-chan agent.HumanAuthDecision, <-chan error) {
	t.Helper()
	links := make(chan humanauth.Link, 1)
	b.OnLink = func(l humanauth.Link) { links <- l }
	decs, errs := make(chan agent.HumanAuthDecision, 1), make(chan error, 1)
	go func() {
		d, err := b.Ask(context.Background(), req)
		decs <- d
		errs <- err
	}()
	return links, decs, errs
}

func TestDecisionFromAnotherProcessWinsOnce(t *testing.T) {
	state := t.TempDir()
	store := humanauth.Open(state)
	b := &humanauth.Broker{Store: store, BaseURL: "https://tunnel.example/"}
	links, decs, errs := ask(t, b, agent.HumanAuthRequest{ID: "s1-step-3", Capability: "2fa", Instruction: "code", Timeout: time.Minute})
	l := <-links
	assert.True(t, strings.HasPrefix(l.URL, "https://tunnel.example/a/default/auth/s1-step-3?t="), l.URL)
	assert.Equal(t, "https://tunnel.example/a/default/auth/s1-step-3", l.Page)
	token := strings.TrimPrefix(l.URL, l.Page+"?t=")
	assert.Len(t, token, 43, "256 bits, base64url")

	ps, err := store.List()
	require.NoError(t, err)
	require.Len(t, ps, 1)
	assert.True(t, ps[0].TokenOK(token))
	assert.False(t, ps[0].TokenOK(token[:42]+"x"))
	raw, err := os.ReadFile(filepath.Join(state, "human-auth", "pending", "s1-step-3.json"))
	require.NoError(t, err)
	assert.NotContains(t, string(raw), token, "only the hash is stored")

	// Another process (openpocket auth approve) writes the decision.
	other := humanauth.Open(state)
	require.NoError(t, other.Decide("s1-step-3", humanauth.Decision{Status: "approved", Message: "ok", Text: "482913", By: "cli"}))
	assert.ErrorIs(t, other.Decide("s1-step-3", humanauth.Decision{Status: "rejected"}), humanauth.ErrDecided)
	d := <-decs
	require.NoError(t, <-errs)
	assert.Equal(t, agent.HumanAuthDecision{Status: "approved", Message: "ok", Text: "482913", Link: l.Page}, d)
	_, err = store.Get("s1-step-3")
	assert.ErrorIs(t, err, humanauth.ErrNotFound, "the decision (holding the code) and the request are gone")
	_, ok, _ := store.Decision("s1-step-3")
	assert.False(t, ok)
}

func TestTimeoutIsCappedAndRecorded(t *testing.T) {
	store := humanauth.Open(t.TempDir())
	b := &humanauth.Broker{Store: store, MaxTimeout: 300 * time.Millisecond}
	start := time.Now()
	links, decs, errs := ask(t, b, agent.HumanAuthRequest{ID: "r", Capability: "sms", Timeout: 600 * time.Second})
	l := <-links
	assert.WithinDuration(t, start.Add(300*time.Millisecond), l.Request.ExpiresAt, 200*time.Millisecond)
	d := <-decs
	require.NoError(t, <-errs)
	assert.Equal(t, "timeout", d.Status)
	assert.Less(t, time.Since(start), 5*time.Second)
}

func TestCancelledRunStopsWaiting(t *testing.T) {
	store := humanauth.Open(t.TempDir())
	b := &humanauth.Broker{Store: store}
	ctx, cancel := context.WithCancel(context.Background())
	b.OnLink = func(humanauth.Link) { cancel() }
	_, err := b.Ask(ctx, agent.HumanAuthRequest{ID: "r", Timeout: time.Minute})
	assert.ErrorIs(t, err, context.Canceled)
	ps, _ := store.List()
	assert.Empty(t, ps)
}

func TestTerminalAnswersToo(t *testing.T) {
	store := humanauth.Open(t.TempDir())
	var out strings.Builder
	b := &humanauth.Broker{Store: store, Terminal: agent.TerminalAuth(strings.NewReader("y\n777111\n"), &out)}
	_, decs, errs := ask(t, b, agent.HumanAuthRequest{ID: "r", Capability: "2fa", Instruction: "code", Timeout: time.Minute})
	d := <-decs
	require.NoError(t, <-errs)
	assert.Equal(t, "approved", d.Status)
	assert.Equal(t, "777111", d.Text)
	require.NotNil(t, d.Artifact)
	data, err := os.ReadFile(d.Artifact.Path)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"kind": "text"`)
	assert.Contains(t, string(data), `"value": "777111"`)
	assert.Equal(t, filepath.Join(store.ArtifactDir(), "r.json"), d.Artifact.Path)
}

func TestTemplatePathStaysInTheWorkspace(t *testing.T) {
	ws := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "templates"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "templates", "otp.json"), []byte(`{"title": "From file", "approveLabel": "Send"}`), 0o644))
	outside := filepath.Join(t.TempDir(), "evil.json")
	require.NoError(t, os.WriteFile(outside, []byte(`{"title": "evil"}`), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(ws, "templates", "link.json")))
	store := humanauth.Open(t.TempDir())
	b := &humanauth.Broker{Store: store, Workspace: ws, MaxTimeout: 50 * time.Millisecond}

	links, _, errs := ask(t, b, agent.HumanAuthRequest{ID: "ok", TemplatePath: "templates/otp.json", UITemplate: map[string]any{"title": "Inline wins"}})
	l := <-links
	require.NoError(t, <-errs)
	assert.Equal(t, map[string]any{"title": "Inline wins", "approveLabel": "Send"}, l.Request.UITemplate)

	for _, p := range []string{"../" + filepath.Base(outside), outside, "templates/link.json", "templates/missing.json"} {
		_, err := b.Ask(context.Background(), agent.HumanAuthRequest{ID: "bad", TemplatePath: p})
		require.Error(t, err, p)
		assert.Contains(t, err.Error(), "templatePath", p)
	}
	require.NoError(t, os.WriteFile(filepath.Join(ws, "templates", "broken.json"), []byte(`{"title": `), 0o644))
	_, err := b.Ask(context.Background(), agent.HumanAuthRequest{ID: "bad", TemplatePath: "templates/broken.json"})
	assert.ErrorContains(t, err, "expected a JSON object")
}

func TestStoreRefusesUnsafeIDs(t *testing.T) {
	store := humanauth.Open(t.TempDir())
	for _, id := range []string{"", "../x", ".hidden", "a/b", strings.Repeat("x", 200)} {
		assert.False(t, humanauth.ValidID(id), id)
		_, err := store.Get(id)
		assert.True(t, errors.Is(err, humanauth.ErrNotFound), id)
	}
	assert.Equal(t, ".jpg", humanauth.ExtForMIME("image/jpeg"))
	assert.Equal(t, ".bin", humanauth.ExtForMIME("audio/ogg"))
}

func TestLeftoversDoNotAnswerAndLiveIDsAreRefused(t *testing.T) {
	store := humanauth.Open(t.TempDir())
	// A process died after an answer was written: that answer is stale.
	now := time.Now().UTC()
	require.NoError(t, store.Add(humanauth.Pending{ID: "run-step-1", CreatedAt: now.Add(-time.Hour), ExpiresAt: now.Add(-time.Minute)}))
	require.NoError(t, store.Decide("run-step-1", humanauth.Decision{Status: "approved", Text: "old"}))
	b := &humanauth.Broker{Store: store, MaxTimeout: 200 * time.Millisecond}
	links, decs, errs := ask(t, b, agent.HumanAuthRequest{ID: "run-step-1", Capability: "2fa"})
	<-links
	// While it waits, another run cannot take the same id.
	_, err := (&humanauth.Broker{Store: store}).Ask(context.Background(), agent.HumanAuthRequest{ID: "run-step-1"})
	assert.ErrorContains(t, err, "already waiting")
	d := <-decs
	require.NoError(t, <-errs)
	assert.Equal(t, "timeout", d.Status, "the stale approval did not answer")
}
