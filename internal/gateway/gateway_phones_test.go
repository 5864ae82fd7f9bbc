package gateway

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/gwenv"
	"github.com/openpocket/openpocket/internal/lease"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/internal/workspace"
)

// services counts the run services a gateway builds and records every
// event of every one of them.
type services struct {
	mu     sync.Mutex
	built  []*run.Service
	closed int
	events []run.Event
	// starts are the run_start events by service (in build order).
	starts map[int][]run.Event
}

// factory builds run services like the composition root's gateway
// factory: devices over the adb server, each run holding its device's
// lease (in the gateway's name) for exactly the run.
func (s *services) factory(stateDir string) func(cfg workspace.Config) (*run.Service, func()) {
	client := adb.NewClient("127.0.0.1:5037")
	return func(cfg workspace.Config) (*run.Service, func()) {
		svc := run.New(run.Config{StateDir: stateDir,
			OpenDevice: func(ctx context.Context, target string) (engine.Device, func(), error) {
				d, err := client.Open(ctx, adb.Target{Serial: target})
				return d, nil, err
			},
			Lease: func(ctx context.Context, serial string) (func(), error) {
				l, err := lease.Acquire(ctx, serial, lease.Options{Command: "openpocket gateway"})
				if err != nil {
					return nil, err
				}
				return func() { l.Release() }, nil
			},
			Agent: run.AgentDefaults{MaxSteps: cfg.Agent.MaxSteps},
		})
		s.mu.Lock()
		n := len(s.built)
		s.built = append(s.built, svc)
		s.mu.Unlock()
		svc.Subscribe(func(ev run.Event) {
			s.mu.Lock()
			s.events = append(s.events, ev)
			if ev.Kind == run.KindRunStart {
				if s.starts == nil {
					s.starts = map[int][]run.Event{}
				}
				s.starts[n] = append(s.starts[n], ev)
			}
			s.mu.Unlock()
		})
		return svc, func() {
			svc.Close()
			s.mu.Lock()
			s.closed++
			s.mu.Unlock()
		}
	}
}

func (s *services) count() (built, closed int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.built), s.closed
}

// runStarts are the run_start events by the device they target.
func (s *services) runStarts() map[string][]run.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string][]run.Event{}
	for _, ev := range s.events {
		if ev.Kind == run.KindRunStart {
			out[ev.Device] = append(out[ev.Device], ev)
		}
	}
	return out
}

// startPhoneGateway runs the gateway on home against the real adb server,
// with real run services (counted by svcs) and a fake clock.
func startPhoneGateway(t *testing.T, home string, svcs *services) *gwHarness {
	t.Helper()
	ws, err := workspace.Open(home)
	require.NoError(t, err)
	return startGatewayWith(t, home, Options{Gateway: gwenv.Gateway{Home: ws, Config: ws.Config(), NewService: svcs.factory(ws.State())}}, newFakeRuns())
}

// waitForGo is a job's Lua payload: it marks its phone, then holds it
// until the test puts /sdcard/go there.
const waitForGo = `assert(device.shell("echo started >> /sdcard/job.log"))
for i = 1, 1500 do
  if (device.shell("ls /sdcard") or ""):find("go", 1, true) then return end
  wait.ms(20)
end
error("never released")
`

func luaJob(id, serial, script string) string {
	return fmt.Sprintf(`{"id": %q, "name": %q, "enabled": true, "runOnStartup": true, "device": %q,
  "schedule": {"kind": "every", "everyMs": 3600000}, "payload": {"kind": "lua", "path": %q}}`, id, id, serial, script)
}

func phoneFile(s *sim.Sim, path string) string {
	b, err := s.Phone().Files().ReadFile(path)
	if err != nil {
		return ""
	}
	return string(b)
}

// holder is who holds serial's lease ("" = nobody).
func holder(serial string) string {
	h, err := lease.ReadHolder("", serial)
	if err != nil || h.PID == 0 {
		return ""
	}
	if l, err := lease.Acquire(context.Background(), serial, lease.Options{}); err == nil {
		_ = l.Release() // a stale record: nobody holds it
		return ""
	}
	return fmt.Sprintf("%d %s", h.PID, h.Command)
}

// TestGatewayJobsOnThreePhonesOneService: jobs on two phones run at the
// same time through the gateway's one run service, each holding its
// phone's lease for its run only; a job on a phone another process drives
// is skipped (cron.ErrBusy) without touching it.
func TestGatewayJobsOnThreePhonesOneService(t *testing.T) {
	t.Setenv(lease.DirEnv, t.TempDir())
	a, b, c := simtest.Start(t), simtest.Start(t), simtest.Start(t)
	other, err := lease.Acquire(t.Context(), c.Serial(), lease.Options{Command: "openpocket agent"})
	require.NoError(t, err)
	defer other.Release()

	script := "script.lua" // in the workspace: a hand-written job's file is read there
	home := newGwHome(t, nil, gwJobs(luaJob("ja", a.Serial(), script), luaJob("jb", b.Serial(), script), luaJob("jc", c.Serial(), script)))
	writeScript(t, home, waitForGo)
	var svcs services
	h := startPhoneGateway(t, home, &svcs)

	gw := fmt.Sprintf("%d openpocket gateway", os.Getpid())
	h.eventually("both jobs running at once, each holding its phone", func() bool {
		return strings.Contains(phoneFile(a, "/sdcard/job.log"), "started") && strings.Contains(phoneFile(b, "/sdcard/job.log"), "started") &&
			holder(a.Serial()) == gw && holder(b.Serial()) == gw
	})
	h.eventually("the job on the busy phone skipped", func() bool { return h.jobState("jc").LastStatus == cron.StatusSkipped })
	// The state is recorded before the line is printed.
	h.eventually("the skip printed", func() bool { return strings.Contains(h.stderr.String(), "job jc skipped: ") })
	assert.Contains(t, h.jobState("jc").LastMessage, "(openpocket agent)")
	assert.Empty(t, phoneFile(c, "/sdcard/job.log"), "the skipped job touched the busy phone")

	starts := svcs.runStarts()
	require.Len(t, starts[a.Serial()], 1)
	require.Len(t, starts[b.Serial()], 1)
	assert.NotEqual(t, starts[a.Serial()][0].RunID, starts[b.Serial()][0].RunID, "two runs of one service")
	assert.Empty(t, starts[c.Serial()], "the busy phone's run never started")
	built, _ := svcs.count()
	assert.Equal(t, 1, built, "one run service for all jobs")

	for _, s := range []*sim.Sim{a, b} {
		require.NoError(t, s.Phone().Files().WriteFile("/sdcard/go", []byte("go\n"), fs.FileMode(0o644), time.Now()))
	}
	h.eventually("both jobs ok", func() bool {
		return h.jobState("ja").LastStatus == cron.StatusOK && h.jobState("jb").LastStatus == cron.StatusOK
	})
	h.eventually("the leases given back when the runs ended", func() bool {
		return holder(a.Serial()) == "" && holder(b.Serial()) == ""
	})
	assert.Equal(t, "openpocket agent", mustHolder(t, c.Serial()).Command, "the other process keeps its phone")
	require.NoError(t, h.stop())
	_, closed := svcs.count()
	assert.Equal(t, 1, closed, "the service closes when the gateway stops")
}

func mustHolder(t *testing.T, serial string) lease.Holder {
	t.Helper()
	h, err := lease.ReadHolder("", serial)
	require.NoError(t, err)
	return h
}

// TestGatewayReloadBuildsANewService: SIGUSR1's reload makes a run
// service from the new config for the next runs; a run started before
// finishes on the old one, which closes when it ends.
func TestGatewayReloadBuildsANewService(t *testing.T) {
	t.Setenv(lease.DirEnv, t.TempDir())
	a := simtest.Start(t)
	home := newGwHome(t, nil, gwJobs(luaJob("ja", a.Serial(), "script.lua")))
	writeScript(t, home, waitForGo)
	var svcs services
	h := startPhoneGateway(t, home, &svcs)
	h.eventually("the job running", func() bool { return strings.Contains(phoneFile(a, "/sdcard/job.log"), "started") })

	ws, err := workspace.Open(home)
	require.NoError(t, err)
	cfg := ws.Config()
	cfg.Agent.MaxSteps = 7
	require.NoError(t, ws.SaveConfig(cfg))
	require.NoError(t, h.g.Reload())

	built, closed := svcs.count()
	require.Equal(t, 2, built, "the reload built a new service")
	assert.Equal(t, 0, closed, "the old one still runs the job started on it")
	svcs.mu.Lock()
	oldGen, newGen := svcs.built[0], svcs.built[1]
	svcs.mu.Unlock()
	assert.Equal(t, 7, newGen.Config().Agent.MaxSteps, "the new service has the new config")
	assert.NotEqual(t, 7, oldGen.Config().Agent.MaxSteps)
	h.g.mu.Lock()
	assert.Same(t, newGen, h.g.gen.svc, "the next runs use the new service")
	h.g.mu.Unlock()

	require.NoError(t, a.Phone().Files().WriteFile("/sdcard/go", []byte("go\n"), fs.FileMode(0o644), time.Now()))
	h.eventually("the job ok", func() bool { return h.jobState("ja").LastStatus == cron.StatusOK })
	h.eventually("the old service closed after its run", func() bool { _, closed := svcs.count(); return closed == 1 })
	starts := svcs.runStarts()
	require.Len(t, starts[a.Serial()], 1)

	// The next run starts on the new service.
	require.NoError(t, h.g.sched.RunNow(t.Context(), "ja"))
	svcs.mu.Lock()
	assert.Len(t, svcs.starts[0], 1, "the old service ran the first run only")
	assert.Len(t, svcs.starts[1], 1, "the run after the reload is the new service's")
	svcs.mu.Unlock()
	require.NoError(t, h.stop())
	_, closed = svcs.count()
	assert.Equal(t, 2, closed)
}

// writeScript writes a job's script.lua into home's workspace.
func writeScript(t *testing.T, home, src string) {
	t.Helper()
	p := filepath.Join(home, "workspace", "script.lua")
	require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
}
