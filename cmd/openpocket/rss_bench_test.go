package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// snapshotsScript takes 20 full snapshots (fresh UI dump, scaled and
// set-of-mark images encoded) with the screen changed before each.
const snapshotsScript = `
for i = 1, 20 do
  assert(device.shell("settings put global wifi_on " .. (i % 2)))
  local s = assert(screen.capture({som = true, scaled = true, fresh = true}))
  assert(#s.elements > 0)
end
`

// BenchmarkPeakRSS20Snapshots runs the built binary as a user would:
// `openpocket run` of a script taking 20 full snapshots of a changing
// screen, against `openpocket version` (the binary's own resident size),
// measured in the same run. Reported: both peak RSS figures (VmHWM, from
// the kernel's rusage of each process) and what the snapshots add
// (target ≤ 40 MiB).
func BenchmarkPeakRSS20Snapshots(b *testing.B) {
	phone := simtest.Start(b)
	home := b.TempDir()
	script := filepath.Join(b.TempDir(), "snapshots.lua")
	if err := os.WriteFile(script, []byte(snapshotsScript), 0o644); err != nil {
		b.Fatal(err)
	}
	peak := func(args ...string) float64 {
		// Through a helper process: a child started from this (large)
		// process would report this process's peak as its own.
		cmd := exec.Command(os.Args[0], append([]string{binary}, args...)...)
		cmd.Env = append(os.Environ(), "OPENAI_API_KEY=", rssHelperEnv+"=1")
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("openpocket %v: %v\n%s", args, err, out)
		}
		kib, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
		if err != nil {
			b.Fatalf("rss helper said %q", out)
		}
		return kib / 1024
	}
	var version, snapshots, added float64
	for range b.N {
		v := peak("version")
		s := peak("--home", home, "-s", phone.Serial(), "run", script)
		version, snapshots, added = max(version, v), max(snapshots, s), max(added, s-v)
	}
	b.ReportMetric(version, "version-MiB")
	b.ReportMetric(snapshots, "20-snapshots-MiB")
	b.ReportMetric(added, "added-MiB")
}

// rssHelperEnv makes the test binary a helper (TestMain) that runs its
// arguments as a command and prints the command's peak RSS in KiB.
// Linux starts children with vfork, so a child's recorded peak is at
// least its parent's at the time: the helper is small, the test process
// is not.
const rssHelperEnv = "OPENPOCKET_TEST_RSS_HELPER"

func rssHelper() int {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
	return 0
}
