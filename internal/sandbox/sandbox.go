// Package sandbox confines host processes started on behalf of a model, a
// skill or a script. On Linux it wraps the command in bubblewrap (new user,
// mount, pid, ipc, uts and network namespaces; the workspace read-write,
// system directories read-only, everything else absent) and applies
// resource limits and a pids cgroup through a small re-exec helper of the
// current binary. A process that needs the phone (a script) reaches the adb
// server only through an ADBGate: a unix socket bound into the sandbox,
// served by a filter that lets through the run's own phone and nothing
// else; Landlock then denies it every TCP bind and connect.
//
// Nothing here trusts the command: it is assumed hostile. When no
// confinement works on the machine, Command returns an error naming the
// opt-out key (scriptExecutor.sandbox: "off"); with the opt-out, commands run
// unconfined and every start is logged loudly.
package sandbox

import (
	"errors"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Mode is the scriptExecutor.sandbox setting.
type Mode string

const (
	// ModeAuto confines with bubblewrap and refuses when it is unavailable.
	ModeAuto Mode = "auto"
	// ModeOff runs host processes unconfined (logged on every start).
	ModeOff Mode = "off"
)

// OptOutKey is the config key that disables confinement.
const OptOutKey = `scriptExecutor.sandbox: "off"`

// ParseMode maps a config value to a Mode ("" is ModeAuto).
func ParseMode(s string) (Mode, error) {
	switch Mode(strings.ToLower(strings.TrimSpace(s))) {
	case "", ModeAuto, "on", "bwrap":
		return ModeAuto, nil
	case ModeOff:
		return ModeOff, nil
	}
	return "", fmt.Errorf(`expected "auto" or "off", got %q`, s)
}

// Limits are the resource limits of one confined process tree. Zero fields
// take DefaultLimits' values.
type Limits struct {
	CPUSeconds  uint64 // RLIMIT_CPU per process
	MemoryBytes uint64 // RLIMIT_DATA per process (memory written, not reserved)
	Processes   uint64 // pids cgroup pids.max (RLIMIT_NPROC above the user's count without one)
	FileBytes   uint64 // RLIMIT_FSIZE: largest file a process may write
	OpenFiles   uint64 // RLIMIT_NOFILE
}

// DefaultLimits are used for zero Limits fields.
var DefaultLimits = Limits{
	CPUSeconds:  120,
	MemoryBytes: 2 << 30,
	Processes:   256,
	FileBytes:   512 << 20,
	OpenFiles:   256,
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	pick := func(v, def uint64) uint64 {
		if v == 0 {
			return def
		}
		return v
	}
	return Limits{pick(l.CPUSeconds, d.CPUSeconds), pick(l.MemoryBytes, d.MemoryBytes),
		pick(l.Processes, d.Processes), pick(l.FileBytes, d.FileBytes), pick(l.OpenFiles, d.OpenFiles)}
}

// Spec describes one command to confine.
type Spec struct {
	// Args is the command line inside the sandbox (Args[0] looked up in the
	// sandbox's PATH).
	Args []string
	// Workspace is bound read-write at the same path; Dir (inside it) is the
	// working directory (Workspace when empty).
	Workspace string
	Dir       string
	// Env adds NAME=value entries to the base environment; names outside
	// EnvAllowlist and secret-looking names are dropped.
	Env []string
	// ADBGate, when set, is the process's only way to the adb server (its
	// socket is bound at GateDir and ADB_SERVER_SOCKET names it). Every
	// confined process runs in a private network namespace; with a gate,
	// Landlock (ABI 4+) also denies every TCP bind and connect there.
	ADBGate *ADBGate
	Limits  Limits
	// Cgroup, when non-nil, is joined by the process before it starts
	// (NewCgroup; a script's commands share one process budget).
	Cgroup *Cgroup
}

// EnvAllowlist names the variables a confined process may receive.
var EnvAllowlist = []string{"LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TERM", "TZ", "ANDROID_SERIAL", "ANDROID_ADB_SERVER_PORT", "NO_COLOR", "COLUMNS"}

// basePath is the PATH inside the sandbox.
const basePath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/local/go/bin"

// Sandbox starts confined commands according to a Mode.
type Sandbox struct {
	mode  Mode
	logf  func(format string, args ...any)
	probe func() Capabilities
	root  bool // RLIMIT_NPROC does not bind root
}

// New returns a sandbox in mode; logf receives the loud warnings of
// ModeOff (nil: the standard logger).
func New(mode Mode, logf func(format string, args ...any)) *Sandbox {
	if logf == nil {
		logf = log.Printf
	}
	if mode == "" {
		mode = ModeAuto
	}
	return &Sandbox{mode: mode, logf: logf, probe: Probe, root: isRoot()}
}

// Mode returns the sandbox's mode.
func (s *Sandbox) Mode() Mode { return s.mode }

// ErrUnavailable is wrapped by Command's error when no confinement works.
var ErrUnavailable = errors.New("no confinement available")

// Command returns the command that runs spec confined, or unconfined in
// ModeOff. The caller sets Stdout/Stderr/Stdin and SysProcAttr.
func (s *Sandbox) Command(spec Spec) (*exec.Cmd, error) {
	if len(spec.Args) == 0 {
		return nil, errors.New("sandbox: empty command line")
	}
	if spec.Dir == "" {
		spec.Dir = spec.Workspace
	}
	if s.mode == ModeOff {
		s.logf("WARNING: running %q UNCONFINED because %s: the command can read every file this user can, including API keys", spec.Args[0], OptOutKey)
		cmd := exec.Command(spec.Args[0], spec.Args[1:]...)
		cmd.Dir = spec.Dir
		cmd.Env = Environment(spec.Env, spec.Workspace)
		if spec.ADBGate != nil {
			cmd.Env = append(cmd.Env, spec.ADBGate.hostEnv())
		}
		return cmd, nil
	}
	caps := s.probe()
	if !caps.Bwrap {
		return nil, fmt.Errorf("%w: %s; install bubblewrap (Debian: apt-get install bubblewrap) or opt out with %s in config.json (the command then runs with your full rights)", ErrUnavailable, caps.BwrapErr, OptOutKey)
	}
	if err := processLimitMissing(caps, s.root); err != nil {
		return nil, err
	}
	ws, err := filepath.Abs(spec.Workspace)
	if err != nil {
		return nil, fmt.Errorf("sandbox: workspace: %w", err)
	}
	spec.Workspace = ws
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("sandbox: locate helper: %w", err)
	}
	h := helperConfig{Limits: spec.Limits.withDefaults()}
	if spec.ADBGate != nil && caps.LandlockABI >= 4 {
		h.LandlockABI = caps.LandlockABI
	}
	if spec.Cgroup != nil {
		h.CgroupProcs = spec.Cgroup.procsFile()
	}
	spec.Limits = h.Limits
	args := append([]string{helperArg, h.encode(), caps.BwrapPath}, bwrapArgs(spec)...)
	cmd := exec.Command(self, args...)
	cmd.Dir = "/"
	cmd.Env = []string{} // bwrap --clearenv sets the inner environment
	return cmd, nil
}

// Environment is the allowlisted environment of a confined process: the
// fixed PATH, HOME and TMPDIR plus the allowlisted names of extra (later
// entries win). Secret-looking names never pass.
func Environment(extra []string, home string) []string {
	env := map[string]string{"PATH": basePath, "HOME": home, "TMPDIR": "/tmp", "LANG": "C.UTF-8"}
	for _, kv := range extra {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || !allowedEnv(name) {
			continue
		}
		env[name] = val
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

func allowedEnv(name string) bool {
	for _, a := range EnvAllowlist {
		if a == name {
			return true
		}
	}
	return false
}

// Capabilities is what confinement this machine offers.
type Capabilities struct {
	Bwrap       bool
	BwrapPath   string
	BwrapErr    string
	LandlockABI int
	PidsCgroup  string // a writable pids cgroup directory, "" when none
}

var (
	probeOnce sync.Once
	probed    Capabilities
)

// Probe reports (once per process) what confinement works here: it runs
// bwrap with every namespace unshared, asks the kernel for its Landlock
// ABI and looks for a writable pids cgroup.
func Probe() Capabilities {
	probeOnce.Do(func() { probed = probe() })
	return probed
}

func probe() Capabilities {
	var c Capabilities
	c.LandlockABI = landlockABI()
	c.PidsCgroup = findPidsCgroup()
	path, err := exec.LookPath("bwrap")
	if err != nil {
		c.BwrapErr = "bubblewrap (bwrap) is not installed"
		return c
	}
	out, err := exec.Command(path, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--size", "1048576", "--tmpfs", "/tmp", "true").CombinedOutput()
	if err != nil {
		c.BwrapErr = fmt.Sprintf("bwrap cannot create namespaces here (%v: %s); user namespaces may be disabled", err, strings.TrimSpace(string(out)))
		return c
	}
	c.Bwrap, c.BwrapPath = true, path
	return c
}
