package script

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/action"
)

func runAction(script string) action.Action {
	return action.Action{Type: "run_script", Params: map[string]any{"script": script, "timeoutSec": 60}}
}

// readResultJSON checks that result.json holds exactly the fields of docs/formats.md#script-runs
// (plus rejected/rejectedRule when given) and returns it decoded.
func readResultJSON(t *testing.T, runDir string, extra ...string) Result {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(runDir, "result.json"))
	require.NoError(t, err)
	var fields map[string]any
	require.NoError(t, json.Unmarshal(raw, &fields))
	want := append([]string{"ok", "runId", "runDir", "scriptPath", "exitCode", "timedOut", "durationMs", "stdout", "stderr"}, extra...)
	var got []string
	for k := range fields {
		got = append(got, k)
	}
	assert.ElementsMatch(t, want, got, "result.json keys")
	var res Result
	require.NoError(t, json.Unmarshal(raw, &res))
	return res
}

func TestRunSuccessWritesArtifacts(t *testing.T) {
	ws := t.TempDir()
	e := New(ws, Config{})
	res, err := e.Run(context.Background(), "echo hello\nls /definitely-missing-dir", 0)
	require.NoError(t, err)

	assert.Regexp(t, regexp.MustCompile(`^\d{8}-\d{6}-[0-9a-f]{6}$`), res.RunID)
	assert.Equal(t, filepath.Join(ws, "scripts", "runs", "run-"+res.RunID), res.RunDir)
	assert.Equal(t, filepath.Join(res.RunDir, "script.sh"), res.ScriptPath)
	assert.False(t, res.OK, "ls of a missing dir fails the script")
	assert.Equal(t, 2, res.ExitCode)
	assert.Equal(t, "hello\n", res.Stdout)
	assert.Contains(t, res.Stderr, "definitely-missing-dir")

	script, err := os.ReadFile(res.ScriptPath)
	require.NoError(t, err)
	assert.Equal(t, "echo hello\nls /definitely-missing-dir", string(script))
	stdout, err := os.ReadFile(filepath.Join(res.RunDir, "stdout.log"))
	require.NoError(t, err)
	assert.Equal(t, "hello\n", string(stdout))
	stderr, err := os.ReadFile(filepath.Join(res.RunDir, "stderr.log"))
	require.NoError(t, err)
	assert.Equal(t, res.Stderr, string(stderr))
	onDisk := readResultJSON(t, res.RunDir)
	assert.Equal(t, res, onDisk)
}

func TestRunsInScriptsDir(t *testing.T) {
	ws := t.TempDir()
	res, err := New(ws, Config{}).Run(context.Background(), "pwd", 0)
	require.NoError(t, err)
	require.True(t, res.OK, res.Stderr)
	want, _ := filepath.EvalSymlinks(filepath.Join(ws, "scripts"))
	assert.Equal(t, want+"\n", res.Stdout)
}

func TestRejectedWritesArtifacts(t *testing.T) {
	ws := t.TempDir()
	e := New(ws, Config{})
	out, err := e.Execute(context.Background(), runAction("echo hi && bash -c 'id'"))
	require.NoError(t, err)
	lines := strings.Split(out, "\n")
	assert.Equal(t, `run_script rejected: command "bash" (line 1) runs other programs and is only allowed when the allowlist is "*"`, lines[0])
	require.Len(t, lines, 2)
	require.True(t, strings.HasPrefix(lines[1], "runDir="), out)
	runDir := strings.TrimPrefix(lines[1], "runDir=")

	res := readResultJSON(t, runDir, "rejected", "rejectedRule")
	assert.False(t, res.OK)
	assert.Equal(t, -1, res.ExitCode)
	assert.Equal(t, "allowlist", res.RejectedRule)
	for _, f := range []string{"script.sh", "stdout.log", "stderr.log"} {
		assert.FileExists(t, filepath.Join(runDir, f))
	}
	script, _ := os.ReadFile(filepath.Join(runDir, "script.sh"))
	assert.Equal(t, "echo hi && bash -c 'id'", string(script))
}

func TestRejectedRules(t *testing.T) {
	e := New(t.TempDir(), Config{MaxScriptChars: 30})
	for script, rule := range map[string]string{
		"sudo ls":                     "allowlist",
		"echo $(id)":                  "allowlist",
		"eval ls":                     "builtin",
		"$cmd x":                      "non-literal",
		"echo a | /usr/bin/whoami":    "allowlist",
		strings.Repeat("echo a; ", 5): "max-length",
		"\n\n":                        "empty",
		"echo 'unbalanced":            "syntax",
		"FOO=1 PATH=/x python3 -c x":  "allowlist",
	} {
		res, err := e.Run(context.Background(), script, 0)
		require.NoError(t, err)
		assert.Equal(t, rule, res.RejectedRule, "script %q: %s", script, res.Rejected)
	}
}

func TestExecuteFormat(t *testing.T) {
	e := New(t.TempDir(), Config{})
	out, err := e.Execute(context.Background(), runAction("echo out; echo err >&2"))
	require.NoError(t, err)
	re := regexp.MustCompile(`^run_script exitCode=0 timedOut=false\nrunDir=\S+/scripts/runs/run-\d{8}-\d{6}-[0-9a-f]{6}\nstdout:\nout\nstderr:\nerr$`)
	assert.Regexp(t, re, out)
}

func TestOutputCap(t *testing.T) {
	e := New(t.TempDir(), Config{MaxOutputChars: 10})
	res, err := e.Run(context.Background(), "echo 0123456789abcdef; echo ABCDEFGHIJKLMNOP >&2", 0)
	require.NoError(t, err)
	assert.Equal(t, "0123456789...[truncated]", res.Stdout)
	assert.Equal(t, "ABCDEFGHIJ...[truncated]", res.Stderr)
	log, _ := os.ReadFile(filepath.Join(res.RunDir, "stdout.log"))
	assert.Equal(t, "0123456789...[truncated]", string(log))
}

func TestEnvScrubbed(t *testing.T) {
	t.Setenv("MY_API_KEY", "s3cret")
	t.Setenv("SERVICE_Auth_Header", "s3cret")
	t.Setenv("TZ", "UTC")
	t.Setenv("OPENPOCKET_HOME", "/secret/home")
	hook := filepath.Join(t.TempDir(), "hook.sh")
	require.NoError(t, os.WriteFile(hook, []byte("echo HOOKED\n"), 0o644))
	t.Setenv("BASH_ENV", hook)

	res, err := New(t.TempDir(), Config{}).Run(context.Background(),
		`echo "key=$MY_API_KEY auth=$SERVICE_Auth_Header home=$OPENPOCKET_HOME tz=$TZ"`, 0)
	require.NoError(t, err)
	assert.Equal(t, "key= auth= home= tz=UTC\n", res.Stdout, "only allowlisted variables reach the script; BASH_ENV is never run")
}

// running reports whether a process with exactly this command line runs.
func running(cmdline string) bool {
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, d := range dirs {
		if b, err := os.ReadFile(d); err == nil && strings.TrimRight(string(b), "\x00") == cmdline {
			return true
		}
	}
	return false
}

func TestTimeoutKillsProcessTree(t *testing.T) {
	needSandbox(t)
	ws := t.TempDir()
	e := New(ws, Config{AllowedCommands: []string{"echo", "sleep"}})
	start := time.Now()
	res, err := e.Run(context.Background(), "sleep 31.25 &\necho started\nsleep 31.5", 700*time.Millisecond)
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 10*time.Second)
	assert.True(t, res.TimedOut)
	assert.False(t, res.OK)
	assert.Equal(t, 137, res.ExitCode, "SIGKILL")
	assert.Equal(t, "started\n", res.Stdout)
	assert.Eventually(t, func() bool { return !running("sleep\x0031.25") && !running("sleep\x0031.5") }, 5*time.Second, 20*time.Millisecond,
		"a process of the script survived the timeout")

	out, err := e.Execute(context.Background(), action.Action{Type: "run_script", Params: map[string]any{"script": "sleep 5", "timeoutSec": 1}})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(out, "run_script exitCode=137 timedOut=true\n"), out)
}

func TestTimeoutCappedByConfig(t *testing.T) {
	e := New(t.TempDir(), Config{AllowedCommands: []string{"sleep"}, TimeoutSec: 1})
	res, err := e.Run(context.Background(), "sleep 20", time.Hour)
	require.NoError(t, err)
	assert.True(t, res.TimedOut)
	assert.Less(t, res.DurationMs, int64(10000))
}

func TestCancellationIsAnError(t *testing.T) {
	e := New(t.TempDir(), Config{AllowedCommands: []string{"sleep"}})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	_, err := e.Execute(ctx, runAction("sleep 20"))
	require.ErrorIs(t, err, context.Canceled)
}

func TestStarAllowsShells(t *testing.T) {
	res, err := New(t.TempDir(), Config{AllowedCommands: []string{"*"}}).Run(context.Background(), "bash -c 'echo nested'", 0)
	require.NoError(t, err)
	assert.Empty(t, res.Rejected)
	assert.Equal(t, "nested\n", res.Stdout)
}

func TestIsLua(t *testing.T) {
	assert.True(t, IsLua("-- lua\nprint(1)"))
	assert.True(t, IsLua("  -- lua  \r\nprint(1)"))
	assert.False(t, IsLua("echo -- lua"))
	assert.False(t, IsLua("-- luac\n"))
	assert.False(t, IsLua(""))
}

// TestShellFeaturesStillWork: ordinary scripts behave as under bash:
// pipelines, here-documents, globs, functions, redirections inside the
// workspace, cd, exit codes.
func TestShellFeaturesStillWork(t *testing.T) {
	needSandbox(t)
	ws := t.TempDir()
	e := New(ws, Config{})
	script := "greet() { echo \"hello $1\"; }\n" +
		"greet world | grep -c hello\n" +
		"for i in 1 2 3; do echo \"line $i\" >> out.txt; done\n" +
		"cat <<END | wc -l\na\nb\nEND\n" +
		"ls *.txt\n" +
		"n=$(cat out.txt | wc -l); echo \"lines=$n\"\n" +
		"cd .. && pwd\n" +
		"cat; echo \"stdin ends: $?\"\n" + // stdin is /dev/null, not closed
		"exit 3\n"
	res, err := e.Run(context.Background(), script, 20*time.Second)
	require.NoError(t, err)
	real, _ := filepath.EvalSymlinks(ws)
	assert.Equal(t, "1\n2\nout.txt\nlines=3\n"+real+"\nstdin ends: 0\n", res.Stdout, res.Stderr)
	assert.Equal(t, 3, res.ExitCode)
	assert.Empty(t, res.Rejected)
}
