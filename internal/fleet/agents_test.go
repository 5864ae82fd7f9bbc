package fleet_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/fleet"
	"github.com/openpocket/openpocket/internal/fleet/redistest"
)

// agentHost joins the fleet as name, its gateway serving agent, its
// install holding agents, with phones.
func agentHost(t testing.TB, rs *redistest.Server, name, agent string, agents []fleet.AgentPhone, phones ...fleet.Phone) *fleet.Fleet {
	f, err := fleet.Open(fleet.Options{URL: rs.URL(), Host: name, Every: 200 * time.Millisecond, Agent: agent,
		Agents: func(context.Context) ([]fleet.AgentPhone, error) { return agents, nil },
		Phones: func(context.Context) ([]fleet.Phone, error) { return phones, nil }})
	require.NoError(t, err)
	f.Start()
	t.Cleanup(func() { f.Close() })
	return f
}

// TestPlacementByAgent: a job naming an agent runs on the host whose
// gateway serves that agent with its bound phone online, on that phone;
// every other host leaves it to that one; an agent no live host can run
// is nowhere, with a reason that says what is missing.
func TestPlacementByAgent(t *testing.T) {
	rs := redistest.Start(t)
	a := agentHost(t, rs, "a", "shop", []fleet.AgentPhone{{ID: "default"}, {ID: "shop", Phone: "10.0.0.7:5555/EMU1"}},
		fleet.Phone{Serial: "EMU1", State: "device"}, fleet.Phone{Serial: "R58M1234", State: "device"})
	b := agentHost(t, rs, "b", "default", []fleet.AgentPhone{{ID: "default", Phone: "R58M1234"}, {ID: "tv", Phone: "TV1"}},
		fleet.Phone{Serial: "R58M1234", State: "device"}, fleet.Phone{Serial: "TV1", State: "device"})
	c := agentHost(t, rs, "c", "lab", []fleet.AgentPhone{{ID: "lab", Phone: "GONE1"}},
		fleet.Phone{Serial: "OTHER", State: "device"})
	ctx := context.Background()
	where := func(f *fleet.Fleet, agent string) cron.Placement {
		p, err := f.Place(ctx, cron.Job{ID: "j", Agent: agent})
		require.NoError(t, err)
		return p
	}
	shop := where(a, "shop")
	assert.Equal(t, cron.Here, shop.Where)
	assert.Equal(t, "EMU1", shop.Device, "the run uses the agent's bound phone, by its serial here")
	for _, f := range []*fleet.Fleet{b, c} {
		p := where(f, "shop")
		assert.Equal(t, cron.Elsewhere, p.Where, f.Host())
		assert.Contains(t, p.Reason, "agent shop is on a")
	}
	def := where(b, "default")
	assert.Equal(t, cron.Here, def.Where)
	assert.Equal(t, "R58M1234", def.Device)
	assert.Equal(t, cron.Elsewhere, where(a, "default").Where,
		"a has R58M1234 online and a default agent, but its gateway serves shop: b's gateway runs default")

	tv := where(a, "tv")
	assert.Equal(t, cron.Nowhere, tv.Where, "an agent whose gateway runs nowhere")
	assert.Contains(t, tv.Reason, "agent tv is on b but no gateway of it is in the fleet")
	lab := where(a, "lab")
	assert.Equal(t, cron.Nowhere, lab.Where, "an agent whose phone is not attached")
	assert.Contains(t, lab.Reason, "phone GONE1 is not online on c")
	ghost := where(c, "ghost")
	assert.Equal(t, cron.Nowhere, ghost.Where)
	assert.Contains(t, ghost.Reason, "agent ghost is on no live host")

	hosts, err := a.Hosts(ctx)
	require.NoError(t, err)
	for _, h := range hosts {
		if h.Host == "b" {
			assert.Equal(t, "default", h.Agent)
			assert.Equal(t, []fleet.AgentPhone{{ID: "default", Phone: "R58M1234"}, {ID: "tv", Phone: "TV1"}}, h.Agents, "presence publishes the install's agents")
		}
	}
}

// startupRun is one run a host's scheduler made.
type startupRun struct{ host, device string }

// startupHost starts a scheduler on fl with jobs, recording its runs.
func startupHost(t *testing.T, fl *fleet.Fleet, jobs string, mu *sync.Mutex, runs *[]startupRun) *cron.Scheduler {
	dir := t.TempDir()
	jobsPath := filepath.Join(dir, "workspace", "cron", "jobs.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(jobsPath), 0o755))
	require.NoError(t, os.WriteFile(jobsPath, []byte(jobs), 0o644))
	r := cron.RunnerFunc(func(_ context.Context, j cron.Job) (bool, string, error) {
		mu.Lock()
		*runs = append(*runs, startupRun{fl.Host(), j.Device})
		mu.Unlock()
		return true, "ok", nil
	})
	s, err := cron.New(jobsPath, filepath.Join(dir, "state", "cron-state.json"), r,
		cron.Options{Clock: clockwork.NewRealClock(), Location: time.UTC, Fleet: fl})
	require.NoError(t, err)
	require.NoError(t, s.Start(context.Background()))
	t.Cleanup(func() { _ = s.Stop(context.Background()) })
	return s
}

func startupJobs(task string) string {
	return `{"version": 2, "jobs": [` +
		`{"id": "warm", "enabled": true, "runOnStartup": true, "schedule": {"kind": "every", "everyMs": 3600000}, "payload": {"kind": "agent_turn", "task": "` + task + `"}},` +
		`{"id": "shopwarm", "enabled": true, "runOnStartup": true, "agent": "shop", "schedule": {"kind": "every", "everyMs": 3600000}, "payload": {"kind": "agent_turn", "task": "open the shop"}}]}`
}

// TestStartupRunClaimedOnce: three hosts starting with the same
// runOnStartup jobs run each once across the fleet (the agent's job on
// the agent's host and phone); a host restarting the same day does not
// run them again; an edited job runs again at the next start.
func TestStartupRunClaimedOnce(t *testing.T) {
	rs := redistest.Start(t)
	phone := fleet.Phone{Serial: "EMU1", State: "device"}
	fls := []*fleet.Fleet{
		agentHost(t, rs, "a", "default", []fleet.AgentPhone{{ID: "default"}}, fleet.Phone{Serial: "P1", State: "device"}),
		agentHost(t, rs, "b", "shop", []fleet.AgentPhone{{ID: "shop", Phone: "EMU1"}}, phone),
		agentHost(t, rs, "c", "default", []fleet.AgentPhone{{ID: "default"}}, fleet.Phone{Serial: "P3", State: "device"}),
	}
	var mu sync.Mutex
	var runs []startupRun
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(runs) }
	for _, fl := range fls {
		startupHost(t, fl, startupJobs("warm up"), &mu, &runs)
	}
	require.Eventually(t, func() bool { return count() >= 2 }, 10*time.Second, 20*time.Millisecond)
	time.Sleep(500 * time.Millisecond) // a second run would have started by now
	mu.Lock()
	require.Len(t, runs, 2, "each startup job once across three hosts: %+v", runs)
	assert.Contains(t, runs, startupRun{"b", "EMU1"}, "the agent's startup job on its host and phone")
	mu.Unlock()

	startupHost(t, fls[0], startupJobs("warm up"), &mu, &runs) // a restart, same day, same jobs
	time.Sleep(700 * time.Millisecond)
	assert.Equal(t, 2, count(), "a restarted host does not run the startup jobs again")

	startupHost(t, fls[2], startupJobs("warm up twice"), &mu, &runs) // an edited job
	require.Eventually(t, func() bool { return count() == 3 }, 10*time.Second, 20*time.Millisecond)
	time.Sleep(300 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	assert.Len(t, runs, 3, "only the edited job runs again: %+v", runs)
	assert.Equal(t, "c", runs[2].host)
}
