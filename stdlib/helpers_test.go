package stdlib_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/lua"
	"github.com/openpocket/openpocket/stdlib"
)

// One virtual phone for the whole test binary: each device test takes it
// reset to its first-boot state (tests with a device do not run in
// parallel).
var phone simtest.Shared

func TestMain(m *testing.M) { os.Exit(phone.Run(m)) }

// rig is one test's run: a session bound to the shared virtual phone and a
// VM with every module auto-required as a global.
type rig struct {
	t    *testing.T
	sim  *sim.Sim
	sess *engine.Session
	vm   *lua.VM
	logs *syncBuffer
	evs  []engine.Event
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newRig(t *testing.T) *rig {
	t.Helper()
	shared := phone.Take(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	tr, err := adb.NewClient("").Open(ctx, adb.Target{Serial: shared.Serial()})
	require.NoError(t, err)
	r := newSessionRig(t, ctx, device.NewPhone(tr, device.Options{SettleTimeout: time.Second, SettleInterval: 50 * time.Millisecond}))
	r.sim = shared
	return r
}

// newSessionRig builds a rig; phone may be nil (no device).
func newSessionRig(t *testing.T, ctx context.Context, phone *device.Phone) *rig {
	r := &rig{t: t, logs: &syncBuffer{}}
	eng := &engine.Engine{Logger: slog.New(slog.NewTextHandler(r.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	if phone == nil {
		eng.OpenDevice = func(context.Context) (engine.Device, error) {
			return nil, errors.New("no device in this test")
		}
	}
	sess, err := eng.NewSession(ctx, engine.SessionOptions{Task: "stdlib test", Phone: phone, OnEvent: func(e engine.Event) { r.evs = append(r.evs, e) }})
	require.NoError(t, err)
	vm, err := stdlib.NewVM(ctx, sess, lua.Options{AutoRequire: true, Print: func(s string) { t.Log(s) }})
	require.NoError(t, err)
	t.Cleanup(vm.Close)
	r.sess, r.vm = sess, vm
	return r
}

// eval evaluates a Lua expression or statements and returns its values.
func (r *rig) eval(src string, args ...any) []any {
	r.t.Helper()
	out, err := r.vm.Eval(fmt.Sprintf(src, args...))
	if err != nil {
		r.t.Fatalf("eval %s: %v", src, err)
	}
	return out
}

// evalErr evaluates and returns the error (nil when none).
func (r *rig) evalErr(src string) error {
	r.t.Helper()
	_, err := r.vm.Eval(src)
	return err
}

// run runs statements.
func (r *rig) run(src string) {
	r.t.Helper()
	if err := r.vm.Run("test.lua", []byte(src)); err != nil {
		r.t.Fatalf("run: %v", err)
	}
}

// eventually polls cond (sim state settles asynchronously only through adb
// round trips, so it is usually true at once).
func eventually(t *testing.T, cond func() bool, msg string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func timeAfter(ms int) <-chan time.Time { return time.After(time.Duration(ms) * time.Millisecond) }

func nowMs() int64 { return time.Now().UnixMilli() }
