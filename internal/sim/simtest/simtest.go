// Package simtest starts virtual phones for tests: attached to the real adb
// server, cleaned up with the test, skipped with a clear message where adb
// is not installed (and failed instead in CI, which must have it).
package simtest

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/openpocket/openpocket/internal/sim"
)

// startTimeout bounds starting and attaching one phone.
const startTimeout = 30 * time.Second

// Start ensures the adb server runs, starts a virtual phone on a free port,
// attaches it and registers its Close with t.Cleanup. Options may adjust
// sim.Options (size, model, adb server address) before the start.
func Start(t testing.TB, opts ...func(*sim.Options)) *sim.Sim {
	t.Helper()
	RequireADB(t)
	o := sim.Options{Attach: true}
	for _, opt := range opts {
		opt(&o)
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	s, err := sim.Start(ctx, o)
	if err != nil {
		t.Fatalf("start virtual phone: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close virtual phone: %v", err)
		}
	})
	return s
}

// RequireADB skips t when the adb binary is missing, or fails it when the
// CI environment variable is "true".
func RequireADB(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("adb"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("adb not installed: run make setup (CI must install adb)")
		}
		t.Skip("adb not installed: run make setup")
	}
}

// WithSize sets the physical screen size in pixels.
func WithSize(width, height int) func(*sim.Options) {
	return func(o *sim.Options) { o.Width, o.Height = width, height }
}

// WithDensity sets the screen density in dpi.
func WithDensity(dpi int) func(*sim.Options) {
	return func(o *sim.Options) { o.Density = dpi }
}

// WithModel sets ro.product.model.
func WithModel(model string) func(*sim.Options) {
	return func(o *sim.Options) { o.Model = model }
}

// Shared is one virtual phone for a whole test binary: device tests take it
// in turn (under a lock, reset to first boot), so a package's tests do not
// each pay for a start and an attach. Start it in TestMain:
//
//	var phone simtest.Shared
//	func TestMain(m *testing.M) { os.Exit(phone.Run(m)) }
type Shared struct {
	mu       sync.Mutex
	sim      *sim.Sim
	startErr error
}

// Run starts the phone (when adb is installed), runs the tests and closes
// it; it returns m.Run's exit code.
func (s *Shared) Run(m *testing.M) int {
	if _, err := exec.LookPath("adb"); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		s.sim, s.startErr = sim.Start(ctx, sim.Options{Attach: true})
		cancel()
	}
	code := m.Run()
	if s.sim != nil {
		s.sim.Close()
	}
	return code
}

// Take gives t the phone, reset to its first-boot state, until t ends.
func (s *Shared) Take(t testing.TB) *sim.Sim {
	t.Helper()
	RequireADB(t)
	if s.sim == nil {
		t.Fatalf("virtual phone did not start: %v", s.startErr)
	}
	s.mu.Lock()
	t.Cleanup(s.mu.Unlock)
	s.sim.Phone().Reset()
	return s.sim
}
