package main_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/browsertest"
	"github.com/openpocket/openpocket/internal/humanauth"
	"github.com/openpocket/openpocket/internal/workspace"
	"github.com/openpocket/openpocket/stdlib/agent"
)

// TestGatewayServesTheRelay: the gateway's relay serves requests any run
// of the agent makes (they are files in the state directory), here one
// made by another process. (Moved from internal/cli: the gateway is
// internal/gateway now, joined to the CLI here.)
func TestGatewayServesTheRelay(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	ws, err := workspace.Open(home)
	require.NoError(t, err)
	cfg := ws.Config()
	cfg.HumanAuth.Enabled, cfg.HumanAuth.RelayPort = true, 0
	require.NoError(t, ws.SaveConfig(cfg))

	cmd := exec.Command(binary, "--home", home, "gateway", "--stop-timeout", "10s")
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=", workspace.EnvHome+"=")
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	relayLine := regexp.MustCompile(`human-auth relay: (http://127\.0\.0\.1:\d+)$`)
	base := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := relayLine.FindStringSubmatch(sc.Text()); m != nil {
				base <- m[1]
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	var url string
	select {
	case url = <-base:
	case <-time.After(30 * time.Second):
		t.Fatal("the gateway did not start its relay")
	}

	links := make(chan humanauth.Link, 1)
	b := &humanauth.Broker{Store: humanauth.Open(filepath.Join(home, "state")), BaseURL: url, MaxTimeout: time.Minute,
		OnLink: func(l humanauth.Link) { links <- l }}
	decs := make(chan agent.HumanAuthDecision, 1)
	go func() {
		d, _ := b.Ask(context.Background(), agent.HumanAuthRequest{ID: "other-step-1", Capability: "2fa", Instruction: "code"})
		decs <- d
	}()
	l := <-links
	bctx := browsertest.Browser(t, browsertest.Phone)
	require.NoError(t, chromedp.Do(bctx, chromedp.Navigate(l.URL), chromedp.WaitVisible("#f_code"),
		chromedp.SendKeys("#f_code", "555000"), chromedp.Click("#approve"), chromedp.WaitVisible("#message")))
	d := <-decs
	assert.Equal(t, "approved", d.Status)
	assert.Equal(t, "555000", d.Text)
}
