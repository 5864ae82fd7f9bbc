package backend

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/skills"
	"github.com/openpocket/openpocket/internal/workspace"
)

// fakePort builds run services whose device never opens, and counts them
// by lease mode.
type fakePort struct {
	home *workspace.Home
	def  string

	mu     sync.Mutex
	built  map[bool][]string // perRun → devices asked for
	opened int
}

var errNoPhone = errors.New("no phone in this test")

func (p *fakePort) Service(device string, perRun bool) (*run.Service, func() error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.built == nil {
		p.built = map[bool][]string{}
	}
	p.built[perRun] = append(p.built[perRun], device)
	h := p.home
	svc := run.New(run.Config{StateDir: h.State(), WorkspaceDir: h.Workspace(),
		Skills: &skills.Loader{HomeDir: h.Dir(), WorkspaceDir: h.Workspace()},
		OpenDevice: func(context.Context, string) (engine.Device, func(), error) {
			p.mu.Lock()
			p.opened++
			p.mu.Unlock()
			return nil, nil, errNoPhone
		}})
	return svc, func() error { return nil }
}

func (p *fakePort) DefaultDevice() string { return p.def }

func (p *fakePort) HumanAuthFor(context.Context, workspace.HumanAuthConfig, *engine.Session) (run.HumanAuthFunc, error) {
	return nil, nil
}

func newBackend(t *testing.T) (*Backend, *fakePort) {
	t.Helper()
	h, err := workspace.Open(t.TempDir())
	require.NoError(t, err)
	p := &fakePort{home: h, def: "emulator-5554"}
	b := New(Env{Home: h, Port: p})
	t.Cleanup(b.Close)
	return b, p
}

func TestCallsOnOneDeviceQueueOthersDoNot(t *testing.T) {
	b, _ := newBackend(t)
	ctx := context.Background()
	leave, err := b.enter(ctx, "")
	require.NoError(t, err)

	// "" is the default device: a call naming it waits for the first.
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err = b.enter(short, "emulator-5554")
	assert.ErrorIs(t, err, context.DeadlineExceeded, "a call on the same device waits")

	other, err := b.enter(ctx, "emulator-5556")
	require.NoError(t, err, "another device does not wait")
	other()

	entered := make(chan func(), 1)
	go func() {
		l, err := b.enter(ctx, "emulator-5554")
		if err == nil {
			entered <- l
		}
	}()
	select {
	case <-entered:
		t.Fatal("entered before the first call left")
	case <-time.After(50 * time.Millisecond):
	}
	leave()
	select {
	case l := <-entered:
		l()
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting call never entered after the first left")
	}
}

func TestDirectCallsShareOneServicePerDevice(t *testing.T) {
	b, p := newBackend(t)
	ctx := context.Background()
	for _, device := range []string{"", "emulator-5554", "", "emulator-5556"} {
		_, _, err := b.Phone(ctx, device)
		require.ErrorIs(t, err, errNoPhone)
	}
	assert.Equal(t, []string{"", "emulator-5556"}, p.built[true], "one direct service for the default device (however named) and one for the other")
	assert.Empty(t, p.built[false], "direct calls build no per-call service")
	assert.Equal(t, 4, p.opened, "each direct call opens its device")

	// The queue was left on every failure: the next call gets in at once.
	leave, err := b.enter(ctx, "")
	require.NoError(t, err)
	leave()
}

func TestRunSkillReadsFilesInsideTheWorkspaceOnly(t *testing.T) {
	b, p := newBackend(t)
	outside := filepath.Join(t.TempDir(), "steal.lua")
	require.NoError(t, os.WriteFile(outside, []byte("-- MARKER-OUTSIDE\nerror('MARKER-OUTSIDE')\n"), 0o644))
	link := filepath.Join(p.home.Workspace(), "scripts", "link.lua")
	require.NoError(t, os.Symlink(outside, link))
	for _, name := range []string{outside, "../../" + filepath.Base(outside), link, "scripts/link.lua"} {
		res, err := b.RunSkill(context.Background(), "", name, nil)
		require.Error(t, err, name)
		assert.NotContains(t, err.Error()+res.Message, "MARKER-OUTSIDE", name)
	}
	assert.Zero(t, p.opened, "refused before any device was opened")
	assert.Len(t, p.built[false], 4, "each call had a service of its own")
}

func TestSessionGetReadsSessionsByIDOnly(t *testing.T) {
	b, p := newBackend(t)
	h := p.home
	body := "# Session\n\n- id: 20261128-101010\n- started_at: 2026-11-28T10:10:10Z\n- model_profile: test\n\n## Task\n\nTurn Wi-Fi off\n\n### Step 1\n\n## Final\n\n- status: SUCCESS\n"
	require.NoError(t, os.WriteFile(filepath.Join(h.SessionsDir(), "session-20261128-101010.md"), []byte(body), 0o644))
	secret := filepath.Join(t.TempDir(), "secret.md")
	require.NoError(t, os.WriteFile(secret, []byte("MARKER-SECRET"), 0o644))

	for _, id := range []string{"20261128-101010", "latest"} {
		got, err := b.SessionGet(context.Background(), id)
		require.NoError(t, err, id)
		assert.Equal(t, body, got, id)
	}
	for _, id := range []string{secret, "../../x", "a/b", ".hidden", ""} {
		got, err := b.SessionGet(context.Background(), id)
		require.Error(t, err, id)
		assert.NotContains(t, got+err.Error(), "MARKER-SECRET", id)
	}

	list, err := b.SessionsList(context.Background(), 0)
	require.NoError(t, err)
	sums := list.([]workspace.SessionSummary)
	require.Len(t, sums, 1)
	assert.Equal(t, workspace.SessionSummary{ID: "20261128-101010", Status: "SUCCESS", StartedAt: "2026-11-28T10:10:10Z", Model: "test",
		Task: "Turn Wi-Fi off", Steps: 1, Path: filepath.Join(h.SessionsDir(), "session-20261128-101010.md")}, sums[0])
}
