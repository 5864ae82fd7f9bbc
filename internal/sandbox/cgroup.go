package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// pidsRoots are where a pids controller may be mounted: cgroup v1's own
// hierarchy, or the v2 unified hierarchy when it offers pids.
var pidsRoots = []string{"/sys/fs/cgroup/pids", "/sys/fs/cgroup"}

// findPidsCgroup returns a directory under which this process can create a
// pids cgroup, or "".
func findPidsCgroup() string {
	for _, root := range pidsRoots {
		if _, err := os.Stat(filepath.Join(root, "cgroup.procs")); err != nil {
			continue
		}
		dir := filepath.Join(root, "openpocket-probe-"+strconv.Itoa(os.Getpid()))
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			continue
		}
		_, err := os.Stat(filepath.Join(dir, "pids.max"))
		syscall.Rmdir(dir)
		if err == nil {
			return root
		}
	}
	return ""
}

// Cgroup is a pids cgroup holding one run's processes: pids.max bounds a
// fork bomb, and Kill ends every member however it was started.
type Cgroup struct {
	dir string
}

// NewCgroup creates a pids cgroup with room for max processes, or returns
// nil (and no error) when the machine has no writable pids controller; the
// process count then rests on RLIMIT_NPROC, which the kernel does not apply
// to root.
func NewCgroup(max uint64) (*Cgroup, error) {
	root := Probe().PidsCgroup
	if root == "" {
		return nil, nil
	}
	if max == 0 {
		max = DefaultLimits.Processes
	}
	var b [6]byte
	rand.Read(b[:])
	dir := filepath.Join(root, "openpocket-"+hex.EncodeToString(b[:]))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("sandbox: pids cgroup: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.FormatUint(max, 10)), 0); err != nil {
		syscall.Rmdir(dir)
		return nil, fmt.Errorf("sandbox: pids cgroup: %w", err)
	}
	return &Cgroup{dir: dir}, nil
}

func (c *Cgroup) procsFile() string { return filepath.Join(c.dir, "cgroup.procs") }

// Kill sends SIGKILL to every process in the cgroup until it is empty (a
// fork bomb may add members while it is being killed).
func (c *Cgroup) Kill() {
	if c == nil {
		return
	}
	for range 100 {
		b, err := os.ReadFile(c.procsFile())
		if err != nil || len(strings.TrimSpace(string(b))) == 0 {
			return
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Close kills what is left and removes the cgroup.
func (c *Cgroup) Close() {
	if c == nil {
		return
	}
	c.Kill()
	for range 50 {
		if err := syscall.Rmdir(c.dir); err == nil || errors.Is(err, syscall.ENOENT) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
