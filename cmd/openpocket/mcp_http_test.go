package main_test

import (
	"bufio"
	"context"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// TestMCPOverHTTPProcess runs `openpocket mcp --http 127.0.0.1:0 --token …`
// as its own process: the SDK's streamable client with the token lists the
// tools and takes a snapshot; a request without it gets 401; SIGTERM stops
// the server with exit 0.
func TestMCPOverHTTPProcess(t *testing.T) {
	phone := simtest.Start(t)
	cmd := exec.Command(binary, "--home", t.TempDir(), "-s", phone.Serial(), "mcp", "--http", "127.0.0.1:0")
	cmd.Env = append(cmd.Environ(), "OPENPOCKET_MCP_TOKEN=s3cret")
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	url := listeningURL(t, bufio.NewReader(stderr))

	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	transport := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerToken("s3cret")}}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(ctx, transport, nil)
	require.NoError(t, err)
	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(tools.Tools), 15)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "snapshot"})
	require.NoError(t, err)
	require.False(t, res.IsError, text(res))
	assert.Contains(t, text(res), "current app com.android.launcher3")
	cs.Close()

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		assert.NoError(t, err, "exit 0 after SIGTERM")
	case <-time.After(30 * time.Second):
		t.Fatal("the HTTP server did not stop on SIGTERM")
	}
}

// listeningURL reads the server's log until it says where it listens.
func listeningURL(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	addr := regexp.MustCompile(`serving streamable HTTP addr=(http://\S+)`)
	found := make(chan string, 1)
	go func() {
		for {
			line, err := r.ReadString('\n')
			if m := addr.FindStringSubmatch(line); m != nil {
				found <- m[1]
			}
			if err != nil {
				return
			}
		}
	}()
	select {
	case url := <-found:
		return url
	case <-time.After(30 * time.Second):
		t.Fatal("openpocket mcp --http did not report its address")
		return ""
	}
}

type bearerToken string

func (b bearerToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// TestMCPRefusesAnOpenAddressWithoutToken: beyond loopback without a token
// is bad input (exit 2), named before anything listens.
func TestMCPRefusesAnOpenAddressWithoutToken(t *testing.T) {
	cmd := exec.Command(binary, "--home", t.TempDir(), "mcp", "--http", "0.0.0.0:0")
	cmd.Env = append(cmd.Environ(), "OPENPOCKET_MCP_TOKEN=")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "%s", out)
	assert.Equal(t, 2, ee.ExitCode())
	assert.Contains(t, string(out), "listens beyond loopback: set a bearer token with --token")
}
