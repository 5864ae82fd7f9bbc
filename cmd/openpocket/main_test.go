package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/emulator/emulatortest"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/internal/workspace"
)

// These tests run the built binary as a user would, to check what only a
// real process shows: signals reach runs, and every run is finalized.

var binary string

func TestMain(m *testing.M) {
	if os.Getenv(rssHelperEnv) != "" {
		os.Exit(rssHelper())
	}
	emulatortest.RunStandinIfAsked() // the stand-in SDK's emulator is this binary
	dir, err := os.MkdirTemp("", "openpocket-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "openpocket")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build openpocket: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// start runs the binary with a private home and returns the command and a
// reader of its stdout.
func start(t *testing.T, home string, args ...string) (*exec.Cmd, *bufio.Reader, *lockedBuilder) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"--home", home}, args...)...)
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr := &lockedBuilder{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, bufio.NewReader(out), stderr
}

// lockedBuilder is a strings.Builder the process's stderr copier writes
// while the test reads it.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// exitCode waits for the process, bounded, and returns its exit code.
func exitCode(t *testing.T, cmd *exec.Cmd, stdout *bufio.Reader) int {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		// Drain stdout so the process never blocks writing to it.
		for {
			if _, err := stdout.ReadString('\n'); err != nil {
				break
			}
		}
		done <- cmd.Wait()
	}()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		require.NoError(t, err)
		return 0
	case <-time.After(30 * time.Second):
		t.Fatal("the process did not exit after the signal")
		return -1
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func attached(t *testing.T, serial string) bool {
	devs, err := adb.NewClient("").Devices(context.Background())
	require.NoError(t, err)
	for _, d := range devs {
		if d.Serial == serial && d.State == "device" {
			return true
		}
	}
	return false
}

func TestSimCommandDetachesOnSIGTERM(t *testing.T) {
	simtest.RequireADB(t)
	cmd, stdout, stderr := start(t, t.TempDir(), "sim", "--size", "720x1280")
	serial, err := stdout.ReadString('\n')
	require.NoError(t, err, stderr.String())
	serial = strings.TrimSpace(serial)
	require.True(t, strings.HasPrefix(serial, "127.0.0.1:"), serial)
	waitFor(t, "the virtual phone to be attached", func() bool { return attached(t, serial) })

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, 0, exitCode(t, cmd, stdout), stderr.String())
	assert.False(t, attached(t, serial), "the phone was detached from the adb server")
}

// homeWithModel makes a home whose default model is the fake server.
func homeWithModel(t *testing.T, srv *llmtest.Server) string {
	home := filepath.Join(t.TempDir(), "home")
	h, err := workspace.Open(home)
	require.NoError(t, err)
	cfg := h.Config()
	cfg.Models = map[string]workspace.ModelProfile{"fake": {BaseURL: srv.BaseURL(), Model: "gpt-fake"}}
	cfg.DefaultModel = "fake"
	cfg.Agent.LoopDelayMs = 0
	require.NoError(t, h.SaveConfig(cfg))
	return home
}

func TestAgentInterruptedBySIGTERMFinalizesTheSession(t *testing.T) {
	phone := simtest.Start(t)
	srv := llmtest.NewServer(t)
	srv.ReplyTool("launch_app", map[string]any{"packageName": "com.android.settings"})
	srv.ReplyTool("wait", map[string]any{"durationMs": 60000})
	home := homeWithModel(t, srv)

	cmd, stdout, stderr := start(t, home, "--device", phone.Serial(), "agent", "open settings and wait")
	sessions := filepath.Join(home, "workspace", "sessions")
	var session string
	waitFor(t, "the first step to be recorded", func() bool {
		files, _ := filepath.Glob(filepath.Join(sessions, "session-*.md"))
		if len(files) != 1 {
			return false
		}
		b, _ := os.ReadFile(files[0])
		session = files[0]
		return strings.Contains(string(b), "### Step 1") && len(srv.Requests()) >= 2
	})
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, 130, exitCode(t, cmd, stdout), stderr.String())

	b, err := os.ReadFile(session)
	require.NoError(t, err)
	s := string(b)
	assert.Contains(t, s, "## Final\n\n- status: FAILED")
	assert.Contains(t, s, "cancelled")
	assert.Equal(t, 1, strings.Count(s, "## Final"), "finalized exactly once")
	// The daily file (YYYY-MM-DD.md); a fresh workspace's memory/ also
	// holds upstream's starter README.md.
	mem, err := filepath.Glob(filepath.Join(home, "workspace", "memory", "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].md"))
	require.NoError(t, err)
	require.Len(t, mem, 1)
	mb, _ := os.ReadFile(mem[0])
	assert.Contains(t, string(mb), "[FAIL]")
}

func TestPlayInterruptedBySIGINTWritesItsReport(t *testing.T) {
	phone := simtest.Start(t)
	dir := t.TempDir()
	pb := filepath.Join(dir, "slow.yaml")
	require.NoError(t, os.WriteFile(pb, []byte("name: slow\nsteps:\n  - launch: com.android.settings\n  - sleep: 60s\n"), 0o644))
	out := filepath.Join(dir, "report")

	cmd, stdout, stderr := start(t, t.TempDir(), "--device", phone.Serial(), "play", pb, "--output", out)
	waitFor(t, "the launch step to pass", func() bool { return phone.Phone().CurrentPackage() == "com.android.settings" })
	time.Sleep(300 * time.Millisecond) // into the sleep step
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	assert.Equal(t, 130, exitCode(t, cmd, stdout), stderr.String())

	steps, err := filepath.Glob(filepath.Join(out, "*-slow", "steps.json"))
	require.NoError(t, err)
	require.Len(t, steps, 1, "the interrupted run still wrote its steps")
	var fr struct {
		Status, Error string
		Steps         []struct{ ID, Status, Label string }
	}
	b, err := os.ReadFile(steps[0])
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &fr))
	assert.Equal(t, "failed", fr.Status)
	assert.Equal(t, pb+":4: sleep 1m0s: interrupted", fr.Error, "reported at the YAML line of the running step")
	require.NotEmpty(t, fr.Steps)
	assert.Equal(t, "passed", fr.Steps[0].Status)
	assert.Equal(t, "1", fr.Steps[0].ID)
}
