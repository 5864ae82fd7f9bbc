package sandbox

import (
	"fmt"
	"os"
)

// Guarantee is one confinement a machine does or does not provide, as
// `openpocket doctor` lists it.
type Guarantee struct {
	Name  string
	Holds bool
	How   string // how it holds, or why not and what to do
}

// Guarantees lists what confinement holds here for a process of uid
// root (or not). Without bubblewrap nothing holds and scripts are refused.
func (c Capabilities) Guarantees(root bool) []Guarantee {
	if !c.Bwrap {
		return []Guarantee{{"sandbox", false, c.BwrapErr + "; run_script and exec are refused"}}
	}
	net := "a private network namespace; a script reaches the adb server only through its gate, for its own phone"
	if c.LandlockABI >= 4 {
		net += fmt.Sprintf("; Landlock ABI %d denies it every TCP bind and connect", c.LandlockABI)
	} else {
		net += "; no Landlock network rules here (the namespace alone holds)"
	}
	procs := Guarantee{"processes", true, "a pids cgroup per run (scriptExecutor.limits.processes)"}
	switch {
	case c.PidsCgroup != "":
	case !root:
		procs.How = "RLIMIT_NPROC (no writable pids cgroup here; the limit counts this user's processes)"
	default:
		procs = Guarantee{"processes", false, noProcessLimit}
	}
	return []Guarantee{
		{"files", true, "bubblewrap at " + c.BwrapPath + ": the workspace read-write, system directories read-only, no home"},
		{"network", true, net},
		procs,
		{"memory", true, "RLIMIT_DATA per process and a /tmp tmpfs of the same size (scriptExecutor.limits.memoryMb)"},
		{"file size, CPU, open files", true, "rlimits per process"},
	}
}

// noProcessLimit is why processes cannot be bounded, and what to do.
const noProcessLimit = "no writable pids cgroup and running as root, where RLIMIT_NPROC does not bind: a fork bomb could not be bounded, so run_script and exec are refused; give openpocket a pids cgroup it may write (cgroup v2 delegation, or a container with the pids controller) or run it as a regular user"

// processLimitMissing is the refusal when no process limit would hold.
func processLimitMissing(c Capabilities, root bool) error {
	if c.PidsCgroup != "" || !root {
		return nil
	}
	return fmt.Errorf("%w: %s (or opt out with %s in config.json)", ErrUnavailable, noProcessLimit, OptOutKey)
}

func isRoot() bool { return os.Geteuid() == 0 }
