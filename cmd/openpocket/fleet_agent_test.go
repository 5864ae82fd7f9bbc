package main_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
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

var anyStartLine = regexp.MustCompile(`job (\S+) started \((\w+)\)`)

// agentFleetJobs adds the fleet's two jobs to the jobs file of agent in
// home (args select it): "warm" at startup (VOLUME_UP) and "shopjob"
// every 5 s naming agent shop (VOLUME_DOWN), and "ghostjob" naming an
// agent no host has; the agents written in by hand as users do.
func agentFleetJobs(t *testing.T, env []string, ws string, args ...string) {
	up := writeFile(t, ws, "warm.lua", `require("device").key("KEYCODE_VOLUME_UP")`+"\n")
	down := writeFile(t, ws, "shop.lua", `require("device").key("KEYCODE_VOLUME_DOWN")`+"\n")
	r := runBinary(t, env, append(args, "cron", "add", "--id", "warm", "--every", "1h", "--run-on-startup", "--lua", up)...)
	require.Equal(t, 0, r.code, r.stderr)
	for _, id := range []string{"shopjob", "ghostjob"} {
		r = runBinary(t, env, append(args, "cron", "add", "--id", id, "--every", "5s", "--lua", down)...)
		require.Equal(t, 0, r.code, r.stderr)
	}
	path := filepath.Join(ws, "cron", "jobs.json")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var f map[string]any
	require.NoError(t, json.Unmarshal(data, &f))
	for _, j := range f["jobs"].([]any) {
		switch j := j.(map[string]any); j["id"] {
		case "shopjob":
			j["agent"] = "shop"
		case "ghostjob":
			j["agent"] = "ghost"
		}
	}
	data, err = json.MarshalIndent(f, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

// fleetConfig joins the home at dir to the fleet as host, offering phone.
func fleetConfig(t *testing.T, dir, redisURL, host string, phone *sim.Sim, target bool) {
	h, err := workspace.Open(dir)
	require.NoError(t, err)
	cfg := h.Config()
	if target {
		cfg.Target.Device = phone.Serial()
	}
	cfg.Fleet = workspace.FleetConfig{RedisURL: redisURL, HostName: host, Phones: []string{phone.Serial()}}
	require.NoError(t, h.SaveConfig(cfg))
}

// TestFleetAgentJobAndStartupOnce: two hosts, the first's gateway serving
// agent "shop" (bound to its phone), the second the default agent, share
// a job naming agent shop and a runOnStartup job. The agent's job runs
// only on the first host and its phone; a job naming an agent no host
// has never runs and is reported; the startup job runs once across the
// fleet.
func TestFleetAgentJobAndStartupOnce(t *testing.T) {
	rs := redistest.Start(t)
	phones := [2]*sim.Sim{simtest.Start(t), simtest.Start(t)}
	env := []string{lease.DirEnv + "=" + t.TempDir(), workspace.EnvAgent + "="}
	dirs := [2]string{filepath.Join(t.TempDir(), "install0"), filepath.Join(t.TempDir(), "install1")}

	r := runBinary(t, env, "--home", dirs[0], "agents", "create", "shop")
	require.Equal(t, 0, r.code, r.stderr)
	r = runBinary(t, env, "--home", dirs[0], "--agent", "shop", "--device", phones[0].Serial(), "target", "set", "--type", "emulator")
	require.Equal(t, 0, r.code, r.stderr)
	shopDir := filepath.Join(dirs[0], "agents", "shop")
	fleetConfig(t, shopDir, rs.URL(), "host0", phones[0], false)
	agentFleetJobs(t, env, filepath.Join(shopDir, "workspace"), "--home", dirs[0], "--agent", "shop")
	fleetConfig(t, dirs[1], rs.URL(), "host1", phones[1], true)
	agentFleetJobs(t, env, filepath.Join(dirs[1], "workspace"), "--home", dirs[1])

	var mu sync.Mutex
	starts := map[string][]int{} // job → hosts that started it
	var logs [2]lockedBuilder
	var cmds []*exec.Cmd
	for i, args := range [][]string{{"--home", dirs[0], "--agent", "shop"}, {"--home", dirs[1]}} {
		cmd := exec.Command(binary, append(args, "gateway", "--stop-timeout", "10s")...)
		cmd.Env = append(append(os.Environ(), "OPENAI_API_KEY=", "ANDROID_SERIAL="), env...)
		pipe, err := cmd.StderrPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		cmds = append(cmds, cmd)
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		go func() {
			sc := bufio.NewScanner(pipe)
			for sc.Scan() {
				logs[i].Write([]byte(sc.Text() + "\n"))
				if m := anyStartLine.FindStringSubmatch(sc.Text()); m != nil {
					mu.Lock()
					starts[m[1]] = append(starts[m[1]], i)
					mu.Unlock()
				}
			}
		}()
	}
	count := func(job string) int { mu.Lock(); defer mu.Unlock(); return len(starts[job]) }
	deadline := time.Now().Add(40 * time.Second)
	reported := func() bool {
		return strings.Contains(logs[0].String()+logs[1].String(), "job ghostjob skipped: no host of the fleet can run it: agent ghost is on no live host")
	}
	for count("shopjob") < 2 || count("warm") < 1 || !reported() {
		require.True(t, time.Now().Before(deadline), "runs %v; host0:\n%s\nhost1:\n%s", starts, logs[0].String(), logs[1].String())
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(time.Second) // a second startup run would have begun by now
	for _, cmd := range cmds {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Len(t, starts["warm"], 1, "the startup job once across the fleet: %v", starts)
	assert.Equal(t, 1, keyCount(phones[0], 24)+keyCount(phones[1], 24), "one phone got the startup job's key once")
	for _, h := range starts["shopjob"] {
		assert.Equal(t, 0, h, "the shop agent's job ran on host %d\n%s", h, logs[1].String())
	}
	assert.Equal(t, len(starts["shopjob"]), keyCount(phones[0], 25), "shop's phone saw each run")
	assert.Zero(t, keyCount(phones[1], 25), "the default agent's phone never got shop's job")
	assert.Empty(t, starts["ghostjob"], "a job naming an agent no host has never runs")
}
