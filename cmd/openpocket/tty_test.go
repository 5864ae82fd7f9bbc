package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/workspace"
)

// ptyOutput collects what the program writes to a pty's slave side.
type ptyOutput struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (p *ptyOutput) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.buf.String()
}

func readPTY(master *os.File) *ptyOutput {
	o := &ptyOutput{}
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := master.Read(b)
			o.mu.Lock()
			o.buf.Write(b[:n])
			o.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return o
}

// TestInitAsksOnlyATerminal: `openpocket init` on a terminal asks for the
// model endpoint; with stdin from /dev/null (a character device, but no
// terminal: a script, cron) it asks nothing, even when stdout is a
// terminal, and writes the defaults.
func TestInitAsksOnlyATerminal(t *testing.T) {
	const question = "Model endpoint base URL"
	for _, tc := range []struct {
		name     string
		devNull  bool
		wantAsks bool
	}{
		{name: "stdin /dev/null", devNull: true},
		{name: "stdin a pty", wantAsks: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			master, slave := openPTY(t)
			out := readPTY(master)
			home := filepath.Join(t.TempDir(), "home")
			cmd := exec.Command(binary, "--home", home, "init")
			cmd.Env = append(os.Environ(), "OPENAI_API_KEY=", workspace.EnvHome+"=")
			cmd.Stdout, cmd.Stderr = slave, slave
			cmd.Stdin = slave
			if tc.devNull {
				null, err := os.Open(os.DevNull)
				require.NoError(t, err)
				defer null.Close()
				cmd.Stdin = null
			}
			require.NoError(t, cmd.Start())
			if tc.wantAsks {
				waitFor(t, "the first question", func() bool { return strings.Contains(out.String(), question) })
				_, err := master.WriteString("\n\n\n\n")
				require.NoError(t, err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				require.NoError(t, err, out.String())
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("init did not end; output:\n%s", out.String())
			}
			waitFor(t, "init's last line", func() bool { return strings.Contains(out.String(), "next: openpocket doctor") })
			assert.Equal(t, tc.wantAsks, strings.Contains(out.String(), question), out.String())
			_, err := os.Stat(filepath.Join(home, "config.json"))
			assert.NoError(t, err, "the config is written either way")
		})
	}
}
