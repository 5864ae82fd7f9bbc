package sandbox

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// needBwrap skips only outside CI when bubblewrap is missing; CI installs it.
func needBwrap(t *testing.T) {
	t.Helper()
	if c := Probe(); !c.Bwrap {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must have working bubblewrap: %s", c.BwrapErr)
		}
		t.Skipf("no confinement here: %s (make setup installs bubblewrap)", c.BwrapErr)
	}
}

func run(t *testing.T, spec Spec) (string, int) {
	t.Helper()
	cmd, err := New(ModeAuto, t.Logf).Command(spec)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), code
}

func TestConfinedView(t *testing.T) {
	needBwrap(t)
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "mine.txt"), []byte("mine"), 0o644)
	home, _ := os.UserHomeDir()
	t.Setenv("OPENAI_API_KEY", "sk-should-not-pass")
	script := `cat mine.txt; echo; echo written > out.txt; ` +
		`cat /etc/shadow; ls ` + home + `; ls /proc | grep -c '^[0-9]'; env; echo UID=$(id -u)`
	out, _ := run(t, Spec{Args: []string{"sh", "-c", script}, Workspace: ws, Env: os.Environ()})
	for _, want := range []string{"mine", "/etc/shadow: No such file or directory", home + "': No such file or directory", "PATH=" + basePath, "UID=65534"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "sk-should-not-pass") || strings.Contains(out, "OPENAI_API_KEY") {
		t.Errorf("the API key reached the sandbox:\n%s", out)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "out.txt")); err != nil || string(b) != "written\n" {
		t.Errorf("workspace write: %q %v", b, err)
	}
}

// TestGatedScriptHasNoNetwork: a process with an adb gate (a script)
// reaches nothing on the host's network — not a TCP listener, not the
// adb port itself, not a UDP socket — and a listener it opens (perl, any
// address, an ephemeral port) is never reachable from the host.
func TestGatedScriptHasNoNetwork(t *testing.T) {
	needBwrap(t)
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	gate, err := NewADBGate(func() (GateDevice, error) { return GateDevice{Serial: "emulator-5554"}, nil })
	if err != nil {
		t.Fatal(err)
	}
	defer gate.Close()
	port := func(a net.Addr) string { _, p, _ := net.SplitHostPort(a.String()); return p }
	ws := t.TempDir()
	script := `(exec 3<>/dev/tcp/127.0.0.1/` + port(tcp.Addr()) + `) && echo TCP-OK; ` +
		`(exec 3<>/dev/tcp/127.0.0.1/5037) && echo ADB-PORT-OK; ` +
		`echo datagram > /dev/udp/127.0.0.1/` + port(udp.LocalAddr()) + `; ` +
		`perl -MIO::Socket::INET -e '$s=IO::Socket::INET->new(Listen=>5,LocalAddr=>"0.0.0.0",LocalPort=>0,Proto=>"tcp") or die "listen: $!\n"; ` +
		`open F,">port.tmp"; print F $s->sockport; close F; rename "port.tmp","port"; $SIG{ALRM}=sub{die "no one came\n"}; alarm 3; $c=$s->accept; print "ACCEPTED\n"'; true`
	reached := make(chan string, 1)
	go func() { // connect to whatever port the script listens on
		for range 60 {
			if b, err := os.ReadFile(filepath.Join(ws, "port")); err == nil {
				if c, err := net.DialTimeout("tcp", "127.0.0.1:"+string(b), time.Second); err == nil {
					c.Close()
					reached <- string(b)
					return
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
		reached <- ""
	}()
	out, _ := run(t, Spec{Args: []string{"bash", "-c", script}, Workspace: ws, ADBGate: gate})
	for _, bad := range []string{"TCP-OK", "ADB-PORT-OK", "ACCEPTED"} {
		if strings.Contains(out, bad) {
			t.Errorf("%s: the sandbox reached the host's network:\n%s", bad, out)
		}
	}
	if p := <-reached; p != "" {
		t.Errorf("the host connected to the script's listener on port %s", p)
	}
	udp.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if n, _, err := udp.ReadFrom(make([]byte, 64)); err == nil {
		t.Errorf("a %d-byte UDP datagram from the sandbox reached the host", n)
	}
}

func TestLimits(t *testing.T) {
	needBwrap(t)
	ws := t.TempDir()
	out, code := run(t, Spec{Args: []string{"sh", "-c", "head -c 10000000 /dev/zero > big; echo rc=$?"}, Workspace: ws, Limits: Limits{FileBytes: 1 << 20}})
	fi, err := os.Stat(filepath.Join(ws, "big"))
	if err != nil || fi.Size() > 1<<20 {
		t.Errorf("file size limit not applied: %v %v (exit %d) %s", fi, err, code, out)
	}
	cg, err := NewCgroup(16)
	if err != nil {
		t.Fatal(err)
	}
	if cg == nil {
		missingInCI(t, "no pids cgroup here")
	}
	defer cg.Close()
	out, _ = run(t, Spec{Args: []string{"sh", "-c", "for i in $(seq 40); do sleep 2 & done 2>&1 | head -1; echo done"}, Workspace: ws, Cgroup: cg})
	if !strings.Contains(out, "fork") {
		t.Errorf("40 processes started under pids.max 16:\n%s", out)
	}
}

func TestUnavailableNamesOptOut(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	c := probe()
	if c.Bwrap || !strings.Contains(c.BwrapErr, "not installed") {
		t.Fatalf("probe with no bwrap on PATH: %+v", c)
	}
}

func TestRefusesWithoutConfinement(t *testing.T) {
	s := New(ModeAuto, t.Logf)
	s.probe = func() Capabilities { return Capabilities{BwrapErr: "bubblewrap (bwrap) is not installed"} }
	_, err := s.Command(Spec{Args: []string{"ls"}, Workspace: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), `opt out with scriptExecutor.sandbox: "off"`) || !strings.Contains(err.Error(), "not installed") {
		t.Fatalf("want a refusal naming the opt-out key, got %v", err)
	}
	var logged string
	off := New(ModeOff, func(f string, a ...any) { logged = f })
	cmd, err := off.Command(Spec{Args: []string{"ls"}, Workspace: t.TempDir()})
	if err != nil || cmd.Path == "" || !strings.Contains(logged, "UNCONFINED") {
		t.Fatalf("opt-out: %v %q", err, logged)
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
