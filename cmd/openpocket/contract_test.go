package main_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// TestSimDetachesWhenOutputIsClosed pipes a --sim run into a reader that
// stops after one line, like `| head -1`: the process must still detach
// the virtual phone from the adb server instead of dying of SIGPIPE.
func TestSimDetachesWhenOutputIsClosed(t *testing.T) {
	simtest.RequireADB(t)
	script := writeFile(t, t.TempDir(), "loop.lua", "print(device.info().serial)\nfor i = 1, 600 do print('line ' .. i); device.wait({duration_ms = 100}) end\n")
	cmd := exec.Command(binary, "--home", t.TempDir(), "--sim", "run", script)
	cmd.Env = append(os.Environ(), "ANDROID_SERIAL=")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	serial, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err, stderr.String())
	serial = strings.TrimSpace(serial)
	require.True(t, attached(t, serial))
	require.NoError(t, out.Close()) // the reader goes away

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the run went on after its output was closed")
	}
	assert.NotEqual(t, -1, cmd.ProcessState.ExitCode(), "exited, not killed by SIGPIPE: %s", stderr.String())
	assert.False(t, attached(t, serial), "the virtual phone was detached")
}

func TestAndroidSerialSelectsTheDevice(t *testing.T) {
	phone := simtest.Start(t)
	home := t.TempDir()
	res := runBinary(t, []string{"ANDROID_SERIAL=" + phone.Serial()}, "--home", home, "snapshot", "--json")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stdout, `"deviceId": "`+phone.Serial()+`"`)

	res = runBinary(t, []string{"ANDROID_SERIAL=nope:1"}, "--home", home, "snapshot")
	assert.Equal(t, 3, res.code)
	assert.Contains(t, res.stderr, `"nope:1" is not attached`)
}

func TestADBServerSocketIsHonoured(t *testing.T) {
	port := closedPort(t)
	res := runBinary(t, []string{"ADB_SERVER_SOCKET=tcp:127.0.0.1:" + itoa(port), "PATH=" + t.TempDir()}, "--home", t.TempDir(), "devices")
	assert.Equal(t, 3, res.code)
	assert.Contains(t, res.stderr, "127.0.0.1:"+itoa(port))
}

// TestBashCompletion sources the generated script in a real bash and asks
// it to complete, as a user pressing Tab would.
func TestBashCompletion(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	script := `source <(openpocket completion bash)
COMP_WORDS=(openpocket pl); COMP_CWORD=1; _openpocket; echo "1:${COMPREPLY[*]}"
COMP_WORDS=(openpocket cron en); COMP_CWORD=2; _openpocket; echo "2:${COMPREPLY[*]}"
COMP_WORDS=(openpocket play --dry); COMP_CWORD=2; _openpocket; echo "3:${COMPREPLY[*]}"`
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(binary)+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "1:play\n")
	assert.Contains(t, string(out), "2:enable\n")
	assert.Contains(t, string(out), "3:--dry-run\n")
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestCompletionAsInvoked: README's `source <(bin/openpocket completion
// bash)` (and zsh, fish) completes `bin/openpocket …` with no openpocket
// on PATH: the scripts register the name as invoked and run it.
func TestCompletionAsInvoked(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	work := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(work, "bin"), 0o755))
	require.NoError(t, os.Symlink(binary, filepath.Join(work, "bin", "openpocket")))
	run := func(name string, args ...string) string {
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		return string(out)
	}
	_, err := exec.LookPath("openpocket")
	require.Error(t, err, "openpocket must not be on PATH for this test")

	out := run("bash", "-c", `source <(bin/openpocket completion bash)
complete -p bin/openpocket
COMP_WORDS=(bin/openpocket pl); COMP_CWORD=1; _openpocket; echo "1:${COMPREPLY[*]}"
COMP_WORDS=(bin/openpocket cron en); COMP_CWORD=2; _openpocket; echo "2:${COMPREPLY[*]}"`)
	assert.Contains(t, out, "complete -F _openpocket bin/openpocket\n")
	assert.Contains(t, out, "1:play\n")
	assert.Contains(t, out, "2:enable\n")

	out = run("fish", "--no-config", "-c", `bin/openpocket completion fish | source; complete -C"bin/openpocket pl"; complete -C"bin/openpocket cron en"`)
	assert.Equal(t, "play\nenable\n", out)

	out = run("zsh", "-f", "-c", `compdef() { print -r -- "compdef $*"; }
source <(bin/openpocket completion zsh)
compadd() { [[ $1 == -S ]] && shift 2; [[ $1 == -- ]] && shift; for c in "$@"; do [[ -n $c ]] && print -r -- "$c"; done; }
words=(bin/openpocket cron en); CURRENT=3; _openpocket`)
	assert.Equal(t, "compdef _openpocket openpocket bin/openpocket\nenable\n", out)
}

// TestZshAndFishCompletion loads the generated scripts in real zsh and
// fish (make setup installs both) and asks them to complete.
func TestZshAndFishCompletion(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	env := append(os.Environ(), "PATH="+filepath.Dir(binary)+":"+os.Getenv("PATH"))

	fish := exec.CommandContext(ctx, "fish", "--no-config", "-c",
		`openpocket completion fish | source; complete -C"openpocket pl"; complete -C"openpocket cron en"; complete -C"openpocket play --dry"`)
	fish.Env = env
	out, err := fish.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, "play\nenable\n--dry-run\n", string(out))

	// zsh's completion widgets need a terminal; call the function with
	// compadd replaced by a printer, which is what it hands candidates to.
	zsh := exec.CommandContext(ctx, "zsh", "-f", "-c", `compdef() { :; }
source <(openpocket completion zsh)
compadd() { [[ $1 == -S ]] && shift 2; [[ $1 == -- ]] && shift; for c in "$@"; do [[ -n $c ]] && print -r -- "$c"; done; }
words=(openpocket cron en); CURRENT=3; _openpocket
words=(openpocket pl); CURRENT=2; _openpocket`)
	zsh.Env = env
	out, err = zsh.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, "enable\nplay\n", string(out))
}

// TestClosedOutputPipeEndsQuietly: `openpocket sessions list | head -1`
// whose reader is gone before the write (made certain here by closing the
// read end first) exits 130 with nothing on stderr, not "write
// /dev/stdout: broken pipe" and exit 1.
func TestClosedOutputPipeEndsQuietly(t *testing.T) {
	home := t.TempDir()
	for _, args := range [][]string{{"sessions", "list"}, {"model", "list"}, {"completion", "bash"}} {
		r, w, err := os.Pipe()
		require.NoError(t, err)
		require.NoError(t, r.Close())
		cmd := exec.Command(binary, append([]string{"--home", home}, args...)...)
		cmd.Stdout = w
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err = cmd.Run()
		w.Close()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "%v", args)
		assert.Equal(t, 130, ee.ExitCode(), "%v: %s", args, stderr.String())
		assert.Empty(t, stderr.String(), "%v", args)
	}
}
