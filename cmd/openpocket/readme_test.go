package main_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// repoRoot is the module root (README.md, Makefile, examples/).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	require.FileExists(t, filepath.Join(root, "README.md"))
	return root
}

// shellBlocks returns the commands of the first n ```sh blocks of the
// README section under heading, comments and blank lines dropped.
func shellBlocks(t *testing.T, readme, heading string, n int) []string {
	t.Helper()
	i := strings.Index(readme, "\n"+heading)
	require.GreaterOrEqual(t, i, 0, "README has no %q", heading)
	section := readme[i+len(heading)+1:]
	if j := strings.Index(section, "\n## "); j >= 0 {
		section = section[:j]
	}
	comment := regexp.MustCompile(`\s+#\s.*$`)
	var cmds []string
	for _, block := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(section, n) {
		for _, line := range strings.Split(block[1], "\n") {
			if line = strings.TrimSpace(comment.ReplaceAllString(line, "")); line != "" {
				cmds = append(cmds, line)
			}
		}
	}
	require.NotEmpty(t, cmds, "no commands under %q", heading)
	return cmds
}

// demoRecipe is `make demo`'s command with $(BIN) as written (bin/openpocket).
func demoRecipe(t *testing.T, root string) string {
	t.Helper()
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^demo:.*\n\t(.*)$`).FindStringSubmatch(string(mk))
	require.NotNil(t, m, "Makefile has no demo recipe")
	return strings.ReplaceAll(strings.TrimPrefix(m[1], "./"), "$(BIN)", "bin/openpocket")
}

// TestReadmeFirstFiveMinutes runs README's quick start (make demo's run)
// and "First five minutes" commands in order, as written, on a fresh HOME
// through the built binary: bin/openpocket in the working directory, no
// config, stdin closed. Only the Ollama base URL points at a local fake
// model server instead (also loopback, also keyless).
func TestReadmeFirstFiveMinutes(t *testing.T) {
	simtest.RequireADB(t)
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	srv := llmtest.NewServer(t)

	work := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(work, "bin"), 0o755))
	require.NoError(t, os.Symlink(binary, filepath.Join(work, "bin", "openpocket")))
	require.NoError(t, os.Symlink(filepath.Join(root, "examples"), filepath.Join(work, "examples")))
	home := t.TempDir()
	cfgPath := filepath.Join(home, ".openpocket", "config.json")

	var cmds []string
	for _, c := range shellBlocks(t, string(readme), "## Quick start", -1) {
		switch {
		case c == "make demo":
			cmds = append(cmds, demoRecipe(t, root))
		case strings.HasPrefix(c, "make "): // make test: the suite itself
		default:
			cmds = append(cmds, c)
		}
	}
	// The section's first block; the completion lines after it write
	// into the shell's own directories (TestCompletionAsInvoked runs them).
	cmds = append(cmds, shellBlocks(t, string(readme), "## First five minutes", 1)...)

	run := func(line string) (code int, stdout, stderr string) {
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "bash", "-c", line)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "HOME="+home, "OPENPOCKET_HOME=", "OPENAI_API_KEY=", "OLLAMA_KEY=", "ANDROID_SERIAL=")
		cmd.Stdin = nil
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		require.NoError(t, ctx.Err(), "%s did not finish", line)
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), out.String(), errOut.String()
		}
		require.NoError(t, err, line)
		return 0, out.String(), errOut.String()
	}

	sawInit, sawAgent := 0, false
	for _, line := range cmds {
		line = strings.ReplaceAll(line, "http://localhost:11434/v1", srv.BaseURL())
		fields := strings.Fields(line)
		require.Equal(t, "bin/openpocket", fields[0], "README commands run the built binary as bin/openpocket: %s", line)
		if strings.Contains(line, " agent ") {
			srv.ReplyTool("launch_app", map[string]any{"packageName": "com.android.settings"})
			srv.ReplyTool("finish", map[string]any{"message": "Wi-Fi is off"})
		}
		code, out, errOut := run(line)
		t.Logf("$ %s → %d", line, code)
		switch {
		case line == "bin/openpocket doctor":
			// Before init: the missing config is the ✗ to fix, and
			// nothing is written.
			assert.Equal(t, 1, code, out+errOut)
			assert.Contains(t, out, "does not exist — fix: openpocket init")
			assert.NoFileExists(t, cfgPath, "doctor wrote config.json")
		case fields[1] == "init":
			sawInit++
			assert.Equal(t, 0, code, "%s: %s%s", line, out, errOut)
		case strings.Contains(line, " agent "):
			sawAgent = true
			assert.Equal(t, 0, code, "%s: %s%s", line, out, errOut)
			assert.Contains(t, out, "SUCCESS: Wi-Fi is off")
			assert.Equal(t, 1, strings.Count(errOut, "sending no Authorization header"), "said once: %s", errOut)
		default:
			assert.Equal(t, 0, code, "%s: %s%s", line, out, errOut)
		}
		if sawInit == 0 {
			assert.NoFileExists(t, cfgPath, "%s wrote config.json before init", line)
		}
	}
	assert.Equal(t, 2, sawInit, "both init lines ran")
	require.True(t, sawAgent)
	for _, r := range srv.Requests() {
		assert.NotContains(t, r.Header, "Authorization", "a local model gets no key")
	}
	code, out, _ := run("bin/openpocket sessions list")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "Turn Wi-Fi off")
	assert.FileExists(t, filepath.Join(work, "demo-report", "html", "index.html"), "make demo's report")
}
