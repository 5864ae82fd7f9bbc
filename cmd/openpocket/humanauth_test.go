package main_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/openpocket/openpocket/internal/browsertest"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/internal/workspace"
)

// authHome is a home whose model is srv and whose relay listens on a free
// loopback port.
func authHome(t *testing.T, srv *llmtest.Server, edit func(*workspace.Config)) string {
	t.Helper()
	home := homeWithModel(t, srv)
	h, err := workspace.Open(home)
	require.NoError(t, err)
	cfg := h.Config()
	cfg.HumanAuth.Enabled, cfg.HumanAuth.RelayHost, cfg.HumanAuth.RelayPort = true, "127.0.0.1", 0
	if edit != nil {
		edit(&cfg)
	}
	require.NoError(t, h.SaveConfig(cfg))
	return home
}

// agentRun is `openpocket agent` running with stdin as given (nil: closed,
// /dev/null), its stderr scanned for relay links.
type agentRun struct {
	cmd    *exec.Cmd
	stdout *bufio.Reader
	mu     sync.Mutex
	stderr strings.Builder
	links  chan [2]string // request id, URL with token
}

var linkLine = regexp.MustCompile(`(?m)^\s+(http://127\.0\.0\.1:\d+/a/[^/]+/auth/([^?\s]+)\?t=\S+)\n`)

func startAgent(t *testing.T, home, serial string, stdin *os.File, task string) *agentRun {
	t.Helper()
	cmd := exec.Command(binary, "--home", home, "--device", serial, "agent", task)
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=", workspace.EnvHome+"=")
	if stdin != nil {
		cmd.Stdin = stdin
	}
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	errp, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	r := &agentRun{cmd: cmd, stdout: bufio.NewReader(out), links: make(chan [2]string, 4)}
	go func() {
		// Chunks, not lines: the terminal prompt ends without a newline.
		buf, seen := make([]byte, 4096), map[string]bool{}
		for {
			n, err := errp.Read(buf)
			r.mu.Lock()
			r.stderr.Write(buf[:n])
			all := r.stderr.String()
			r.mu.Unlock()
			for _, m := range linkLine.FindAllStringSubmatch(all, -1) {
				if !seen[m[2]] {
					seen[m[2]] = true
					r.links <- [2]string{m[2], m[1]}
				}
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return r
}

func (r *agentRun) errText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stderr.String()
}

// waitErr waits for s on the run's stderr.
func (r *agentRun) waitErr(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(r.errText(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q on stderr:\n%s", s, r.errText())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (r *agentRun) link(t *testing.T) (id, url string) {
	t.Helper()
	select {
	case l := <-r.links:
		return l[0], l[1]
	case <-time.After(60 * time.Second):
		t.Fatalf("no relay link printed; stderr:\n%s", r.errText())
		return "", ""
	}
}

// sessionText reads the home's only session file.
func sessionText(t *testing.T, home string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(home, "workspace", "sessions", "session-*.md"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	b, err := os.ReadFile(files[0])
	require.NoError(t, err)
	return string(b)
}

// TestAgentWithoutTerminalIsApprovedOnTheRelayPage: `openpocket agent`
// with stdin closed (a script, nohup, cron) must not answer its own
// "Approve? [y/N]" with end-of-input: the link stays valid until a person
// approves it in a browser, and the run goes on with the approval.
func TestAgentWithoutTerminalIsApprovedOnTheRelayPage(t *testing.T) {
	phone := simtest.Start(t)
	srv := llmtest.NewServer(t)
	srv.ReplyTool("request_human_auth", map[string]any{"capability": "2fa", "instruction": "Enter the sign-in code", "timeoutSec": 120})
	srv.ReplyTool("finish", map[string]any{"message": "signed in"})
	home := authHome(t, srv, nil)

	run := startAgent(t, home, phone.Serial(), nil, "sign in")
	_, url := run.link(t)
	time.Sleep(500 * time.Millisecond) // a terminal answer would have come by now
	ctx := browsertest.Browser(t, browsertest.Viewport{Width: 390, Height: 844, Mobile: true})
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible("#f_code")),
		"the link is still open; stderr:\n%s", run.errText())
	require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys("#f_code", "123456"), chromedp.Click("#approve"), chromedp.WaitVisible("#message")))
	assert.Equal(t, "Approved", pageText(t, ctx, "#title"))

	assert.Equal(t, 0, exitCode(t, run.cmd, run.stdout), run.errText())
	s := sessionText(t, home)
	assert.Contains(t, s, "Human auth approved")
	assert.NotContains(t, s, "input closed")
	assert.NotContains(t, s, "123456", "the code stays out of the session")
}

// TestAgentOnATerminalRacesThePage: with stdin a terminal the prompt and
// the page both ask; whichever answers first decides.
func TestAgentOnATerminalRacesThePage(t *testing.T) {
	t.Run("terminal first", func(t *testing.T) {
		phone := simtest.Start(t)
		srv := llmtest.NewServer(t)
		srv.ReplyTool("request_human_auth", map[string]any{"capability": "2fa", "instruction": "Enter the code", "timeoutSec": 120})
		srv.ReplyTool("wait", map[string]any{"durationMs": 10000}) // the link is looked at meanwhile
		home := authHome(t, srv, nil)
		master, slave := openPTY(t)
		go io.Copy(io.Discard, master)
		run := startAgent(t, home, phone.Serial(), slave, "sign in")
		_, url := run.link(t)
		ctx := browsertest.Browser(t, browsertest.Viewport{Width: 390, Height: 844, Mobile: true})
		run.waitErr(t, "Approve? [y/N]")
		_, err := master.WriteString("y\n")
		require.NoError(t, err)
		run.waitErr(t, "Text to type")
		_, err = master.WriteString("\n")
		require.NoError(t, err)
		waitFor(t, "the model's next step", func() bool { return len(srv.Requests()) >= 2 })
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible("#message")))
		assert.Equal(t, "Already answered", pageText(t, ctx, "#title"), "the answered link says so")

		assert.Equal(t, 0, exitCode(t, run.cmd, run.stdout), run.errText())
		assert.Contains(t, sessionText(t, home), "Human auth approved")
	})
	t.Run("page first", func(t *testing.T) {
		phone := simtest.Start(t)
		srv := llmtest.NewServer(t)
		srv.ReplyTool("request_human_auth", map[string]any{"capability": "2fa", "instruction": "Enter the code", "timeoutSec": 120})
		home := authHome(t, srv, nil)
		master, slave := openPTY(t)
		go io.Copy(io.Discard, master)
		run := startAgent(t, home, phone.Serial(), slave, "sign in")
		_, url := run.link(t)
		run.waitErr(t, "Approve? [y/N]")
		ctx := browsertest.Browser(t, browsertest.Viewport{Width: 390, Height: 844, Mobile: true})
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible("#f_code"),
			chromedp.SendKeys("#f_code", "123456"), chromedp.Click("#approve"), chromedp.WaitVisible("#message")))
		assert.Equal(t, 0, exitCode(t, run.cmd, run.stdout), run.errText())
		assert.Contains(t, sessionText(t, home), "Human auth approved")
		// The terminal, which lost, is told its question is closed.
		assert.Contains(t, run.errText(), "was answered on the relay page (approved); the question above is closed")
	})
}

func pageText(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(sel))
	require.NoError(t, err)
	return s
}

// openPTY opens a pseudo-terminal pair through /dev/ptmx.
func openPTY(t testing.TB) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pty (/dev/ptmx): %v", err)
	}
	var n int
	var ierr error
	rc, err := m.SyscallConn()
	require.NoError(t, err)
	require.NoError(t, rc.Control(func(fd uintptr) {
		if ierr = unix.IoctlSetPointerInt(int(fd), unix.TIOCSPTLCK, 0); ierr == nil {
			n, ierr = unix.IoctlGetInt(int(fd), unix.TIOCGPTN)
		}
	}))
	require.NoError(t, ierr)
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// TestRejectedOrUnansweredAuthEndsTheRun: a rejection (from another
// shell, `openpocket auth reject`) or a timeout ends the task FAILED with
// exit 1 before the model's next action runs, and nothing is learned.
func TestRejectedOrUnansweredAuthEndsTheRun(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		timeout    int
	}{
		{name: "rejected", want: "human auth rejected", timeout: 120},
		{name: "timeout", want: "human auth timeout", timeout: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			phone := simtest.Start(t)
			srv := llmtest.NewServer(t)
			srv.ReplyTool("request_human_auth", map[string]any{"capability": "payment", "instruction": "Pay 19.90 EUR", "timeoutSec": tc.timeout})
			srv.ReplyTool("launch_app", map[string]any{"packageName": "com.android.settings"}) // must never run
			srv.ReplyTool("finish", map[string]any{"message": "paid anyway"})
			home := authHome(t, srv, nil)
			run := startAgent(t, home, phone.Serial(), nil, "pay the order")
			id, _ := run.link(t)
			if tc.name == "rejected" {
				r := runBinary(t, nil, "--home", home, "auth", "reject", id)
				require.Equal(t, 0, r.code, r.stderr)
			}
			out, _ := io.ReadAll(run.stdout)
			require.Error(t, run.cmd.Wait())
			assert.Equal(t, 1, run.cmd.ProcessState.ExitCode(), run.errText())
			assert.Contains(t, string(out), "FAILED: "+tc.want)
			assert.Len(t, srv.Requests(), 1, "the model was not asked for another action")
			assert.NotEqual(t, "com.android.settings", phone.Phone().CurrentPackage(), "the model's next action did not run")
			s := sessionText(t, home)
			assert.Contains(t, s, "- status: FAILED")
			assert.Contains(t, s, tc.want)
			skills, _ := filepath.Glob(filepath.Join(home, "workspace", "skills", "auto", "*"))
			assert.Empty(t, skills, "no skill learned from a failed run")
		})
	}
}

// TestCredentialsFromTheRelayPageLogIn: with stdin closed, a person
// approves a credentials form and then a code on the relay page; the
// runtime types each value into its field and the run ends logged in.
// The password reaches neither the model nor any file the run wrote.
func TestCredentialsFromTheRelayPageLogIn(t *testing.T) {
	phone := simtest.Start(t)
	srv := llmtest.NewServer(t)
	srv.ReplyTool("launch_app", map[string]any{"packageName": "com.openpocket.login"})
	srv.ReplyTool("request_human_auth", map[string]any{"capability": "oauth", "instruction": "Sign in to Login", "timeoutSec": 120,
		"uiTemplate": map[string]any{"artifactKind": "credentials", "fields": []any{
			map[string]any{"id": "username", "label": "User name", "type": "text", "required": true},
			map[string]any{"id": "password", "label": "Password", "type": "password", "required": true}}}})
	srv.ReplyTool("keyevent", map[string]any{"keycode": "KEYCODE_ENTER"})
	srv.ReplyTool("request_human_auth", map[string]any{"capability": "2fa", "instruction": "Enter the code", "timeoutSec": 120,
		"uiTemplate": map[string]any{"fields": []any{
			map[string]any{"id": "code", "label": "Code", "type": "otp", "required": true, "target": "otp"}}}})
	srv.ReplyTool("keyevent", map[string]any{"keycode": "KEYCODE_ENTER"})
	srv.ReplyTool("finish", map[string]any{"message": "logged in"})
	home := authHome(t, srv, func(c *workspace.Config) { c.Agent.ReturnHomeOnTaskEnd = false })
	run := startAgent(t, home, phone.Serial(), nil, "log in")
	ctx := browsertest.Browser(t, browsertest.Viewport{Width: 390, Height: 844, Mobile: true})

	_, url := run.link(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible("#f_password"),
		chromedp.SendKeys("#f_username", "alice"), chromedp.SendKeys("#f_password", "hunter2"),
		chromedp.Click("#approve"), chromedp.WaitVisible("#message")))
	_, url = run.link(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible("#f_code"),
		chromedp.SendKeys("#f_code", "123456"), chromedp.Click("#approve"), chromedp.WaitVisible("#message")))

	assert.Equal(t, 0, exitCode(t, run.cmd, run.stdout), run.errText())
	assert.Equal(t, "com.openpocket.login/.HomeActivity", phone.Phone().CurrentActivity(), "logged in")
	s := sessionText(t, home)
	assert.Contains(t, s, "human_artifact_kind=credentials fields=username,password (secret)")
	for _, r := range srv.Requests() {
		assert.NotContains(t, string(r.Raw), "hunter2", "the model never reads the password")
	}
	for path, text := range filesUnder(t, home) {
		assert.NotContains(t, text, "hunter2", path)
	}
}

// filesUnder is every file a run left under dir, by path: the places a
// secret must not reach (sessions, traces, memory, skills, artifacts,
// logs). A run writes more than a handful; fewer means the walk missed them.
func filesUnder(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		files[path] = string(b)
		return nil
	}))
	require.Greater(t, len(files), 5, "files under %s", dir)
	return files
}
