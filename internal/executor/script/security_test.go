package script

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/internal/sandbox"
)

// needSandbox skips only outside CI when bubblewrap is missing: CI installs
// it through make setup.
func needSandbox(t *testing.T) {
	t.Helper()
	if c := sandbox.Probe(); !c.Bwrap {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must have working bubblewrap: %s", c.BwrapErr)
		}
		t.Skipf("no confinement here: %s (make setup installs bubblewrap)", c.BwrapErr)
	}
}

// modelSees runs script as the run_script action and returns the text the
// model would receive.
func modelSees(t *testing.T, e *Executor, script string) string {
	t.Helper()
	out, err := e.Execute(context.Background(), action.Action{Type: "run_script", Params: map[string]any{"script": script, "timeoutSec": 20}})
	require.NoError(t, err)
	return out
}

// TestAllowlistBypassesRefused: each script ran `id` through the old
// text-based checker with the default allowlist. Now each is refused with
// the reason the model sees, and id never runs.
func TestAllowlistBypassesRefused(t *testing.T) {
	needSandbox(t)
	e := New(t.TempDir(), Config{})
	cases := []struct{ name, script, want string }{
		{"IFS splitting", "bash${IFS}-c${IFS}id${IFS}/ls", `command name "bash${IFS}-c${IFS}id${IFS}/ls" (line 1) is not a plain word`},
		{"awk system", `awk 'BEGIN{system("id")}'`, `command "awk" (line 1) can run other programs and is not in the allowlist`},
		{"sed e command", "echo id | sed e", `command "sed" (line 1) can run other programs and is not in the allowlist`},
		{"setsid", "setsid id", `command "setsid" (line 1) runs other programs`},
		{"ANSI-C NUL", "echo $'\\x00'; id", `command "id" (line 1) is not in the allowlist`},
		{"prompt expansion", "y='$(id)'; echo ${y@P}; ${y@P}", `command name "${y@P}" (line 1) is not a plain word`},
		{"arithmetic before heredoc", "echo $[1<<2] <<EOF\nx\nEOF\nid", `command "id" (line 4) is not in the allowlist`},
		{"command substitution", "echo $(id)", `command "id" (line 1) is not in the allowlist`},
		{"eval", `eval "i""d"`, `"eval" (line 1) runs code given as data and is never allowed`},
		{"variable command", "c=id; $c", `command name "$c" (line 1) is not a plain word`},
		{"path to a program", "/usr/bin/id", `command "/usr/bin/id" (line 1): name programs without a directory`},
		{"find -exec", "find . -exec id ;", `command "find" (line 1) can run other programs and is not in the allowlist`},
		{"xargs", "echo id | xargs", `command "xargs" (line 1) runs other programs`},
		{"env", "env id", `command "env" (line 1) runs other programs`},
		{"nohup", "nohup id", `command "nohup" (line 1) runs other programs`},
		{"timeout", "timeout 1 id", `command "timeout" (line 1) runs other programs`},
		{"source", "echo id > x.sh; . ./x.sh", `"." (line 1) runs code given as data`},
		{"function hiding a name", "f() { id; }; f", `command "id" (line 1) is not in the allowlist`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := modelSees(t, e, c.script)
			assert.Contains(t, out, "run_script rejected: ")
			assert.Contains(t, out, c.want)
			assert.NotContains(t, out, "uid=", "id ran")
		})
	}
}

// TestExpandedNameCheckedAtRun: a name only known after expansion (here
// built by a function argument) is checked when it runs.
func TestExpandedNameCheckedAtRun(t *testing.T) {
	needSandbox(t)
	out := modelSees(t, New(t.TempDir(), Config{}), "echo before; x() { echo \"$1\"; }; x ok; ec${NOPE}ho done")
	assert.Contains(t, out, `is not a plain word`)
}

// TestAllowedCatCannotReadSecrets: with nothing bypassed, the allowed cat
// only sees the workspace: OpenPocket's config (the API key), the parent's
// environment in /proc, /etc/shadow, ~/.ssh are all absent.
func TestAllowedCatCannotReadSecrets(t *testing.T) {
	needSandbox(t)
	home := t.TempDir()
	ws := filepath.Join(home, "workspace")
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".ssh"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"apiKey":"sk-test-SECRET"}`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("PRIVATE-KEY-SECRET"), 0o600))
	t.Setenv("OPENPOCKET_HOME", home)
	t.Setenv("OPENAI_API_KEY", "sk-env-SECRET")
	userHome, _ := os.UserHomeDir()
	e := New(ws, Config{})
	for _, c := range []struct{ script, want string }{
		{"cat " + home + "/config.json", "No such file or directory"},
		{"cat ../config.json", "No such file or directory"},
		{"cat < ../../config.json", "outside the workspace"},
		{"cat /proc/$PPID/environ", "/environ: No such file or directory"},
		{"cat /etc/shadow", "/etc/shadow: No such file or directory"},
		{"ls " + home + "/.ssh", "No such file or directory"},
		{"ls " + userHome + "/.ssh", "No such file or directory"},
		{"cat < /etc/shadow", "outside the workspace"},
	} {
		out := modelSees(t, e, c.script)
		assert.Contains(t, out, c.want, c.script)
		for _, secret := range []string{"SECRET", "sk-env"} {
			assert.NotContains(t, out, secret, c.script)
		}
	}
}

// TestForkBombEnds: the run's pids cgroup stops a fork bomb at its limit
// ("fork: retry: Resource temporarily unavailable") and the timeout ends
// every process of it.
func TestForkBombEnds(t *testing.T) {
	needSandbox(t)
	if sandbox.Probe().PidsCgroup == "" && os.Getuid() == 0 {
		missingInCI(t, "no pids cgroup and running as root: only the timeout bounds a fork bomb here")
	}
	e := New(t.TempDir(), Config{AllowedCommands: []string{"*"}, Limits: sandbox.Limits{Processes: 32}})
	start := time.Now()
	res, err := e.Run(context.Background(), "bash -c 'b() { b | b & }; b; sleep 30'", 3*time.Second)
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 15*time.Second)
	assert.True(t, res.TimedOut, "%+v", res)
	assert.Contains(t, res.Stderr, "fork: retry: Resource temporarily unavailable", "%+v", res)
	assert.Eventually(t, func() bool { return !running("bash\x00-c\x00b() { b | b & }; b; sleep 30") }, 5*time.Second, 50*time.Millisecond,
		"fork bomb processes survived the run")
}

// TestHugeWriteContained: a 10 GB write stops at the file size limit.
func TestHugeWriteContained(t *testing.T) {
	needSandbox(t)
	ws := t.TempDir()
	e := New(ws, Config{AllowedCommands: []string{"head", "ls"}, Limits: sandbox.Limits{FileBytes: 4 << 20}})
	res, err := e.Run(context.Background(), "head -c 10G /dev/zero > big.bin", 20*time.Second)
	require.NoError(t, err)
	fi, err := os.Stat(filepath.Join(ws, "scripts", "big.bin"))
	require.NoError(t, err)
	assert.LessOrEqual(t, fi.Size(), int64(4<<20))
	assert.Equal(t, 128+25, res.ExitCode, "SIGXFSZ ends the writer: %+v", res)
}

// TestFIFORefused: a redirection from a FIFO neither hangs nor reads.
func TestFIFORefused(t *testing.T) {
	needSandbox(t)
	ws := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "scripts"), 0o755))
	require.NoError(t, mkfifo(filepath.Join(ws, "scripts", "pipe")))
	out := modelSees(t, New(ws, Config{}), "cat < pipe")
	assert.Contains(t, out, "not a regular file")
}

// TestSandboxUnavailableRefuses: without confinement, scripts are refused
// with the opt-out key named; opting out runs them (and logs loudly).
func TestSandboxUnavailableRefuses(t *testing.T) {
	var logged []string
	off := sandbox.New(sandbox.ModeOff, func(f string, a ...any) { logged = append(logged, f) })
	res, err := New(t.TempDir(), Config{Sandbox: off}).Run(context.Background(), "ls", 0)
	require.NoError(t, err)
	assert.Equal(t, "runs\n", res.Stdout)
	require.NotEmpty(t, logged)
	assert.True(t, strings.Contains(logged[0], "UNCONFINED"), logged[0])
}

// TestADBWorksInsideTheSandbox: a script's adb client reaches the adb
// server through the run's gate.
func TestADBWorksInsideTheSandbox(t *testing.T) {
	needSandbox(t)
	needADB(t)
	out := modelSees(t, New(t.TempDir(), Config{}), "adb devices")
	assert.Contains(t, out, "run_script exitCode=0")
	assert.Contains(t, out, "List of devices attached")
}

func needADB(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("adb"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI must have adb")
		}
		missingInCI(t, "adb is not installed (make setup installs it)")
	}
}

// missingInCI skips a test whose kernel feature this machine lacks, but
// fails it in CI: the CI machine has it, and a skipped security test there
// would hide a regression.
func missingInCI(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(why + " (CI must run this test)")
	}
	t.Skip(why)
}

// TestProgramRunningOptionsOfAllowedTools: sort, an allowed tool, cannot
// be made to run a program (--compress-program in any spelling), and a
// listed sed runs with --sandbox, so its e command runs nothing.
func TestProgramRunningOptionsOfAllowedTools(t *testing.T) {
	needSandbox(t)
	e := New(t.TempDir(), Config{})
	for _, script := range []string{
		"ls > f; sort -S 1 --compress-program=bash f",
		"ls > f; sort --comp bash f",
		"opt=--compress-program; sort $opt=bash f",
	} {
		out := modelSees(t, e, script)
		assert.Contains(t, out, `runs another program and is never allowed`, script)
	}
	out := modelSees(t, New(t.TempDir(), Config{AllowedCommands: []string{"sed", "echo"}}), "echo id | sed e")
	assert.Contains(t, out, "e/r/w commands disabled in sandbox mode")
	assert.NotContains(t, out, "uid=")
}
