package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/lease"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/internal/workspace"
)

// agentInstall makes an install with managed agents, each bound to its
// own virtual phone and answering to its own fake model server.
func agentInstall(t *testing.T, ids ...string) (home string, env []string, phones map[string]string, servers map[string]*llmtest.Server) {
	home, env, sims, servers := agentInstallSims(t, ids...)
	phones = map[string]string{}
	for id, s := range sims {
		phones[id] = s.Serial()
	}
	return home, env, phones, servers
}

// agentInstallSims is agentInstall returning the virtual phones.
func agentInstallSims(t *testing.T, ids ...string) (home string, env []string, sims map[string]*sim.Sim, servers map[string]*llmtest.Server) {
	t.Helper()
	home = filepath.Join(t.TempDir(), "install")
	env = []string{lease.DirEnv + "=" + t.TempDir(), workspace.EnvAgent + "="}
	sims, servers = map[string]*sim.Sim{}, map[string]*llmtest.Server{}
	in, err := workspace.OpenInstall(home)
	require.NoError(t, err)
	for _, id := range ids {
		sims[id] = simtest.Start(t)
		r := runBinary(t, env, "--home", home, "agents", "create", id)
		require.Equal(t, 0, r.code, r.stderr)
		r = runBinary(t, env, "--home", home, "--agent", id, "target", "set", "--type", "emulator", "--device", sims[id].Serial())
		require.Equal(t, 0, r.code, r.stderr)
		srv := llmtest.NewServer(t)
		servers[id] = srv
		h, err := in.OpenAgent(id)
		require.NoError(t, err)
		cfg := h.Config()
		cfg.Models = map[string]workspace.ModelProfile{"fake": {BaseURL: srv.BaseURL(), Model: "gpt-fake"}}
		cfg.DefaultModel, cfg.Agent.LoopDelayMs, cfg.Agent.ReturnHomeOnTaskEnd = "fake", 0, false
		require.NoError(t, h.SaveConfig(cfg))
	}
	return home, env, sims, servers
}

// readTree concatenates the text files below dir.
func readTree(t *testing.T, dir string) string {
	t.Helper()
	var sb strings.Builder
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".png") {
			return err
		}
		data, err := os.ReadFile(p)
		sb.Write(data)
		return err
	})
	require.NoError(t, err)
	return sb.String()
}

// TestTwoAgentsOnTwoPhonesAtOnce: two agents bound to two virtual phones
// run tasks at the same time (two processes, as two gateways would), each
// writing only its own sessions and memory; a third agent is refused.
func TestTwoAgentsOnTwoPhonesAtOnce(t *testing.T) {
	home, env, phones, servers := agentInstall(t, "alpha", "beta")
	for id, srv := range servers {
		srv.ReplyTool("launch_app", map[string]any{"packageName": "com.android.settings"})
		srv.ReplyTool("finish", map[string]any{"message": "done for " + id})
	}
	r := runBinary(t, env, "--home", home, "agents", "create", "gamma")
	require.Equal(t, 0, r.code, r.stderr)
	r = runBinary(t, env, "--home", home, "--agent", "gamma", "target", "set", "--type", "emulator", "--device", phones["alpha"])
	assert.Equal(t, 3, r.code)
	assert.Contains(t, r.stderr, `bound to agent "alpha"`)
	// A one-off --device honours another agent's binding too.
	r = runBinary(t, env, "--home", home, "--agent", "gamma", "--device", phones["beta"], "snapshot")
	assert.Equal(t, 3, r.code)
	assert.Contains(t, r.stderr, `bound to agent "beta"`)

	var wg sync.WaitGroup
	for id := range phones {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := runBinary(t, env, "--home", home, "--agent", id, "agent", "task of "+id)
			assert.Equal(t, 0, r.code, "%s: %s%s", id, r.stdout, r.stderr)
		}()
	}
	wg.Wait()
	for id := range phones {
		other := map[string]string{"alpha": "beta", "beta": "alpha"}[id]
		ws := filepath.Join(home, "agents", id, "workspace")
		sessions := readTree(t, filepath.Join(ws, "sessions"))
		assert.Contains(t, sessions, "task of "+id)
		assert.NotContains(t, sessions, "task of "+other)
		memory := readTree(t, filepath.Join(ws, "memory"))
		assert.Contains(t, memory, "task of "+id)
		assert.NotContains(t, memory, "task of "+other)
		assert.Len(t, servers[id].Requests(), 2, "%s used its own model", id)
	}
	assert.Empty(t, readTree(t, filepath.Join(home, "workspace", "sessions")), "the default agent ran nothing")
	r = runBinary(t, env, "--home", home, "--agent", "alpha", "target", "show")
	assert.Contains(t, r.stdout, "binding:  "+phones["alpha"]+" (exclusive", "ro.serialno equals the sim's serial, so the fingerprint stays the serial")
}

// TestKilledGatewayKeepsTheBinding: a gateway killed with SIGKILL leaves
// its binding in place; a new gateway starts over the stale lock, and the
// phone stays refused to other agents throughout.
func TestKilledGatewayKeepsTheBinding(t *testing.T) {
	home, env, phones, _ := agentInstall(t, "alpha")
	r := runBinary(t, env, "--home", home, "agents", "create", "beta")
	require.Equal(t, 0, r.code, r.stderr)
	lockPath := filepath.Join(home, "agents", "alpha", "state", "runtime", "gateway.lock.json")
	for round := 0; round < 2; round++ {
		cmd, stdout, stderr := start(t, home, "--agent", "alpha", "gateway")
		_ = stdout
		waitFor(t, "the gateway lock", func() bool {
			b, err := os.ReadFile(lockPath)
			return err == nil && strings.Contains(string(b), "\"pid\": "+itoa(cmd.Process.Pid))
		})
		r = runBinary(t, env, "--home", home, "--agent", "alpha", "target", "clear")
		assert.Equal(t, 2, r.code)
		assert.Contains(t, r.stderr, "its gateway runs (pid "+itoa(cmd.Process.Pid), stderr.String())
		require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
		cmd.Wait()
		r = runBinary(t, env, "--home", home, "--agent", "alpha", "target", "show")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "binding:  "+phones["alpha"])
		assert.Contains(t, r.stdout, "gateway:  stopped")
		r = runBinary(t, env, "--home", home, "--agent", "beta", "target", "set", "--type", "emulator", "--device", phones["alpha"])
		assert.Equal(t, 3, r.code)
		assert.Contains(t, r.stderr, `bound to agent "alpha"`)
	}
}

// TestGatewaysOfTwoAgentsRunSideBySide: each agent's gateway holds its own
// lock; `agents list` shows both running.
func TestGatewaysOfTwoAgentsRunSideBySide(t *testing.T) {
	home, env, _, _ := agentInstall(t, "alpha", "beta")
	pids := map[string]int{}
	for _, id := range []string{"alpha", "beta"} {
		cmd, _, _ := start(t, home, "--agent", id, "gateway")
		pids[id] = cmd.Process.Pid
		lock := filepath.Join(home, "agents", id, "state", "runtime", "gateway.lock.json")
		waitFor(t, id+"'s gateway lock", func() bool {
			b, err := os.ReadFile(lock)
			return err == nil && strings.Contains(string(b), "\"pid\": "+itoa(cmd.Process.Pid))
		})
	}
	r := runBinary(t, env, "--home", home, "agents", "list")
	require.Equal(t, 0, r.code, r.stderr)
	for id, pid := range pids {
		assert.Regexp(t, `(?m)^`+id+`\s+emulator \S+\s+running \(pid `+itoa(pid)+`\)`, r.stdout)
	}
	assert.Regexp(t, `(?m)^default\s+-\s+stopped`, r.stdout)
}
