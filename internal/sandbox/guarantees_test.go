package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestTmpIsBoundedByMemoryLimit: the sandbox's /tmp is memory; it holds no
// more than the memory limit (here 8 MiB), whatever the file size limit.
func TestTmpIsBoundedByMemoryLimit(t *testing.T) {
	needBwrap(t)
	ws := t.TempDir()
	out, _ := run(t, Spec{Args: []string{"sh", "-c", "head -c 32M /dev/zero > /tmp/fill; echo rc=$?; wc -c < /tmp/fill > " + filepath.Join(ws, "size")},
		Workspace: ws, Limits: Limits{MemoryBytes: 8 << 20}})
	if !strings.Contains(out, "No space left on device") {
		t.Errorf("32 MiB fit in /tmp under an 8 MiB memory limit:\n%s", out)
	}
	b, err := os.ReadFile(filepath.Join(ws, "size"))
	if n, perr := strconv.Atoi(strings.TrimSpace(string(b))); err != nil || perr != nil || n > 8<<20 {
		t.Errorf("size of /tmp/fill: %q %v", b, err)
	}
}

// TestRootWithoutPidsCgroupRefused: as root with no writable pids cgroup
// (a container), RLIMIT_NPROC would not bind: commands are refused with
// the reason and what to do; a regular user falls back to RLIMIT_NPROC.
func TestRootWithoutPidsCgroupRefused(t *testing.T) {
	caps := Capabilities{Bwrap: true, BwrapPath: "/usr/bin/bwrap", LandlockABI: 4}
	s := New(ModeAuto, t.Logf)
	s.probe = func() Capabilities { return caps }
	s.root = true
	_, err := s.Command(Spec{Args: []string{"true"}, Workspace: t.TempDir()})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "no writable pids cgroup and running as root") || !strings.Contains(err.Error(), OptOutKey) {
		t.Fatalf("want a refusal naming the missing pids cgroup, got %v", err)
	}
	s.root = false
	if _, err := s.Command(Spec{Args: []string{"true"}, Workspace: t.TempDir()}); err != nil {
		t.Fatalf("a regular user falls back to RLIMIT_NPROC: %v", err)
	}
}

// TestGuaranteesSayWhatHolds: doctor's list marks the process limit as not
// holding for root without a pids cgroup, and names the fallback otherwise.
func TestGuaranteesSayWhatHolds(t *testing.T) {
	find := func(gs []Guarantee, name string) Guarantee {
		for _, g := range gs {
			if g.Name == name {
				return g
			}
		}
		t.Fatalf("no %q in %+v", name, gs)
		return Guarantee{}
	}
	c := Capabilities{Bwrap: true, BwrapPath: "/usr/bin/bwrap"}
	if g := find(c.Guarantees(true), "processes"); g.Holds || !strings.Contains(g.How, "refused") {
		t.Errorf("root without pids cgroup: %+v", g)
	}
	if g := find(c.Guarantees(false), "processes"); !g.Holds || !strings.Contains(g.How, "RLIMIT_NPROC") {
		t.Errorf("user without pids cgroup: %+v", g)
	}
	c.PidsCgroup, c.LandlockABI = "/sys/fs/cgroup/pids", 6
	if g := find(c.Guarantees(true), "processes"); !g.Holds || !strings.Contains(g.How, "pids cgroup") {
		t.Errorf("with a pids cgroup: %+v", g)
	}
	if g := find(c.Guarantees(true), "network"); !strings.Contains(g.How, "Landlock ABI 6") {
		t.Errorf("network: %+v", g)
	}
	if gs := (Capabilities{BwrapErr: "bubblewrap (bwrap) is not installed"}).Guarantees(false); len(gs) != 1 || gs[0].Holds {
		t.Errorf("without bwrap: %+v", gs)
	}
}
