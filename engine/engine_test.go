package engine_test

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/device/devicetest"
)

// memWorkspace records what a session persists.
type memWorkspace struct {
	mu       sync.Mutex
	steps    []engine.StepRecord
	finals   []string
	memory   []string
	beginErr error
}

type memLog struct{ ws *memWorkspace }

func (l memLog) ID() string   { return "20260101-000000" }
func (l memLog) Path() string { return "/ws/sessions/session-20260101-000000.md" }
func (l memLog) AppendStep(s engine.StepRecord) error {
	l.ws.mu.Lock()
	defer l.ws.mu.Unlock()
	l.ws.steps = append(l.ws.steps, s)
	return nil
}
func (l memLog) Finalize(ok bool, msg string) error {
	l.ws.mu.Lock()
	defer l.ws.mu.Unlock()
	l.ws.finals = append(l.ws.finals, msg)
	return nil
}
func (w *memWorkspace) BeginSession(engine.SessionMeta) (engine.SessionLog, error) {
	if w.beginErr != nil {
		return nil, w.beginErr
	}
	return memLog{w}, nil
}
func (w *memWorkspace) AppendDailyMemory(_ time.Time, ok bool, _, task, result string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.memory = append(w.memory, task+"|"+result)
	return nil
}
func (w *memWorkspace) SaveStepScreenshot(time.Time, string, int, string, []byte) (string, error) {
	return "", nil
}
func (w *memWorkspace) Root() string { return "/ws" }

type echoExecutor struct{}

func (echoExecutor) Execute(_ context.Context, a action.Action) (string, error) {
	return "read path=" + a.Str("path"), nil
}

func newEngine(ws *memWorkspace) (*engine.Engine, *devicetest.Fake) {
	f := devicetest.New()
	f.OnOutput("wm size", "Physical size: 1080x2400\n").OnOutput("input ", "")
	e := &engine.Engine{
		OpenDevice: func(context.Context) (engine.Device, error) { return f, nil },
		Executors:  map[string]engine.Executor{"read": echoExecutor{}},
	}
	if ws != nil {
		e.Workspace = ws
	}
	return e, f
}

func TestSessionDispatchesActions(t *testing.T) {
	e, f := newEngine(nil)
	s, err := e.NewSession(context.Background(), engine.SessionOptions{Task: "t"})
	require.NoError(t, err)
	tap, err := action.New("tap", map[string]any{"x": 10, "y": 20})
	require.NoError(t, err)
	out, err := s.Act(tap, device.ActOptions{})
	require.NoError(t, err)
	assert.Equal(t, "Tapped at (10, 20)", out.Result)
	assert.Equal(t, []string{"input tap 10 20"}, f.CallsWithPrefix("input tap"))

	read, err := action.New("read", map[string]any{"path": "notes.md"})
	require.NoError(t, err)
	out, err = s.Act(read, device.ActOptions{})
	require.NoError(t, err)
	assert.Equal(t, "read path=notes.md", out.Result)

	exe, err := action.New("exec", map[string]any{"command": "ls"})
	require.NoError(t, err)
	out, err = s.Act(exe, device.ActOptions{})
	require.NoError(t, err, "a missing executor is a result the model reads")
	assert.Contains(t, out.Result, "exec is not available")
}

func TestSessionRecordsAndFinalizesOnce(t *testing.T) {
	ws := &memWorkspace{}
	e, _ := newEngine(ws)
	s, err := e.NewSession(context.Background(), engine.SessionOptions{Task: "turn off wifi", Persist: true})
	require.NoError(t, err)
	assert.Equal(t, "/ws/sessions/session-20260101-000000.md", s.SessionPath())
	tap, _ := action.New("tap", map[string]any{"x": 1, "y": 2})
	require.NoError(t, s.Record(engine.TraceStep{Thought: "tap it", Action: tap, Result: "Tapped", Usage: engine.Usage{TotalTokens: 7}}))
	require.NoError(t, s.Record(engine.TraceStep{Action: tap, Result: "Tapped again", Usage: engine.Usage{TotalTokens: 5}}))
	require.Len(t, ws.steps, 2)
	assert.Equal(t, 2, ws.steps[1].Step, "steps are numbered in order")
	assert.JSONEq(t, `{"type":"tap","x":1,"y":2}`, string(ws.steps[0].ActionJSON))

	r := s.Finish(true, "done")
	assert.Equal(t, engine.RunResult{Success: true, Message: "done", SessionPath: s.SessionPath(), Steps: 2, Usage: engine.Usage{TotalTokens: 12}}, r)
	r2 := s.Finish(false, "cancelled later")
	assert.Equal(t, r, r2, "the first result stands")
	assert.Equal(t, []string{"done"}, ws.finals, "finalized exactly once")
	assert.Equal(t, []string{"turn off wifi|done"}, ws.memory)
	assert.ErrorIs(t, s.Context().Err(), context.Canceled, "finishing ends the run's context")
}

func TestSessionBeginFailureIsReported(t *testing.T) {
	e, _ := newEngine(&memWorkspace{beginErr: errors.New("disk full")})
	_, err := e.NewSession(context.Background(), engine.SessionOptions{Persist: true})
	assert.ErrorContains(t, err, "disk full")
}

func TestSessionEmitsEvents(t *testing.T) {
	e, _ := newEngine(nil)
	var got []engine.Event
	s, err := e.NewSession(context.Background(), engine.SessionOptions{OnEvent: func(ev engine.Event) { got = append(got, ev) }})
	require.NoError(t, err)
	s.Emit("step_start", map[string]any{"id": 1})
	require.Len(t, got, 1)
	assert.Equal(t, "step_start", got[0].Kind)
}

// TestImportDirection enforces DESIGN.md: the engine never imports
// adapters, Lua, the CLI or their libraries.
func TestImportDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/openpocket/openpocket/engine/...").CombinedOutput()
	require.NoError(t, err, string(out))
	const engineRoot = "github.com/openpocket/openpocket/engine"
	for _, dep := range strings.Fields(string(out)) {
		first := strings.SplitN(dep, "/", 2)[0]
		if !strings.Contains(first, ".") {
			continue // the standard library
		}
		if dep != engineRoot && !strings.HasPrefix(dep, engineRoot+"/") {
			t.Errorf("engine depends on %s: engine/... may import only the standard library and engine/...", dep)
		}
	}
}

func TestSessionFinishesWhileTheDeviceIsOpening(t *testing.T) {
	ws := &memWorkspace{}
	e, f := newEngine(ws)
	opening, release := make(chan struct{}), make(chan struct{})
	e.OpenDevice = func(ctx context.Context) (engine.Device, error) {
		close(opening)
		select {
		case <-release:
			return f, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	s, err := e.NewSession(context.Background(), engine.SessionOptions{Task: "t", Persist: true})
	require.NoError(t, err)
	opened := make(chan error, 1)
	go func() {
		_, err := s.Phone()
		opened <- err
	}()
	<-opening // the device hangs while connecting (unplugged, slow server)

	finished := make(chan engine.RunResult, 1)
	go func() { finished <- s.Finish(false, "cancelled") }()
	select {
	case r := <-finished:
		assert.Equal(t, "cancelled", r.Message)
	case <-time.After(5 * time.Second):
		close(release)
		t.Fatal("Finish waited for the device to open")
	}
	assert.Equal(t, []string{"cancelled"}, ws.finals)
	assert.ErrorIs(t, <-opened, context.Canceled, "finishing cancels the pending open")
}

// blockingExecutor waits until its context ends.
type blockingExecutor struct{ sawSession chan bool }

func (b blockingExecutor) Execute(ctx context.Context, a action.Action) (string, error) {
	b.sawSession <- engine.SessionFrom(ctx) != nil
	<-ctx.Done()
	return "", ctx.Err()
}

func TestActContextInterruptsOneCallNotTheSession(t *testing.T) {
	e, _ := newEngine(nil)
	saw := make(chan bool, 1)
	e.Executors["exec"] = blockingExecutor{sawSession: saw}
	s, err := e.NewSession(context.Background(), engine.SessionOptions{})
	require.NoError(t, err)
	exe, _ := action.New("exec", map[string]any{"command": "sleep 60"})
	ctx, cancel := context.WithCancel(context.Background()) // not derived from the run
	sawSession := make(chan bool, 1)
	go func() { sawSession <- <-saw; cancel() }()
	_, err = s.ActContext(ctx, exe, device.ActOptions{})
	assert.ErrorIs(t, err, context.Canceled)
	assert.True(t, <-sawSession, "the executor's context carries the session (Lua run_script binds to it)")
	assert.NoError(t, s.Context().Err(), "the session goes on")
}

func TestEventFieldsReadLuaAndGoNumbers(t *testing.T) {
	ev := engine.Event{Kind: "agent_step", Fields: map[string]any{"step": float64(3), "max_steps": 20, "model_ms": int64(1500), "action": "tap", "n": "x"}}
	assert.Equal(t, 3, ev.Int("step"))
	assert.Equal(t, 20, ev.Int("max_steps"))
	assert.Equal(t, 1500, ev.Int("model_ms"))
	assert.Equal(t, 0, ev.Int("missing"))
	assert.Equal(t, 0, ev.Int("n"), "a string is not a number")
	assert.Equal(t, "tap", ev.Str("action"))
	assert.Equal(t, "", ev.Str("step"), "a number is not a string")
}
