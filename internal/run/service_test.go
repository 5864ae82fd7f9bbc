package run_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/lua"
)

var phone simtest.Shared

func TestMain(m *testing.M) { os.Exit(phone.Run(m)) }

// recorder collects events in order.
type recorder struct {
	mu     sync.Mutex
	events []run.Event
}

func (r *recorder) add(ev run.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
}

func (r *recorder) kinds() []run.Kind {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []run.Kind
	for _, ev := range r.events {
		out = append(out, ev.Kind)
	}
	return out
}

func (r *recorder) of(k run.Kind) []run.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []run.Event
	for _, ev := range r.events {
		if ev.Kind == k {
			out = append(out, ev)
		}
	}
	return out
}

// newService builds a service over the shared virtual phone (serial "" =
// that phone) that counts device opens and releases.
func newService(t *testing.T, cfg run.Config) (*run.Service, *int) {
	t.Helper()
	s := phone.Take(t)
	released := 0
	var mu sync.Mutex
	client := adb.NewClient("127.0.0.1:5037")
	cfg.OpenDevice = func(ctx context.Context, target string) (engine.Device, func(), error) {
		if target == "" {
			target = s.Serial()
		}
		d, err := client.Open(ctx, adb.Target{Serial: target})
		if err != nil {
			return nil, nil, err
		}
		return d, func() { mu.Lock(); released++; mu.Unlock() }, nil
	}
	if cfg.StateDir == "" {
		cfg.StateDir = t.TempDir()
	}
	return run.New(cfg), &released
}

func writeFile(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
	return p
}

func TestPlaybookRunsAndReportsEvents(t *testing.T) {
	svc, released := newService(t, run.Config{})
	var all recorder
	defer svc.Subscribe(all.add)()
	var own recorder
	file := writeFile(t, "wifi.yaml", `name: wifi off
steps:
  - launch: {app: com.android.settings, stop: true}
  - assert_visible: Wi-Fi
  - tap: {id: wifi_switch, label: turn Wi-Fi off}
`)
	res, err := svc.Playbook(t.Context(), run.PlaybookOptions{File: file, Events: own.add})
	require.NoError(t, err)
	assert.True(t, res.Passed(), res.Error)
	assert.Equal(t, "wifi off", res.Name)
	require.Len(t, res.Steps, 3)
	assert.Equal(t, "turn Wi-Fi off", res.Steps[2].Label)
	assert.FileExists(t, filepath.Join(res.OutputDir, "steps.json"))
	assert.Equal(t, 1, *released, "the device is released once when the run ends")

	kinds := own.kinds()
	require.NotEmpty(t, kinds)
	assert.Equal(t, run.KindRunStart, kinds[0])
	assert.Equal(t, run.KindRunEnd, kinds[len(kinds)-1])
	assert.Equal(t, kinds, all.kinds(), "subscribers see the same events as the run's own sink")
	end := own.of(run.KindRunEnd)[0]
	assert.True(t, end.End.Success)
	assert.Equal(t, run.RunPlaybook, end.Run.Kind)

	starts, ends := own.of(run.KindStepStart), own.of(run.KindStepEnd)
	require.Len(t, ends, 3)
	assert.Len(t, starts, 3)
	assert.Equal(t, "passed", ends[2].Step.Status)
	assert.Equal(t, 5, ends[2].Step.Line, "steps carry their YAML line")
	assert.Equal(t, file, ends[2].Step.File)
	prog := own.of(run.KindProgress)
	require.Len(t, prog, 3)
	assert.Equal(t, 3, prog[2].Progress.Done)
	require.Len(t, own.of(run.KindDeviceReady), 1)
	assert.True(t, own.of(run.KindDeviceReady)[0].Ready.Ready)

	roles := map[string]string{}
	for _, ev := range own.of(run.KindArtifact) {
		roles[ev.Artifact.Role] = ev.Artifact.Path
	}
	assert.Equal(t, filepath.Join(res.OutputDir, "log.txt"), roles["log"])
	assert.Equal(t, filepath.Join(res.OutputDir, "steps.json"), roles["steps"])
	assert.Equal(t, filepath.Join(res.OutputDir, "playbook.lua"), roles["lua"])
	ids := map[string]bool{}
	for _, ev := range own.events {
		ids[ev.RunID] = true
	}
	assert.Len(t, ids, 1, "every event names the run")
}

func TestPlaybookFailureIsAResultWithArtifacts(t *testing.T) {
	svc, _ := newService(t, run.Config{})
	var own recorder
	file := writeFile(t, "fail.yaml", `name: missing
steps:
  - launch: {app: com.android.settings, stop: true}
  - assert_visible: {text: No Such Row, timeout: 300ms}
`)
	res, err := svc.Playbook(t.Context(), run.PlaybookOptions{File: file, Events: own.add})
	require.NoError(t, err, "a failing playbook is a result, not an error")
	assert.Equal(t, "failed", res.Status)
	assert.Contains(t, res.Error, "No Such Row")
	assert.Contains(t, res.Artifacts, filepath.Join(res.OutputDir, "failure.png"))
	end := own.of(run.KindRunEnd)
	require.Len(t, end, 1)
	assert.False(t, end[0].End.Success)
	assert.Contains(t, end[0].End.Message, "No Such Row")
	var roles []string
	for _, ev := range own.of(run.KindArtifact) {
		roles = append(roles, ev.Artifact.Role)
	}
	assert.Contains(t, roles, "failure_png")
	assert.Contains(t, roles, "failure_xml")
}

func TestPlaybookCompileErrorNamesTheLine(t *testing.T) {
	svc := run.New(run.Config{StateDir: t.TempDir()})
	file := writeFile(t, "bad.yaml", "name: bad\nsteps:\n  - tapp: OK\n")
	res, err := svc.Playbook(t.Context(), run.PlaybookOptions{File: file})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bad.yaml:3")
	assert.Equal(t, "failed", res.Status)
}

func TestScriptWithoutDeviceAndItsEvents(t *testing.T) {
	svc := run.New(run.Config{}) // no device opener: a script that never touches the phone still runs
	var own recorder
	var printed []string
	res, err := svc.Script(t.Context(), run.ScriptOptions{Name: "hello.lua", Args: []string{"ada"},
		Source: []byte(`local who = ...
events.emit("greeting", {who = who})
print("hi " .. who)
assert.eq(1, 1)`),
		Print: func(s string) { printed = append(printed, s) }, Events: own.add})
	require.NoError(t, err)
	assert.True(t, res.Success)
	assert.Equal(t, []string{"hi ada"}, printed)
	custom := own.of("greeting")
	require.Len(t, custom, 1)
	assert.Equal(t, "ada", custom[0].Fields["who"])
	assert.Equal(t, run.KindRunEnd, own.kinds()[len(own.kinds())-1])
}

func TestScriptErrorIsAScriptError(t *testing.T) {
	svc := run.New(run.Config{})
	var own recorder
	res, err := svc.Script(t.Context(), run.ScriptOptions{Name: "boom.lua", Source: []byte("local x = 1\nerror('boom')\n"), Events: own.add})
	var se *lua.ScriptError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 2, se.Line)
	assert.False(t, res.Success)
	end := own.of(run.KindRunEnd)
	require.Len(t, end, 1)
	assert.False(t, end[0].End.Success)
	assert.Contains(t, end[0].End.Message, "boom")
}

func TestReplayStepsAndFailedCheck(t *testing.T) {
	svc, _ := newService(t, run.Config{})
	var own recorder
	src := `local events, app = require("events"), require("app")
events.emit("step_start", {id = 1, label = "open settings"})
app.launch("com.android.settings")
events.emit("step_end", {id = 1, label = "open settings", status = "passed"})
events.emit("step_end", {id = 2, label = "find row", status = "failed", expected = "row X", saw = "app com.android.settings"})
error("expected row X")`
	res, err := svc.Replay(t.Context(), run.ReplayOptions{Skill: "demo.lua", Source: []byte(src), Events: own.add})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "replay stopped at step 2 (find row): expected row X")
	assert.Equal(t, 1, res.Passed)
	assert.Len(t, res.Steps, 2)
	assert.False(t, res.Success)
	assert.Len(t, own.of(run.KindStepEnd), 2)
	assert.Equal(t, "demo", own.of(run.KindRunStart)[0].Run.Name)
}

func TestSnapshotAndActOnTheTarget(t *testing.T) {
	svc, released := newService(t, run.Config{})
	out, err := svc.Act(t.Context(), run.ActOptions{Action: action.Action{Type: "launch_app", Params: map[string]any{"packageName": "com.android.settings"}}})
	require.NoError(t, err, "%+v", out)
	snap, err := svc.Snapshot(t.Context(), run.SnapshotOptions{Capture: device.CaptureOptions{}})
	require.NoError(t, err)
	assert.Equal(t, "com.android.settings", snap.CurrentApp)
	// The first open's device drives the kept phone until Close; the
	// second call's open is given back when the call ends.
	assert.Equal(t, 1, *released)
	svc.Close()
	assert.Equal(t, 2, *released)
	_, err = svc.Act(t.Context(), run.ActOptions{Action: action.Action{Type: "read", Params: map[string]any{"path": "x"}}})
	assert.ErrorIs(t, err, run.ErrNotDeviceAction)
}

func TestSubscribeCancelStopsDelivery(t *testing.T) {
	svc := run.New(run.Config{})
	var a, b recorder
	cancelA := svc.Subscribe(a.add)
	defer svc.Subscribe(b.add)()
	_, err := svc.Script(t.Context(), run.ScriptOptions{Name: "one.lua", Source: []byte("return 1")})
	require.NoError(t, err)
	cancelA()
	_, err = svc.Script(t.Context(), run.ScriptOptions{Name: "two.lua", Source: []byte("return 2")})
	require.NoError(t, err)
	assert.Len(t, a.of(run.KindRunEnd), 1)
	assert.Len(t, b.of(run.KindRunEnd), 2)
	ends := b.of(run.KindRunEnd)
	assert.NotEqual(t, ends[0].RunID, ends[1].RunID)
}

func TestNotReadyWhenTheDeviceCannotBeOpened(t *testing.T) {
	svc := run.New(run.Config{OpenDevice: func(context.Context, string) (engine.Device, func(), error) {
		return nil, nil, errors.New("no devices attached")
	}, StateDir: t.TempDir()})
	_, err := svc.Replay(t.Context(), run.ReplayOptions{Skill: "x.lua", Source: []byte("return 1")})
	var nr *run.NotReadyError
	require.ErrorAs(t, err, &nr)
	assert.Contains(t, err.Error(), "no devices attached")
}
