package skills_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/internal/skills"
	"github.com/openpocket/openpocket/stdlib/skillsmod"
)

// One virtual phone for the test binary; device tests take it in turn.
var phone simtest.Shared

func TestMain(m *testing.M) { os.Exit(phone.Run(m)) }

func takePhone(t testing.TB) *sim.Sim { t.Helper(); return phone.Take(t) }

// counting counts device round trips.
type counting struct {
	device.Transport
	n atomic.Int64
}

func (c *counting) Shell(ctx context.Context, cmd string) (device.ShellResult, error) {
	c.n.Add(1)
	return c.Transport.Shell(ctx, cmd)
}

func (c *counting) ExecOut(ctx context.Context, cmd string) ([]byte, error) {
	c.n.Add(1)
	return c.Transport.ExecOut(ctx, cmd)
}

func (c *counting) Push(ctx context.Context, p string, data []byte, mode os.FileMode) error {
	c.n.Add(1)
	return c.Transport.Push(ctx, p, data, mode)
}

func (c *counting) Pull(ctx context.Context, p string) ([]byte, error) {
	c.n.Add(1)
	return c.Transport.Pull(ctx, p)
}

var fastPhone = device.Options{SettleTimeout: time.Second, SettleInterval: 50 * time.Millisecond}

// openPhone opens a fresh phone (no cached screen size) on s.
func openPhone(t testing.TB, s *sim.Sim) (*device.Phone, *counting) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tr, err := adb.NewClient("").Open(ctx, adb.Target{Serial: s.Serial()})
	if err != nil {
		t.Fatalf("open device: %v", err)
	}
	c := &counting{Transport: tr}
	return device.NewPhone(c, fastPhone), c
}

// recorder drives the phone the way the agent loop does — capture (scaled
// screenshot, set-of-mark, element list), decide (an instant scripted
// "model"), execute with observation — and records engine.TraceSteps.
type recorder struct {
	t     testing.TB
	ctx   context.Context
	phone *device.Phone
	dir   string
	steps []engine.TraceStep
	snap  *screen.Snapshot
}

func newRecorder(t testing.TB, phone *device.Phone) *recorder {
	return &recorder{t: t, ctx: context.Background(), phone: phone, dir: t.TempDir()}
}

func (r *recorder) capture() *screen.Snapshot {
	r.t.Helper()
	snap, err := r.phone.Capture(r.ctx, device.CaptureOptions{Scaled: true, SOM: true, Installed: len(r.steps) == 0})
	if err != nil {
		r.t.Fatalf("capture: %v", err)
	}
	r.snap = snap
	return snap
}

func (r *recorder) exec(thought string, a action.Action, snap *screen.Snapshot, target bool) engine.TraceStep {
	r.t.Helper()
	out, err := r.phone.Execute(r.ctx, a, device.ActOptions{Snapshot: snap, Scaled: true, Observe: true})
	if err != nil {
		r.t.Fatalf("step %d %s: %v", len(r.steps)+1, a.Type, err)
	}
	st := engine.TraceStep{Step: len(r.steps) + 1, At: time.Now(), Thought: thought, Action: a, DeviceAction: out.Device,
		Result: out.Result, AppBefore: out.AppBefore, AppAfter: out.AppAfter, HashBefore: out.HashBefore,
		HashAfter: out.HashAfter, Changed: out.Changed}
	if st.AppBefore == "" {
		st.AppBefore = snap.CurrentApp
	}
	if target && out.Element != nil {
		st.Target = skills.TargetOfElement(snap, out.Element)
	}
	if len(r.steps) == 0 {
		p := filepath.Join(r.dir, "step-001.png")
		png, err := snap.FullPNG() // raw captures make the PNG on demand
		if err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(p, png, 0o644); err != nil {
			r.t.Fatal(err)
		}
		st.Screenshot = p
	}
	r.steps = append(r.steps, st)
	return st
}

func mustAction(t testing.TB, typ string, p map[string]any) action.Action {
	t.Helper()
	a, err := action.New(typ, p)
	if err != nil {
		t.Fatalf("action %s: %v", typ, err)
	}
	return a
}

func (r *recorder) launch(pkg string) {
	snap := r.capture()
	r.exec("Open "+pkg, mustAction(r.t, "launch_app", map[string]any{"packageName": pkg}), snap, false)
}

// tap taps the numbered element match picks (tap_element, as the model would).
func (r *recorder) tap(thought string, match func(screen.UIElement) bool) {
	r.t.Helper()
	snap := r.capture()
	for _, el := range snap.UIElements {
		if match(el) {
			r.exec(thought, mustAction(r.t, "tap_element", map[string]any{"elementId": el.ID}), snap, true)
			return
		}
	}
	var labels []string
	for _, el := range snap.UIElements {
		labels = append(labels, el.ID+":"+el.Text+"/"+el.ResourceID)
	}
	r.t.Fatalf("no element to tap for %q among %s", thought, strings.Join(labels, ", "))
}

func (r *recorder) typeText(text string) {
	snap := r.capture()
	r.exec("Type "+text, mustAction(r.t, "type", map[string]any{"text": text}), snap, false)
}

// swipeUntil swipes up (scrolling down) until match is in the element list.
func (r *recorder) swipeUntil(match func(screen.UIElement) bool) {
	r.t.Helper()
	for range 12 {
		snap := r.capture()
		for _, el := range snap.UIElements {
			if match(el) {
				return
			}
		}
		w, h := snap.ScaledWidth, snap.ScaledHeight
		a := mustAction(r.t, "swipe", map[string]any{"x1": w / 2, "y1": h * 3 / 4, "x2": w / 2, "y2": h * 2 / 5, "durationMs": 300})
		r.exec("Scroll down to find the contact", a, snap, false)
	}
	r.t.Fatal("swipeUntil: never found the element")
}

func (r *recorder) humanAuth(capability string) {
	snap := r.capture()
	a := mustAction(r.t, "request_human_auth", map[string]any{"capability": capability, "instruction": "Enter the code sent to your phone"})
	r.steps = append(r.steps, engine.TraceStep{Step: len(r.steps) + 1, At: time.Now(), Thought: "Need the OTP from the user",
		Action: a, DeviceAction: a, Result: "Human auth approved", AppBefore: snap.CurrentApp, AppAfter: snap.CurrentApp})
}

func (r *recorder) finish(msg string) {
	snap := r.capture()
	r.exec("Done", mustAction(r.t, "finish", map[string]any{"message": msg}), snap, false)
}

func byID(suffix string) func(screen.UIElement) bool {
	return func(el screen.UIElement) bool { return strings.HasSuffix(el.ResourceID, suffix) }
}

func byText(text string) func(screen.UIElement) bool {
	return func(el screen.UIElement) bool { return el.Text == text }
}

// replay runs a generated script on a fresh session bound to phone.
func replay(t testing.TB, phone *device.Phone, src string, params map[string]string, onEvent func(engine.Event)) (skillsmod.Result, error) {
	t.Helper()
	eng := &engine.Engine{Logger: slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sess, err := eng.NewSession(ctx, engine.SessionOptions{Task: "replay", Phone: phone, OnEvent: onEvent})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Finish(true, "")
	return skillsmod.Run(ctx, sess, []byte(src), skillsmod.RunOptions{Name: "replay.lua", Params: params, Print: func(s string) { t.Log(s) }})
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
