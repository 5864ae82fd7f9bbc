package sandbox

import (
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// gateDialEnv makes the test binary TestAnotherUserCannotUseTheGate's
// other user (TestMain): it dials the socket named there, asks the adb
// server's version and says whether it got an answer.
const gateDialEnv = "SANDBOX_GATE_DIAL"

func TestMain(m *testing.M) {
	if sock := os.Getenv(gateDialEnv); sock != "" {
		os.Stdout.WriteString(dialGate(sock) + "\n")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// dialGate asks the gate at sock for host:version: "reached: …" with the
// answer, or "refused: …" with why not.
func dialGate(sock string) string {
	c, err := net.DialTimeout("unix", sock, 5*time.Second)
	if err != nil {
		return "refused: " + err.Error()
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	writeRequest(c, "host:version")
	b, _ := io.ReadAll(c)
	if strings.HasPrefix(string(b), "OKAY") {
		return "reached: " + string(b)
	}
	return "refused: " + string(b)
}

// TestAnotherUserCannotUseTheGate: another local user (nobody, a copy of
// this test binary in helper mode) cannot use a run's adb gate: the
// socket's owner-only directory stops the connect, and with the directory
// and socket opened to everyone the gate itself refuses a peer of another
// uid (SO_PEERCRED). The run's own user gets the server's answer.
func TestAnotherUserCannotUseTheGate(t *testing.T) {
	if os.Getuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("CI runs as root so that this test can run a process as another user")
		}
		t.Skip("needs root to run a process as another user")
	}
	srv := versionServer(t)
	g, err := NewADBGate(func() (GateDevice, error) { return GateDevice{Serial: "x", Server: srv.Addr().String()}, nil })
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	sock := filepath.Join(g.Dir(), gateSocket)
	if got := dialGate(sock); !strings.HasPrefix(got, "reached: OKAY00040029") {
		t.Fatalf("the run's own user: %s", got)
	}
	if st, err := os.Stat(g.Dir()); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("the gate's directory: %v %v; want mode 0700", st.Mode(), err)
	}

	bin := filepath.Join(t.TempDir(), "sandbox.test")
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{os.WriteFile(bin, data, 0o755), os.Chmod(filepath.Dir(bin), 0o755), os.Chmod(filepath.Dir(filepath.Dir(bin)), 0o755)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	asNobody := func() string {
		cmd := exec.Command(bin)
		cmd.Dir = "/"
		cmd.Env = append(os.Environ(), gateDialEnv+"="+sock)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the other user's process: %v\n%s", err, out)
		}
		return string(out)
	}
	if out := asNobody(); !strings.HasPrefix(out, "refused: ") || !strings.Contains(out, "permission denied") {
		t.Errorf("another user through the directory: %s", out)
	}
	// Opened to everyone by mistake: the gate still refuses the peer.
	if err := os.Chmod(g.Dir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sock, 0o777); err != nil {
		t.Fatal(err)
	}
	if out := asNobody(); !strings.HasPrefix(out, "refused: ") || !strings.Contains(out, "uid 65534 refused") {
		t.Errorf("another user at an open socket: %s", out)
	}
}
