package sandbox

import (
	"os/exec"
	"testing"
	"time"
)

// BenchmarkConfinedStart reports what confinement adds to starting a
// process: `true` through the helper and bubblewrap, as a ratio against
// starting `true` directly (the floor, measured in the same run).
func BenchmarkConfinedStart(b *testing.B) {
	if !Probe().Bwrap {
		b.Skip("no bubblewrap here")
	}
	const floorRuns = 20
	start := time.Now()
	for range floorRuns {
		if err := exec.Command("true").Run(); err != nil {
			b.Fatal(err)
		}
	}
	floor := time.Since(start) / floorRuns
	s := New(ModeAuto, b.Logf)
	ws := b.TempDir()
	b.ResetTimer()
	for range b.N {
		cmd, err := s.Command(Spec{Args: []string{"true"}, Workspace: ws})
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(floor), "x-floor")
	b.ReportMetric(float64(floor.Microseconds()), "floor-µs")
}
