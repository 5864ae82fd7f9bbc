package main_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// inspector returns the MCP Inspector CLI that `make test-tools` installs
// (pinned, from the npm registry), installing it first when missing. Like
// adb, a machine without npm skips the test, except in CI.
func inspector(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	bin := filepath.Join(root, ".cache", "npm", "node_modules", ".bin", "mcp-inspector")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	if _, err := exec.LookPath("npm"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("npm not installed: run make test-tools (CI must install it)")
		}
		t.Skip("npm not installed: run make test-tools")
	}
	out, err := exec.Command("make", "-C", root, "test-tools").CombinedOutput()
	require.NoError(t, err, "make test-tools:\n%s", out)
	return bin
}

// inspect runs one Inspector CLI call against `openpocket mcp` started by
// the Inspector as its own process over stdio. The network is cut off
// (proxies pointing nowhere, npm offline): the installed client must not
// need the registry to run.
func inspect(t *testing.T, client, home, serial string, args ...string) map[string]any {
	t.Helper()
	argv := append([]string{"--cli", binary, "--home", home, "-s", serial, "mcp"}, args...)
	cmd := exec.Command(client, argv...)
	cmd.Env = append(os.Environ(), "npm_config_offline=true", "HTTP_PROXY=http://127.0.0.1:9", "HTTPS_PROXY=http://127.0.0.1:9",
		"http_proxy=http://127.0.0.1:9", "https_proxy=http://127.0.0.1:9", "NO_PROXY=", "no_proxy=")
	timer := time.AfterFunc(2*time.Minute, func() {
		if cmd.Process != nil {
			cmd.Process.Kill()
		}
	})
	defer timer.Stop()
	out, err := cmd.Output()
	stderr := ""
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		stderr = string(ee.Stderr)
	}
	require.NoError(t, err, "mcp-inspector %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), out, stderr)
	var res map[string]any
	require.NoError(t, json.Unmarshal(out, &res), "inspector output:\n%s", out)
	return res
}

// TestMCPWithInspectorCLI drives the server with a client nobody here
// wrote, as a separate process over stdio: it lists the tools, calls
// snapshot and act (tap_element by the mark id snapshot showed).
func TestMCPWithInspectorCLI(t *testing.T) {
	client := inspector(t)
	phone := simtest.Start(t)
	home := t.TempDir()

	list := inspect(t, client, home, phone.Serial(), "--method", "tools/list")
	var names []string
	for _, tool := range list["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	for _, want := range []string{"snapshot", "act", "tap", "run_lua", "play", "agent_run"} {
		assert.Contains(t, names, want)
	}

	snap := inspect(t, client, home, phone.Serial(), "--method", "tools/call", "--tool-name", "snapshot", "--tool-arg", "som=true")
	assert.NotEqual(t, true, snap["isError"], "%v", snap)
	var kinds []string
	var block string
	for _, c := range snap["content"].([]any) {
		m := c.(map[string]any)
		kinds = append(kinds, m["type"].(string))
		if m["type"] == "text" {
			block = m["text"].(string)
		}
		if m["type"] == "image" {
			data, err := base64.StdEncoding.DecodeString(m["data"].(string))
			require.NoError(t, err)
			assert.Equal(t, screen.SniffImageMIME(data), m["mimeType"])
			assert.NotEmpty(t, data)
		}
	}
	assert.ElementsMatch(t, []string{"text", "image"}, kinds)
	assert.Contains(t, block, "current app com.android.launcher3")
	id := ""
	for _, line := range strings.Split(block, "\n") {
		if strings.HasPrefix(line, "mark ") && strings.Contains(line, `label="Settings"`) {
			id = strings.TrimPrefix(strings.SplitN(line, ":", 2)[0], "mark ")
		}
	}
	require.NotEmpty(t, id, "the launcher shows Settings:\n%s", block)

	act := inspect(t, client, home, phone.Serial(), "--method", "tools/call", "--tool-name", "act",
		"--tool-arg", `action={"type":"tap_element","elementId":"`+id+`"}`)
	assert.NotEqual(t, true, act["isError"], "%v", act)
	assert.Contains(t, act["content"].([]any)[0].(map[string]any)["text"], "state_delta changed=true")
	assert.Equal(t, "com.android.settings", phone.Phone().CurrentPackage())
}
