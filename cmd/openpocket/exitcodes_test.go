package main_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/internal/workspace"
)

// result is one finished run of the binary.
type result struct {
	code           int
	stdout, stderr string
}

// runBinary runs the built binary to completion (bounded) with extra
// environment variables and returns its exit code and output.
func runBinary(t *testing.T, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(append(os.Environ(), "OPENAI_API_KEY=", "ANDROID_SERIAL=", "ADB_SERVER_SOCKET="), env...)
	cmd.Stdin = strings.NewReader("")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	res := result{stdout: out.String(), stderr: errOut.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run %v: %v", args, err)
	}
	require.NoError(t, ctx.Err(), "openpocket %v did not finish", args)
	return res
}

// closedPort is a local TCP port nothing listens on.
func closedPort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	return port
}

// homeWithDownModel is a home whose default model endpoint refuses
// connections.
func homeWithDownModel(t *testing.T) string {
	home := filepath.Join(t.TempDir(), "home")
	h, err := workspace.Open(home)
	require.NoError(t, err)
	cfg := h.Config()
	cfg.Models = map[string]workspace.ModelProfile{"down": {BaseURL: "http://127.0.0.1:" + strconv.Itoa(closedPort(t)) + "/v1", Model: "gpt-down"}}
	cfg.DefaultModel = "down"
	cfg.Agent.LoopDelayMs = 0
	require.NoError(t, h.SaveConfig(cfg))
	return home
}

func writeFile(t *testing.T, dir, name, body string) string {
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

// TestExitCodes holds every command to the documented exit codes (0 ok,
// 1 run failed, 2 bad input, 3 device problem, 4 model endpoint problem)
// on the built binary. 130 (interrupted) is covered by the signal tests
// beside this one.
func TestExitCodes(t *testing.T) {
	phone := simtest.Start(t)
	srv := llmtest.NewServer(t)
	home := homeWithModel(t, srv)
	down := homeWithDownModel(t)
	dir := t.TempDir()
	pass := writeFile(t, dir, "pass.yaml", "name: pass\nsteps:\n  - launch: com.android.settings\n")
	fail := writeFile(t, dir, "fail.yaml", "name: fail\nsteps:\n  - assert_visible: {text: \"No such text\", timeout: 300ms}\n")
	badYAML := writeFile(t, dir, "bad.yaml", "name: bad\nsteps:\n  - tap_on_nothing: 1\n")
	badLua := writeFile(t, dir, "badlua.yaml", "name: badlua\nsteps:\n  - lua: \"x = = 1\"\n")
	okLua := writeFile(t, dir, "ok.lua", "print('hello')\n")
	boom := writeFile(t, dir, "boom.lua", "error('boom')\n")
	syntax := writeFile(t, dir, "syntax.lua", "x = = 1\n")
	usesDevice := writeFile(t, dir, "device.lua", "assert(device.shell('echo hi'))\n")
	serial := phone.Serial()
	noADB := []string{"PATH=" + t.TempDir(), "ANDROID_ADB_SERVER_PORT=" + strconv.Itoa(closedPort(t))}

	rows := []struct {
		name string
		env  []string
		args []string
		want int
	}{
		{"version", nil, []string{"version"}, 0},
		{"--version", nil, []string{"--version"}, 0},
		{"help play", nil, []string{"help", "play"}, 0},
		{"help unknown", nil, []string{"help", "nosuch"}, 2},
		{"unknown command", nil, []string{"nosuch"}, 2},
		{"unknown flag", nil, []string{"devices", "--nosuch"}, 2},
		{"completion bash", nil, []string{"completion", "bash"}, 0},
		{"completion tcsh", nil, []string{"completion", "tcsh"}, 2},

		{"devices", nil, []string{"--home", home, "devices"}, 0},
		{"devices no adb server", noADB, []string{"--home", home, "devices"}, 3},
		{"snapshot", nil, []string{"--home", home, "-s", serial, "snapshot"}, 0},
		{"snapshot no device", nil, []string{"--home", home, "-s", "nope:1", "snapshot"}, 3},
		{"act", nil, []string{"--home", home, "-s", serial, "act", `{"type":"wait","durationMs":100}`}, 0},
		{"act bad json", nil, []string{"--home", home, "-s", serial, "act", `{"type":`}, 2},
		{"act no device", nil, []string{"--home", home, "-s", "nope:1", "act", `{"type":"wait"}`}, 3},

		{"play passes", nil, []string{"--home", home, "-s", serial, "play", pass}, 0},
		{"play fails", nil, []string{"--home", home, "-s", serial, "play", fail}, 1},
		{"play bad yaml", nil, []string{"--home", home, "-s", serial, "play", badYAML}, 2},
		{"play bad lua", nil, []string{"--home", home, "-s", serial, "play", badLua}, 2},
		{"play no device", nil, []string{"--home", home, "-s", "nope:1", "play", pass}, 3},
		{"play no adb server", noADB, []string{"--home", home, "play", pass}, 3},
		{"compile", nil, []string{"compile", pass}, 0},
		{"compile bad", nil, []string{"compile", badYAML}, 2},
		{"lint", nil, []string{"lint", pass}, 0},
		{"lint bad lua", nil, []string{"lint", badLua}, 2},

		{"run", nil, []string{"--home", home, "-s", serial, "run", okLua}, 0},
		{"run fails", nil, []string{"--home", home, "-s", serial, "run", boom}, 1},
		{"run syntax error", nil, []string{"--home", home, "-s", serial, "run", syntax}, 2},
		{"run missing file", nil, []string{"--home", home, "run", filepath.Join(dir, "none.lua")}, 2},
		{"run no device", nil, []string{"--home", home, "-s", "nope:1", "run", usesDevice}, 3},

		{"agent succeeds", nil, []string{"--home", home, "-s", serial, "agent", "open settings"}, 0},
		{"agent fails", nil, []string{"--home", home, "-s", serial, "agent", "--max-steps", "1", "wait forever"}, 1},
		{"agent empty task", nil, []string{"--home", home, "-s", serial, "agent", " "}, 2},
		{"agent unset apiKeyEnv", nil, []string{"--home", home, "-s", serial, "agent", "--model", "keyed", "x"}, 2},
		{"agent no device", nil, []string{"--home", home, "-s", "nope:1", "agent", "open settings"}, 3},
		{"agent model down", nil, []string{"--home", down, "-s", serial, "agent", "open settings"}, 4},

		{"model list", nil, []string{"--home", home, "model", "list", "--json"}, 0},
		{"model show unknown", nil, []string{"--home", home, "model", "show", "nosuch"}, 2},
		{"script run", nil, []string{"--home", home, "script", "run", "--text", "echo hi"}, 0},
		{"script run fails", nil, []string{"--home", home, "script", "run", "--text", "ls /nonexistent-dir-for-exit-code"}, 1},
		{"memory search", nil, []string{"--home", home, "memory", "search", "wifi"}, 0},
		{"memory get out of scope", nil, []string{"--home", home, "memory", "get", "../config.json"}, 2},
		{"cron list", nil, []string{"--home", home, "cron", "list", "--json"}, 0},
		{"cron add bad", nil, []string{"--home", home, "cron", "add", "--every", "1s", "--task", "x"}, 2},
		{"skills list", nil, []string{"--home", home, "skills", "list", "--json"}, 0},
		{"skills show unknown", nil, []string{"--home", home, "skills", "show", "nosuch"}, 2},
		{"sessions list", nil, []string{"--home", home, "sessions", "list", "--json"}, 0},
		{"sessions show unknown", nil, []string{"--home", home, "sessions", "show", "19990101-000000"}, 2},

		{"doctor ready", nil, []string{"--home", home, "-s", serial, "doctor"}, 0},
		{"doctor model down", nil, []string{"--home", down, "-s", serial, "doctor"}, 1},
		{"init", nil, []string{"--home", filepath.Join(t.TempDir(), "new"), "init"}, 0},
		{"init exists", nil, []string{"--home", home, "init"}, 2},
	}
	// A profile whose apiKeyEnv names an unset variable.
	h, err := workspace.Open(home)
	require.NoError(t, err)
	cfg := h.Config()
	cfg.Models["keyed"] = workspace.ModelProfile{BaseURL: "https://models.example.com/v1", Model: "gpt-fake", APIKeyEnv: "OPENPOCKET_TEST_UNSET_KEY"}
	require.NoError(t, h.SaveConfig(cfg))

	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			if r.name == "agent fails" {
				srv.ReplyTool("wait", map[string]any{"durationMs": 100})
			}
			res := runBinary(t, r.env, r.args...)
			assert.Equal(t, r.want, res.code, "openpocket %s\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), res.stdout, res.stderr)
		})
	}
}

// TestModelDownNamesBaseURLAndDoctor: a model endpoint that refuses
// connections names the profile's base URL and points at doctor.
func TestModelDownNamesBaseURLAndDoctor(t *testing.T) {
	phone := simtest.Start(t)
	down := homeWithDownModel(t)
	h, err := workspace.Open(down)
	require.NoError(t, err)
	base := h.Config().Models["down"].BaseURL
	res := runBinary(t, nil, "--home", down, "-s", phone.Serial(), "agent", "open settings")
	assert.Equal(t, 4, res.code, res.stdout+res.stderr)
	for _, out := range []string{res.stdout, res.stderr} {
		assert.Contains(t, out, "nothing answers at "+base+" (connection refused)")
		assert.Contains(t, out, "`openpocket doctor` checks every model profile")
	}
}
