package sandbox

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// helperArg marks the re-exec of the current binary as the sandbox helper:
// os.Args = [self, helperArg, config, bwrap, bwrap args...]. The helper
// applies what bubblewrap cannot (rlimits, the pids cgroup, Landlock's TCP
// deny) to itself and then becomes bwrap, so every process of the tree
// inherits them.
const helperArg = "__openpocket-sandbox-helper"

// helperConfig is what the helper applies before exec'ing bwrap.
type helperConfig struct {
	Limits      Limits `json:"limits"`
	CgroupProcs string `json:"cgroupProcs,omitempty"`
	// LandlockABI > 0 denies every TCP bind and connect (a gated script).
	LandlockABI int `json:"landlockABI,omitempty"`
}

func (h helperConfig) encode() string {
	b, _ := json.Marshal(h)
	return base64.RawURLEncoding.EncodeToString(b)
}

// The helper runs before main (and before a test binary's TestMain): when
// this binary was started as the helper, it never returns.
func init() {
	if len(os.Args) > 3 && os.Args[1] == helperArg {
		if err := runHelper(os.Args[2], os.Args[3:]); err != nil {
			fmt.Fprintf(os.Stderr, "sandbox: %v\n", err)
			os.Exit(126)
		}
	}
}

func runHelper(config string, argv []string) error {
	raw, err := base64.RawURLEncoding.DecodeString(config)
	if err != nil {
		return fmt.Errorf("helper config: %w", err)
	}
	var h helperConfig
	if err := json.Unmarshal(raw, &h); err != nil {
		return fmt.Errorf("helper config: %w", err)
	}
	if h.CgroupProcs != "" {
		if err := os.WriteFile(h.CgroupProcs, []byte(strconv.Itoa(os.Getpid())), 0); err != nil {
			return fmt.Errorf("join pids cgroup: %w", err)
		}
	}
	if h.CgroupProcs != "" || os.Getuid() == 0 {
		// The cgroup bounds the processes of this run; RLIMIT_NPROC would
		// count every process of the user (and does not bind root).
		h.Limits.Processes = 0
	} else {
		h.Limits.Processes += userTasks()
	}
	if err := setLimits(h.Limits); err != nil {
		return err
	}
	if h.LandlockABI >= 4 {
		if err := denyTCP(h.LandlockABI); err != nil {
			return err
		}
	}
	return syscall.Exec(argv[0], argv, os.Environ())
}

const rlimitNPROC = 6 // RLIMIT_NPROC on Linux (absent from package syscall)

func setLimits(l Limits) error {
	set := []struct {
		name string
		res  int
		v    uint64
	}{
		{"CPU time", syscall.RLIMIT_CPU, l.CPUSeconds},
		// RLIMIT_DATA, not RLIMIT_AS: runtimes such as V8 and Go reserve far
		// more address space than they use, and reservations do not count
		// here while written memory does.
		{"data size", syscall.RLIMIT_DATA, l.MemoryBytes},
		{"file size", syscall.RLIMIT_FSIZE, l.FileBytes},
		{"open files", syscall.RLIMIT_NOFILE, l.OpenFiles},
		{"processes", rlimitNPROC, l.Processes},
	}
	for _, s := range set {
		if s.v == 0 {
			continue
		}
		if err := syscall.Setrlimit(s.res, &syscall.Rlimit{Cur: s.v, Max: s.v}); err != nil {
			return fmt.Errorf("set %s limit: %w", s.name, err)
		}
	}
	return nil
}

// denyTCP refuses every TCP bind and connect (Landlock handles both and
// allows none), and (ABI 6+) scopes abstract unix sockets and signals to
// the sandbox. The private network namespace already hides the host's
// network; this also keeps a script from listening or connecting on the
// namespace's own loopback (an adb client starting a server of its own).
func denyTCP(abi int) error {
	attr := ll.RulesetAttr{HandledAccessNet: ll.AccessNetBindTCP | ll.AccessNetConnectTCP}
	if abi >= 6 {
		attr.Scoped = ll.ScopeAbstractUnixSocket | ll.ScopeSignal
	}
	fd, err := ll.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return fmt.Errorf("landlock ruleset: %w", err)
	}
	defer syscall.Close(fd)
	if err := ll.AllThreadsPrctl(prSetNoNewPrivs, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := ll.AllThreadsLandlockRestrictSelf(fd, 0); err != nil {
		return fmt.Errorf("landlock restrict: %w", err)
	}
	return nil
}

const prSetNoNewPrivs = 38

func landlockABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// userTasks counts the tasks (threads) of this user, which RLIMIT_NPROC
// counts too: the limit is set that much above them.
func userTasks() uint64 {
	uid := strconv.Itoa(os.Getuid())
	dirs, _ := filepath.Glob("/proc/[0-9]*/status")
	var n uint64
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		var mine bool
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
				f := strings.Fields(rest)
				mine = len(f) > 0 && f[0] == uid
			}
			if rest, ok := strings.CutPrefix(line, "Threads:"); ok && mine {
				t, _ := strconv.ParseUint(strings.TrimSpace(rest), 10, 64)
				n += t
			}
		}
	}
	return n
}
