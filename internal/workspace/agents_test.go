package workspace_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/lease"
	"github.com/openpocket/openpocket/internal/workspace"
)

func newInstall(t *testing.T) *workspace.Install {
	t.Helper()
	dir := t.TempDir()
	h, err := workspace.Open(dir)
	require.NoError(t, err)
	cfg := h.Config()
	cfg.Models = map[string]workspace.ModelProfile{
		"main":  {BaseURL: "https://api.example.com/v1", Model: "m1", APIKey: "sk-secret-main", APIKeyEnv: "MAIN_KEY"},
		"local": {BaseURL: "http://127.0.0.1:1/v1", Model: "m2"},
	}
	cfg.DefaultModel = "main"
	cfg.Target = workspace.TargetConfig{Type: "physical-phone", Device: "R58M"}
	require.NoError(t, h.SaveConfig(cfg))
	in, err := workspace.OpenInstall(dir)
	require.NoError(t, err)
	return in
}

func TestCreateAgentCapturesModelsWithoutKeys(t *testing.T) {
	in := newInstall(t)
	h, err := in.CreateAgent("shop", workspace.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(in.Dir(), "agents", "shop"), h.Dir())
	cfg := h.Config()
	assert.Equal(t, "main", cfg.DefaultModel)
	assert.Equal(t, []string{"local", "main"}, workspace.SortedModelNames(cfg))
	assert.Empty(t, cfg.Models["main"].APIKey, "keys stay behind without --with-keys")
	assert.Equal(t, "MAIN_KEY", cfg.Models["main"].APIKeyEnv)
	assert.Equal(t, "emulator", cfg.Target.Type, "the target is never copied")
	assert.Empty(t, cfg.Target.Device)
	raw, err := os.ReadFile(h.ConfigPath())
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "sk-secret-main")
	for _, d := range []string{"workspace/sessions", "workspace/memory", "state"} {
		assert.DirExists(t, filepath.Join(h.Dir(), d))
	}

	withKeys, err := in.CreateAgent("ops", workspace.CreateOptions{From: "shop", WithKeys: true})
	require.NoError(t, err)
	assert.Empty(t, withKeys.Config().Models["main"].APIKey, "shop had no key to copy")
	keyed, err := in.CreateAgent("keyed", workspace.CreateOptions{WithKeys: true})
	require.NoError(t, err)
	assert.Equal(t, "sk-secret-main", keyed.Config().Models["main"].APIKey)

	list, err := in.Agents()
	require.NoError(t, err)
	var ids []string
	for _, a := range list {
		ids = append(ids, a.ID)
	}
	assert.Equal(t, []string{"default", "keyed", "ops", "shop"}, ids)
	info, err := in.Agent("ops")
	require.NoError(t, err)
	assert.Equal(t, "shop", info.CreatedFrom)
	assert.True(t, info.KeysCopied)
}

func TestCreateAgentRefusals(t *testing.T) {
	in := newInstall(t)
	_, err := in.CreateAgent("shop", workspace.CreateOptions{})
	require.NoError(t, err)
	_, err = in.CreateAgent("shop", workspace.CreateOptions{})
	assert.ErrorContains(t, err, `agent "shop" already exists`)
	_, err = in.CreateAgent("default", workspace.CreateOptions{})
	assert.ErrorContains(t, err, "install's own home")
	_, err = in.CreateAgent("../up", workspace.CreateOptions{})
	assert.ErrorContains(t, err, "lowercase letters")
	_, err = in.CreateAgent("x", workspace.CreateOptions{From: "ghost"})
	assert.ErrorIs(t, err, workspace.ErrNoAgent)
	_, err = os.Stat(filepath.Join(in.AgentsDir(), "x"))
	assert.True(t, os.IsNotExist(err), "a failed create leaves nothing")
	_, err = in.OpenAgent("ghost")
	assert.ErrorContains(t, err, "agents create ghost")
	_, err = in.OpenAgent("shpo")
	assert.ErrorIs(t, err, workspace.ErrNoAgent)
	assert.ErrorContains(t, err, "did you mean shop?", "a typo of an existing id suggests it")
}

func TestRemoveAgentReleasesBinding(t *testing.T) {
	in := newInstall(t)
	_, err := in.CreateAgent("shop", workspace.CreateOptions{})
	require.NoError(t, err)
	_, err = in.Bind(workspace.Binding{Agent: "shop", Type: "emulator", Device: "emulator-5554"}, time.Now())
	require.NoError(t, err)
	require.NoError(t, in.RemoveAgent("shop"))
	assert.NoDirExists(t, filepath.Join(in.AgentsDir(), "shop"))
	_, ok, err := in.Binding("shop")
	require.NoError(t, err)
	assert.False(t, ok)
	// The phone is free for another agent now.
	_, err = in.Bind(workspace.Binding{Agent: "default", Type: "emulator", Device: "emulator-5554"}, time.Now())
	assert.NoError(t, err)
	assert.ErrorContains(t, in.RemoveAgent("default"), "cannot be removed")
	assert.ErrorIs(t, in.RemoveAgent("shop"), workspace.ErrNoAgent)
}

func TestBindingIsExclusive(t *testing.T) {
	in := newInstall(t)
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	b, err := in.Bind(workspace.Binding{Agent: "a", Type: "physical-phone", Device: "10.0.0.7:5555"}, now)
	require.NoError(t, err)
	assert.Equal(t, "10.0.0.7:5555", b.Fingerprint())
	require.NoError(t, in.RecordSerialNo("a", "R58M1234"))
	got, ok, err := in.Binding("a")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "10.0.0.7:5555/R58M1234", got.Fingerprint())

	// The same phone by endpoint, by serial, or by its hardware serial.
	for _, other := range []workspace.Binding{
		{Agent: "b", Type: "android-tv", Endpoint: "10.0.0.7:5555"},
		{Agent: "b", Type: "physical-phone", Device: "10.0.0.7:5555"},
		{Agent: "b", Type: "physical-phone", Device: "R58M1234"},
	} {
		_, err := in.Bind(other, now)
		var be *workspace.BoundError
		require.ErrorAs(t, err, &be, "%+v", other)
		assert.Equal(t, "a", be.Holder.Agent)
		assert.ErrorIs(t, err, lease.ErrBusy)
		assert.ErrorContains(t, err, `bound to agent "a"`)
	}
	// Re-binding its own phone, or another phone, is fine.
	_, err = in.Bind(workspace.Binding{Agent: "a", Type: "physical-phone", Device: "10.0.0.7:5555"}, now)
	assert.NoError(t, err)
	_, err = in.Bind(workspace.Binding{Agent: "b", Type: "emulator", Device: "emulator-5556"}, now)
	assert.NoError(t, err)
	h, found, err := in.HolderOf("b", "10.0.0.7:5555")
	require.NoError(t, err)
	assert.True(t, found)
	assert.Equal(t, "a", h.Agent)
	_, found, err = in.HolderOf("a", "10.0.0.7:5555")
	require.NoError(t, err)
	assert.False(t, found, "an agent's own binding is no obstacle")

	_, err = in.Bind(workspace.Binding{Agent: "c", Type: "tv"}, now)
	assert.ErrorContains(t, err, "expected one of emulator, physical-phone, android-tv, cloud")
	_, err = in.Bind(workspace.Binding{Agent: "c", Type: "cloud"}, now)
	assert.ErrorContains(t, err, "needs a device serial or an endpoint")

	require.NoError(t, in.Unbind("a"))
	_, err = in.Bind(workspace.Binding{Agent: "b", Type: "physical-phone", Device: "10.0.0.7:5555"}, now)
	assert.NoError(t, err)
}

func TestBindingMalformedFileNamesPosition(t *testing.T) {
	in := newInstall(t)
	require.NoError(t, os.MkdirAll(in.TargetsDir(), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(in.TargetsDir(), "x.json"), []byte("{\n  \"agent\": \n}"), 0o644))
	_, err := in.Bindings()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "x.json:3")
	assert.False(t, errors.Is(err, lease.ErrBusy))
}
