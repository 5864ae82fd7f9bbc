package coding

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/executor/policy"
)

var sessionRe = regexp.MustCompile(`sessionId=([0-9a-f]{8})`)

func sessionID(t *testing.T, out string) string {
	t.Helper()
	m := sessionRe.FindStringSubmatch(out)
	require.NotNil(t, m, "no sessionId in %q", out)
	return m[1]
}

func run(t *testing.T, e *Executor, kv ...any) string {
	t.Helper()
	out, err := e.Execute(context.Background(), act(kv[0].(string), kv[1:]...))
	require.NoError(t, err)
	return out
}

func TestExecForeground(t *testing.T) {
	e, ws := newTestExecutor(t)
	writeFile(t, filepath.Join(ws, "sub", "f.txt"), "hello\n")
	out := run(t, e, "exec", "command", "cat f.txt && echo err >&2; ls missing-file", "workdir", "sub", "timeoutSec", 1800)
	assert.Regexp(t, `^exec exitCode=2 timedOut=false durationMs=\d+\noutput:\nhello\nerr\nls: cannot access 'missing-file': No such file or directory$`, out)

	out = run(t, e, "exec", "command", "pwd")
	real, _ := filepath.EvalSymlinks(ws)
	assert.Contains(t, out, "\n"+real, "default workdir is the workspace")
}

func TestExecPolicy(t *testing.T) {
	e, _ := newTestExecutor(t)
	for cmd, want := range map[string]string{
		"bash -c ls":       `exec rejected: command "bash" (line 1) runs other programs`,
		"ls | sh":          `exec rejected: command "sh" (line 1) runs other programs`,
		"sudo ls":          `exec rejected: command "sudo" (line 1) runs other programs`,
		"rm -r -f x":       `exec rejected: command "rm" (line 1) is not in the allowlist`,
		"echo $(whoami)":   `exec rejected: command "whoami" (line 1) is not in the allowlist`,
		"FOO=1 whoami":     `exec rejected: command "whoami" (line 1) is not in the allowlist`,
		"/usr/bin/curl x":  `exec rejected: command "/usr/bin/curl" (line 1): name programs without a directory`,
		"git status; make": `exec rejected: command "make" (line 1) is not in the allowlist`,
		"$CMD x":           `exec rejected: command name "$CMD" (line 1) is not a plain word`,
	} {
		assert.True(t, strings.HasPrefix(run(t, e, "exec", "command", cmd), want), cmd)
	}
	_, err := e.Exec(context.Background(), ExecRequest{Command: "bash"})
	var v *policy.Violation
	require.True(t, errors.As(err, &v))
	assert.Equal(t, "allowlist", v.Rule)

	out := run(t, e, "exec", "command", "ls", "workdir", "../")
	assert.True(t, strings.HasPrefix(out, "exec failed: workdir: path \"../\" is outside the workspace"), out)
}

func TestExecEnvScrubbed(t *testing.T) {
	t.Setenv("MY_API_KEY", "s3cret")
	t.Setenv("OPENPOCKET_HOME", "/home/x/.openpocket")
	t.Setenv("TZ", "UTC")
	e, _ := newTestExecutor(t)
	out := run(t, e, "exec", "command", `echo "key=$MY_API_KEY home=$OPENPOCKET_HOME tz=$TZ"`)
	assert.True(t, strings.HasSuffix(out, "\noutput:\nkey= home= tz=UTC"), out)
}

func TestExecOutputCap(t *testing.T) {
	e, _ := newTestExecutor(t, func(c *Config) { c.MaxOutputChars = 8 })
	out := run(t, e, "exec", "command", "echo 0123456789abcdef")
	assert.True(t, strings.HasSuffix(out, "\noutput:\n01234567...[truncated]"), out)
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

func TestExecTimeoutKillsGroup(t *testing.T) {
	e, _ := newTestExecutor(t, func(c *Config) { c.AllowedCommands = []string{"echo", "sleep"}; c.TimeoutSec = 1 })
	start := time.Now()
	out := run(t, e, "exec", "command", "sleep 32.25 & sleep 32.5", "timeoutSec", 1800)
	assert.Less(t, time.Since(start), 10*time.Second, "config timeout (1s) caps the requested 1800s")
	assert.True(t, strings.HasPrefix(out, "exec exitCode=137 timedOut=true"), out)
	assert.Eventually(t, func() bool { return !running("sleep\x0032.25") && !running("sleep\x0032.5") }, 5*time.Second, 20*time.Millisecond, "a process survived the timeout")
}

func TestBackgroundSessionLifecycle(t *testing.T) {
	e, _ := newTestExecutor(t)
	e.killGrace = 200 * time.Millisecond

	// cat echoes what process write sends to its stdin.
	out := run(t, e, "exec", "command", "echo ready; cat", "background", true)
	require.True(t, strings.HasPrefix(out, "exec started in background sessionId="), out)
	id := sessionID(t, out)

	out = run(t, e, "process", "action", "list")
	assert.Regexp(t, `^process list sessions=1\nsessionId=`+id+` status=running pid=\d+ runtimeMs=\d+ workdir=\. command=echo ready; cat$`, out)

	// poll waits (up to timeoutMs) and returns only new output.
	assert.Eventually(t, func() bool {
		return strings.Contains(run(t, e, "process", "action", "poll", "sessionId", id, "timeoutMs", 0), "ready")
	}, 5*time.Second, 20*time.Millisecond)
	out = run(t, e, "process", "action", "poll", "sessionId", id, "timeoutMs", 100)
	assert.Equal(t, "process poll sessionId="+id+" status=running", out[:len("process poll sessionId="+id+" status=running")])
	assert.True(t, strings.HasSuffix(out, "\n(no new output)"), out)

	out = run(t, e, "process", "action", "write", "sessionId", id, "input", "line one\nline two\n")
	assert.Equal(t, "process write sessionId="+id+" bytes=18 status=running", out)
	assert.Eventually(t, func() bool {
		return strings.Contains(run(t, e, "process", "action", "log", "sessionId", id), "line two")
	}, 5*time.Second, 20*time.Millisecond)

	out = run(t, e, "process", "action", "log", "sessionId", id, "offset", 0, "limit", 200)
	assert.Equal(t, "process log sessionId="+id+" status=running lines=1-3 totalLines=3\nready\nline one\nline two", out)
	out = run(t, e, "process", "action", "log", "sessionId", id, "offset", 2, "limit", 1)
	assert.Equal(t, "process log sessionId="+id+" status=running lines=2-2 totalLines=3\nline one", out)
	out = run(t, e, "process", "action", "log", "sessionId", id, "offset", 0, "limit", 2)
	assert.Equal(t, "process log sessionId="+id+" status=running lines=2-3 totalLines=3\nline one\nline two", out, "offset 0 is the tail")

	out = run(t, e, "process", "action", "kill", "sessionId", id)
	assert.Equal(t, "process kill sessionId="+id+" signal=SIGTERM status=exited exitCode=143", out)
	out = run(t, e, "process", "action", "kill", "sessionId", id)
	assert.Equal(t, "process kill sessionId="+id+" already finished status=exited exitCode=143", out)
	out = run(t, e, "process", "action", "write", "sessionId", id, "input", "x")
	assert.Equal(t, "process failed: session "+id+" has exited; nothing reads stdin", out)

	out = run(t, e, "process", "action", "poll", "sessionId", "nope")
	assert.Equal(t, `process failed: no session "nope" (see process list)`, out)
	out = run(t, e, "process", "action", "log")
	assert.Equal(t, "process failed: sessionId is required", out)
}

func TestKillEscalatesToSIGKILL(t *testing.T) {
	e, _ := newTestExecutor(t, func(c *Config) { c.AllowedCommands = []string{"*"} })
	e.killGrace = 200 * time.Millisecond
	out := run(t, e, "exec", "command", "trap '' TERM; echo armed; while :; do sleep 0.05; done", "background", true)
	id := sessionID(t, out)
	assert.Eventually(t, func() bool {
		return strings.Contains(run(t, e, "process", "action", "poll", "sessionId", id), "armed")
	}, 5*time.Second, 20*time.Millisecond)
	out = run(t, e, "process", "action", "kill", "sessionId", id)
	// The sandbox's bwrap takes the SIGTERM and its namespace dies with it,
	// so the trap cannot keep the command alive either way.
	assert.Regexp(t, `^process kill sessionId=`+id+` signal=SIGTERM( then SIGKILL)? status=exited exitCode=(137|143)$`, out)
}

func TestPollWaitsForExit(t *testing.T) {
	e, _ := newTestExecutor(t, func(c *Config) { c.AllowedCommands = []string{"echo", "sleep"} })
	id := sessionID(t, run(t, e, "exec", "command", "sleep 0.3; echo done; exit 4", "background", true))
	out := run(t, e, "process", "action", "poll", "sessionId", id, "timeoutMs", 10000)
	assert.Regexp(t, `^process poll sessionId=`+id+` status=exited exitCode=4 runtimeMs=\d+\nnew output:\ndone$`, out)
}

func TestYieldMs(t *testing.T) {
	e, _ := newTestExecutor(t, func(c *Config) { c.AllowedCommands = []string{"echo", "sleep"} })

	// Finishes within the yield: a plain result, no session left behind.
	out := run(t, e, "exec", "command", "echo quick", "yieldMs", 5000)
	assert.Regexp(t, `^exec exitCode=0 timedOut=false durationMs=\d+\noutput:\nquick$`, out)
	assert.Equal(t, "process list sessions=0", run(t, e, "process", "action", "list"))

	// Outlives the yield: output so far, then a background session.
	out = run(t, e, "exec", "command", "echo first; sleep 0.6; echo second", "yieldMs", 200)
	assert.Regexp(t, `^exec still running after yieldMs=200; continuing in background sessionId=[0-9a-f]{8} pid=\d+ \(use process poll/log/write/kill\)\noutput:\nfirst$`, out)
	id := sessionID(t, out)
	out = run(t, e, "process", "action", "poll", "sessionId", id, "timeoutMs", 10000)
	assert.True(t, strings.HasSuffix(out, "\nnew output:\nsecond"), "poll returns only output after the yield: %q", out)
	assert.Contains(t, out, "status=exited exitCode=0")

	// Without background support the yield is ignored (foreground run).
	fg, _ := newTestExecutor(t, func(c *Config) { c.AllowedCommands = []string{"echo", "sleep"}; c.AllowBackground = false })
	out = run(t, fg, "exec", "command", "sleep 0.3; echo late", "yieldMs", 50)
	assert.Regexp(t, `^exec exitCode=0 .*\noutput:\nlate$`, out)
	out = run(t, fg, "exec", "command", "echo x", "background", true)
	assert.Equal(t, "exec failed: background sessions are disabled (codingTools.allowBackground=false)", out)
}

func TestSessionEviction(t *testing.T) {
	e, _ := newTestExecutor(t, func(c *Config) { c.AllowedCommands = []string{"echo", "sleep"} })
	e.maxSessions = 3

	var finished []string
	for i := range 2 {
		id := sessionID(t, run(t, e, "exec", "command", fmt.Sprintf("echo %d", i), "background", true))
		run(t, e, "process", "action", "poll", "sessionId", id, "timeoutMs", 10000)
		finished = append(finished, id)
	}
	running := sessionID(t, run(t, e, "exec", "command", "sleep 30", "background", true))

	// Full (3): the oldest finished session makes room.
	id4 := sessionID(t, run(t, e, "exec", "command", "sleep 30", "background", true))
	list := run(t, e, "process", "action", "list")
	assert.NotContains(t, list, finished[0], "oldest finished evicted")
	assert.Contains(t, list, finished[1])
	assert.Contains(t, list, running)
	assert.Contains(t, list, id4)

	id5 := sessionID(t, run(t, e, "exec", "command", "sleep 30", "background", true))
	list = run(t, e, "process", "action", "list")
	assert.NotContains(t, list, finished[1])
	assert.Contains(t, list, "sessions=3")

	// Only running sessions left: no eviction, a clear refusal.
	out := run(t, e, "exec", "command", "sleep 30", "background", true)
	assert.Equal(t, "exec failed: too many running sessions (3); kill one with process kill", out)
	for _, id := range []string{running, id4, id5} {
		assert.Contains(t, run(t, e, "process", "action", "kill", "sessionId", id), "status=exited")
	}
}

func TestExecCancellation(t *testing.T) {
	e, _ := newTestExecutor(t, func(c *Config) { c.AllowedCommands = []string{"sleep"} })
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := e.Execute(ctx, act("exec", "command", "sleep 20"))
	require.ErrorIs(t, err, context.Canceled)
}
