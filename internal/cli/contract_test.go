package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/report"
	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// mainIn runs the CLI in-process with a private home.
func mainIn(t *testing.T, home string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), append([]string{"--home", home}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// flowsDir holds three playbooks: one declaring `user` (required), one
// tagged smoke without params, one tagged slow.
func flowsDir(t *testing.T) string {
	dir := t.TempDir()
	files := map[string]string{
		"login.yaml": "name: login\ntags: [smoke]\nparams:\n  user: {type: string, required: true}\nsteps:\n  - launch: com.android.settings\n  - lua: \"assert(user == 'bob', 'user is ' .. tostring(user))\"\n",
		"home.yaml":  "name: home\ntags: [smoke]\nsteps:\n  - launch: com.android.settings\n",
		"slow.yaml":  "name: slow\ntags: [slow]\nsteps:\n  - launch: com.android.settings\n",
	}
	for name, src := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644))
	}
	return dir
}

func TestLintTakesParamsAndCompilesLua(t *testing.T) {
	dir := flowsDir(t)
	code, out, errOut := mainIn(t, t.TempDir(), "lint", dir)
	assert.Equal(t, ExitOK, code, "a required param may be left out when linting: %s", errOut)
	assert.Equal(t, 3, strings.Count(out, "ok "))

	code, _, errOut = mainIn(t, t.TempDir(), "lint", filepath.Join(dir, "login.yaml"), "-e", "nosuch=1")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, `no parameter "nosuch"`, "one named playbook holds -e to its params")

	bad := writePlaybook(t, "bad.yaml", "name: bad\nsteps:\n  - launch: com.android.settings\n  - lua: \"if x then\"\n")
	code, _, errOut = mainIn(t, t.TempDir(), "lint", bad)
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, bad+":4: the Lua of this step does not compile")
	assert.NotContains(t, errOut, "column", "the generated Lua's column means nothing in the YAML")
}

func TestPlayDirAppliesParamsOnlyWhereDeclared(t *testing.T) {
	s := simtest.Start(t)
	dir := flowsDir(t)
	out := t.TempDir()
	code, stdout, stderr := mainIn(t, t.TempDir(), "--device", s.Serial(), "play", dir, "-e", "user=bob", "--output", out)
	require.Equal(t, ExitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Contains(t, stdout, "3 passed, 0 failed")
	assert.Contains(t, stderr, "note: "+filepath.Join(dir, "home.yaml")+" does not declare user; ignored for it")
	assert.Contains(t, stderr, "note: "+filepath.Join(dir, "slow.yaml")+" does not declare user")

	// Every report path printed exists and holds steps.json with real ids.
	paths := regexp.MustCompile(`(?m)^report: (.+)$`).FindAllStringSubmatch(stdout, -1)
	require.Len(t, paths, 3, stdout)
	for _, p := range paths {
		require.DirExists(t, p[1])
		var fr FlowReport
		b, err := os.ReadFile(filepath.Join(p[1], "steps.json"))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &fr))
		require.NotEmpty(t, fr.Steps)
		for i, st := range fr.Steps {
			assert.Equal(t, itoa(i+1), st.ID, "step %d of %s", i, fr.Name)
		}
	}
}

func TestDryRunRespectsTags(t *testing.T) {
	dir := flowsDir(t)
	code, out, errOut := mainIn(t, t.TempDir(), "play", dir, "--include-tags", "slow", "--dry-run")
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, "slow (")
	assert.NotContains(t, out, "login (")
	assert.NotContains(t, out, "home (")

	code, out, errOut = mainIn(t, t.TempDir(), "play", dir, "--exclude-tags", "slow", "--dry-run", "-e", "user=x")
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, "login (")
	assert.Contains(t, out, "home (")
	assert.NotContains(t, out, "slow (")
}

func TestPlayReportJSON(t *testing.T) {
	s := simtest.Start(t)
	dir := flowsDir(t)
	rep := filepath.Join(t.TempDir(), "report.json")
	code, stdout, stderr := mainIn(t, t.TempDir(), "--device", s.Serial(), "play", dir, "--include-tags", "smoke", "-e", "user=alice",
		"--output", t.TempDir(), "--report-json", rep)
	require.Equal(t, ExitFailed, code, "login asserts user == bob: stdout:\n%s\nstderr:\n%s", stdout, stderr)
	var r report.JSON
	b, err := os.ReadFile(rep)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &r))
	assert.Equal(t, 1, r.Passed)
	assert.Equal(t, 1, r.Failed)
	require.Len(t, r.Flows, 2)
	byName := map[string]FlowReport{r.Flows[0].Name: r.Flows[0], r.Flows[1].Name: r.Flows[1]}
	assert.Equal(t, "passed", byName["home"].Status)
	assert.Equal(t, "failed", byName["login"].Status)
	assert.Contains(t, byName["login"].Error, "user is alice")
	assert.NotEmpty(t, byName["login"].Steps)
}

func TestTimeoutIsReportedAtTheYAMLLine(t *testing.T) {
	s := simtest.Start(t)
	pb := writePlaybook(t, "slow.yaml", "name: slow\nsteps:\n  - launch: com.android.settings\n  - sleep: 30s\n")
	code, stdout, stderr := mainIn(t, t.TempDir(), "--device", s.Serial(), "play", pb, "--timeout", "1s", "--output", t.TempDir())
	assert.Equal(t, ExitFailed, code, stderr)
	assert.Contains(t, stdout, "FAILED slow: "+pb+":4: sleep 30s: run exceeded its timeout of 1s")
	assert.NotContains(t, stdout, "flow.lua")
}

func TestLuaLogReachesTerminalAndLogFile(t *testing.T) {
	s := simtest.Start(t)
	pb := writePlaybook(t, "log.yaml", "name: log\nsteps:\n  - lua: \"log.info('hello info', 'count', 3); log.debug('hello debug'); log.warn('careful now')\"\n")
	out := t.TempDir()
	code, stdout, stderr := mainIn(t, t.TempDir(), "--device", s.Serial(), "play", pb, "--output", out)
	require.Equal(t, ExitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	line := regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d\.\d{3} INFO  hello info count=3$`)
	assert.Regexp(t, line, stderr, "info reaches the terminal in the human format")
	assert.NotContains(t, stderr, "hello debug", "debug needs --verbose on the terminal")
	assert.NotContains(t, stderr, "level=", "no raw slog lines")
	assert.Regexp(t, `(?m)^\d\d:\d\d:\d\d\.\d{3} WARN  careful now$`, stderr)

	logs, err := filepath.Glob(filepath.Join(out, "*-log", "log.txt"))
	require.NoError(t, err)
	require.Len(t, logs, 1)
	b, err := os.ReadFile(logs[0])
	require.NoError(t, err)
	assert.Regexp(t, line, string(b))
	assert.Regexp(t, `(?m)^\d\d:\d\d:\d\d\.\d{3} DEBUG hello debug$`, string(b), "log.txt gets every level")
	assert.NotContains(t, string(b), "level=")

	code, _, stderr = mainIn(t, t.TempDir(), "--device", s.Serial(), "-v", "play", pb, "--output", t.TempDir())
	require.Equal(t, ExitOK, code)
	assert.Contains(t, stderr, "DEBUG hello debug")
}

func TestRunDropsTheSeparator(t *testing.T) {
	script := writePlaybook(t, "args.lua", "print(#arg, arg[1], arg[2], select('#', ...))\n")
	code, out, errOut := mainIn(t, t.TempDir(), "run", script, "--", "a", "--b")
	require.Equal(t, ExitOK, code, errOut)
	assert.Equal(t, "2\ta\t--b\t2\n", out)
}
