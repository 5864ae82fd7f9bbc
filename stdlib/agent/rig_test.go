package agent_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/llm"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/internal/workspace"
	"github.com/openpocket/openpocket/stdlib/agent"
)

// rig is a virtual phone on the real adb server, a fresh OPENPOCKET_HOME
// and a fake OpenAI server.
type rig struct {
	t    testing.TB
	sim  *sim.Sim
	home *workspace.Home
	srv  *llmtest.Server

	mu     sync.Mutex
	events []engine.Event
}

func newRig(t testing.TB) *rig {
	t.Helper()
	s := simtest.Start(t)
	h, err := workspace.Open(t.TempDir())
	require.NoError(t, err)
	return &rig{t: t, sim: s, home: h, srv: llmtest.NewServer(t)}
}

func (r *rig) openDevice(ctx context.Context) (engine.Device, error) {
	return adb.NewClient(adb.DefaultServer).Open(ctx, adb.Target{Serial: r.sim.Serial()})
}

// client is the real openai-go client pointed at the fake server, with the
// home's persisted mode store.
func (r *rig) client(retries int) *llm.Client {
	r.t.Helper()
	r.t.Setenv("OPENAI_API_KEY", "")
	modes, err := r.home.ModeStore()
	require.NoError(r.t, err)
	c, err := llm.New(llm.Profile{Name: "test", BaseURL: r.srv.BaseURL(), Model: "gpt-test"},
		llm.Options{Timeout: 20 * time.Second, MaxRetries: retries, Modes: modes})
	require.NoError(r.t, err)
	return c
}

func (r *rig) engine(m engine.Model) *engine.Engine {
	return &engine.Engine{
		OpenDevice: r.openDevice,
		Model:      m,
		Workspace:  r.home,
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

func (r *rig) session(ctx context.Context, e *engine.Engine, task string) *engine.Session {
	r.t.Helper()
	sess, err := e.NewSession(ctx, engine.SessionOptions{Task: task, Persist: true, OnEvent: func(ev engine.Event) {
		r.mu.Lock()
		r.events = append(r.events, ev)
		r.mu.Unlock()
	}})
	require.NoError(r.t, err)
	return sess
}

// run runs one agent task with the given model.
func (r *rig) run(ctx context.Context, m engine.Model, task string, o agent.Options) (engine.RunResult, error) {
	r.t.Helper()
	return agent.Run(ctx, r.session(ctx, r.engine(m), task), o)
}

func (r *rig) agentSteps() []engine.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []engine.Event
	for _, e := range r.events {
		if e.Kind == "agent_step" {
			out = append(out, e)
		}
	}
	return out
}

// settingsWifiMark opens Settings on a scratch phone object, returns the
// mark id of the Wi-Fi switch and goes back home, so a scripted model can
// tap it.
func (r *rig) settingsWifiMark() string {
	r.t.Helper()
	ctx := context.Background()
	tr, err := r.openDevice(ctx)
	require.NoError(r.t, err)
	p := device.NewPhone(tr, device.Options{})
	_, err = p.LaunchApp(ctx, "com.android.settings")
	require.NoError(r.t, err)
	snap, err := p.Capture(ctx, device.CaptureOptions{Scaled: true, NoCache: true})
	require.NoError(r.t, err)
	id := ""
	for _, e := range snap.UIElements {
		if strings.HasSuffix(e.ResourceID, "wifi_switch") {
			id = e.ID
		}
	}
	require.NotEmpty(r.t, id, "Wi-Fi switch among the elements")
	_, err = p.Shell(ctx, "input keyevent KEYCODE_HOME")
	require.NoError(r.t, err)
	return id
}

// fakeModel answers from a list of actions instantly, without HTTP.
type fakeModel struct {
	mu    sync.Mutex
	next  func(req engine.ModelRequest) (engine.ModelReply, error)
	calls []engine.ModelRequest
}

func (f *fakeModel) Decide(ctx context.Context, req engine.ModelRequest) (engine.ModelReply, error) {
	f.mu.Lock()
	f.calls = append(f.calls, req)
	f.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return engine.ModelReply{}, err
	}
	return f.next(req)
}

func (f *fakeModel) Profile() (string, string) { return "fake", "fake-model" }
