package main_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/fleet/redistest"
	"github.com/openpocket/openpocket/internal/lease"
	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/internal/workspace"
)

// fleetStart is one "job X started" line of one host's gateway.
type fleetStart struct {
	host int
	job  string
	at   time.Time
}

// fleetHosts are the gateways of a fleet test, each a real process with
// its own home, watched through its stderr.
type fleetHosts struct {
	mu     sync.Mutex
	starts []fleetStart
	cmds   []*exec.Cmd
	errs   []*lockedBuilder
	homes  []string
}

var startLine = regexp.MustCompile(`^(\S+Z) job (\S+) started \(schedule\)`)

func (f *fleetHosts) watch(i int, r *bufio.Scanner, copyTo *lockedBuilder) {
	for r.Scan() {
		line := r.Text()
		copyTo.Write([]byte(line + "\n"))
		if m := startLine.FindStringSubmatch(line); m != nil {
			at, err := time.Parse(time.RFC3339, m[1])
			if err == nil {
				f.mu.Lock()
				f.starts = append(f.starts, fleetStart{host: i, job: m[2], at: at})
				f.mu.Unlock()
			}
		}
	}
}

// runsOf are the starts of job, in time order.
func (f *fleetHosts) runsOf(job string) []fleetStart {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []fleetStart
	for _, s := range f.starts {
		if s.job == job {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b fleetStart) int { return a.at.Compare(b.at) })
	return out
}

// waitRuns waits until job has run n more times than before (bounded).
func (f *fleetHosts) waitRuns(t *testing.T, job string, n int) []fleetStart {
	t.Helper()
	before := len(f.runsOf(job))
	deadline := time.Now().Add(time.Duration(n)*5*time.Second + 20*time.Second)
	for len(f.runsOf(job)) < before+n {
		if time.Now().After(deadline) {
			t.Fatalf("job %s ran %d times, want %d more; stderr of the hosts:\n%s", job, len(f.runsOf(job)), n, f.stderr())
		}
		time.Sleep(100 * time.Millisecond)
	}
	return f.runsOf(job)
}

func (f *fleetHosts) stderr() string {
	var b strings.Builder
	for i, e := range f.errs {
		fmt.Fprintf(&b, "--- host %d\n%s", i, e.String())
	}
	return b.String()
}

// fleetHome is host i's home: its own phone as target, the fleet's Redis.
func fleetHome(t *testing.T, env []string, redisURL string, i int, phone *sim.Sim, pinned string) string {
	home := filepath.Join(t.TempDir(), fmt.Sprintf("host%d", i))
	h, err := workspace.Open(home)
	require.NoError(t, err)
	cfg := h.Config()
	cfg.Target.Device = phone.Serial()
	cfg.Heartbeat.EverySec = 1
	cfg.Fleet = workspace.FleetConfig{RedisURL: redisURL, HostName: fmt.Sprintf("host%d", i), Phones: []string{phone.Serial()}}
	require.NoError(t, h.SaveConfig(cfg))
	// Each run lasts two seconds: the SIGKILL below lands mid-run.
	up := writeFile(t, h.Workspace(), "tick.lua", `require("device").key("KEYCODE_VOLUME_UP")`+"\n"+`require("wait").ms(2000)`+"\n")
	down := writeFile(t, h.Workspace(), "pinned.lua", `require("device").key("KEYCODE_VOLUME_DOWN")`+"\n")
	r := runBinary(t, env, "--home", home, "cron", "add", "--id", "tick", "--every", "5s", "--lua", up)
	require.Equal(t, 0, r.code, r.stderr)
	r = runBinary(t, env, "--home", home, "--device", pinned, "cron", "add", "--id", "pinned", "--every", "5s", "--lua", down)
	require.Equal(t, 0, r.code, r.stderr)
	return home
}

// keyCount is how often phone saw key code.
func keyCount(p *sim.Sim, code int) int {
	n := 0
	for _, k := range p.Phone().KeyLog() {
		if k == code {
			n++
		}
	}
	return n
}

// TestFleetRunsEachTickOnce is issue #35's done-when test: redis-server
// and three gateways (three homes, three virtual phones) share two
// "every 5s" jobs: "tick" (any host) and "pinned" (the first phone).
// Each tick of "tick" runs exactly once across the fleet; SIGKILL of the
// host running the last tick (mid-run) moves the next tick elsewhere; with Redis
// stopped for 15 s nothing runs, and nothing runs twice after; "pinned"
// only ever runs on the first host. The phones' key logs confirm the
// gateways' own lines.
func TestFleetRunsEachTickOnce(t *testing.T) {
	rs := redistest.Start(t)
	var phones [3]*sim.Sim
	for i := range phones {
		phones[i] = simtest.Start(t)
	}
	env := []string{lease.DirEnv + "=" + t.TempDir(), workspace.EnvAgent + "="}
	f := &fleetHosts{}
	for i := range phones {
		f.homes = append(f.homes, fleetHome(t, env, rs.URL(), i, phones[i], phones[0].Serial()))
	}
	f.start(t, env)

	// All three up: four ticks.
	f.waitRuns(t, "tick", 4)
	runs := f.runsOf("tick")
	victim := runs[len(runs)-1].host
	require.NoError(t, f.cmds[victim].Process.Signal(syscall.SIGKILL))
	_, _ = f.cmds[victim].Process.Wait()
	killedAt := time.Now()
	after := f.waitRuns(t, "tick", 2)
	next := after[len(after)-2]
	assert.NotEqual(t, victim, next.host, "the tick after the SIGKILL runs on another host")
	assert.True(t, next.at.After(killedAt.Add(-time.Second)))

	// Redis away for 15 s: nothing runs; then the fleet resumes.
	rs.Stop()
	downAt := time.Now()
	time.Sleep(15 * time.Second)
	upAt := time.Now()
	rs.Restart()
	f.waitRuns(t, "tick", 3)
	other := (victim + 1) % 3

	assertFleetPage(t, f.homes[other], other)

	for i, cmd := range f.cmds {
		if i != victim {
			_ = cmd.Process.Signal(os.Interrupt)
			_ = cmd.Wait()
		}
	}

	f.assertTicksOnce(t, outage{victim: victim, killedAt: killedAt, downAt: downAt, upAt: upAt})
	// The phones agree: each VOLUME_UP is one run on that host's phone.
	perHost := [3]int{}
	for _, s := range f.runsOf("tick") {
		perHost[s.host]++
	}
	for i, p := range phones {
		if i == victim {
			assert.LessOrEqual(t, keyCount(p, 24), perHost[i])
			continue
		}
		assert.Equal(t, perHost[i], keyCount(p, 24), "host %d's phone saw its runs", i)
	}

	// The pinned job ran, only on the first host, on the first phone.
	pinned := f.runsOf("pinned")
	require.NotEmpty(t, pinned)
	for _, s := range pinned {
		assert.Equal(t, 0, s.host, "pinned ran on host %d at %s", s.host, s.at)
	}
	assert.Positive(t, keyCount(phones[0], 25))
	assert.Zero(t, keyCount(phones[1], 25)+keyCount(phones[2], 25), "no other phone got the pinned job's key")

	f.assertSaidPaused(t, victim)
	assertFleetRecord(t, env, f.homes[other], victim)
}

// start runs each home's gateway as its own process.
func (f *fleetHosts) start(t *testing.T, env []string) {
	for i, home := range f.homes {
		cmd := exec.Command(binary, "--home", home, "gateway", "--stop-timeout", "10s")
		cmd.Env = append(append(os.Environ(), "OPENAI_API_KEY=", "ANDROID_SERIAL="), env...)
		pipe, err := cmd.StderrPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		f.cmds = append(f.cmds, cmd)
		f.errs = append(f.errs, &lockedBuilder{})
		go f.watch(i, bufio.NewScanner(pipe), f.errs[i])
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	}

}

// outage is what the test did to the fleet, and when.
type outage struct {
	victim                 int
	killedAt, downAt, upAt time.Time
}

// assertTicksOnce: each tick of "tick" ran exactly once, none while Redis
// was down, none missing outside the outage.
func (f *fleetHosts) assertTicksOnce(t *testing.T, o outage) {
	// Each tick exactly once, none missing outside the outage.
	ticks := map[int64][]int{}
	var first, last int64
	for _, s := range f.runsOf("tick") {
		k := s.at.Round(5*time.Second).Unix() / 5
		ticks[k] = append(ticks[k], s.host)
		if first == 0 {
			first = k
		}
		last = k
		// Lines have whole seconds: a run started in [at, at+1s).
		assert.False(t, s.at.After(o.downAt.Add(time.Second)) && s.at.Add(time.Second).Before(o.upAt), "host %d ran at %s, while Redis was down (%s..%s)", s.host, s.at, o.downAt, o.upAt)
	}
	for k := first; k <= last; k++ {
		at := time.Unix(k*5, 0)
		if at.After(o.downAt.Add(-time.Second)) && at.Before(o.upAt.Add(time.Second)) {
			continue
		}
		assert.Len(t, ticks[k], 1, "tick %s ran on hosts %v (host %d killed at %s, Redis down %s..%s)\n%s", at.UTC().Format(time.TimeOnly), ticks[k],
			o.victim, o.killedAt.UTC().Format(time.TimeOnly), o.downAt.UTC().Format(time.TimeOnly), o.upAt.UTC().Format(time.TimeOnly), f.stderr())
	}
}

// assertFleetPage: the manager dashboard's fleet view lists the live hosts.
func assertFleetPage(t *testing.T, home string, other int) {
	// The manager dashboard's fleet view lists the live hosts.
	resp, err := http.Get(startDashboard(t, home) + "/")
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Contains(t, string(page), `<section class="fleet"`)
	assert.Regexp(t, fmt.Sprintf(`host%d: alive, heartbeat \d+s ago; 127\.0\.0\.1:\d+ \(device`, other), string(page))
	assert.NotContains(t, string(page), "fleet jobs paused")

}

// assertSaidPaused: the surviving hosts said Redis was away, in their
// output and heartbeat.
func (f *fleetHosts) assertSaidPaused(t *testing.T, victim int) {
	for i := range f.homes {
		if i == victim {
			continue
		}
		assert.Contains(t, f.errs[i].String(), "fleet jobs paused")
		assert.Contains(t, f.errs[i].String(), "fleet jobs resume")
		hb, err := os.ReadFile(filepath.Join(f.homes[i], "state", "heartbeat.log"))
		require.NoError(t, err)
		assert.Contains(t, string(hb), `"fleet":"paused"`)
		assert.Contains(t, string(hb), `"fleet":"ok"`)
	}

}

// assertFleetRecord: fleet status and cron list --json read the fleet's
// record (runs since Redis came back: it keeps nothing across a restart
// here).
func assertFleetRecord(t *testing.T, env []string, home string, victim int) {
	r := runBinary(t, env, "--home", home, "fleet", "status", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var st struct {
		Hosts []struct {
			Host  string `json:"host"`
			Alive bool   `json:"alive"`
		} `json:"hosts"`
		LastRuns map[string]struct {
			Host   string `json:"host"`
			Status string `json:"status"`
		} `json:"lastRuns"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &st), r.stdout)
	assert.NotEmpty(t, st.LastRuns["tick"].Host)
	assert.NotEqual(t, fmt.Sprintf("host%d", victim), st.LastRuns["tick"].Host)
	r = runBinary(t, env, "--home", home, "cron", "list", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"fleetLastRun"`)
}
