package skills_test

import (
	"testing"
	"time"

	"github.com/openpocket/openpocket/internal/sim/android"
	"github.com/openpocket/openpocket/internal/skills"
)

// BenchmarkReplayVsAgent compares a replay with the agent-style run it was
// learned from (capture, an instant scripted decision, execute with
// observation): device round trips per step and model time. The replay
// calls no model at all.
func BenchmarkReplayVsAgent(b *testing.B) {
	s := takePhone(b)
	f := flows()[1] // note: launch, dialog, tap, type, save, finish
	var agentTrips, replayTrips, steps int64
	var agentDur, replayDur time.Duration
	var src string
	for i := 0; b.Loop(); i++ {
		s.Phone().Reset()
		phone, c := openPhone(b, s)
		r := newRecorder(b, phone)
		t0 := time.Now()
		f.record(r)
		agentDur += time.Since(t0)
		agentTrips += c.n.Load()
		steps += int64(len(r.steps))
		if src == "" {
			src, _ = skills.GenerateReplay(r.steps, skills.ReplayOptions{Name: "note", ScreenWidth: 1080, ScreenHeight: 2400})
		}

		s.Phone().Reset()
		phone, c = openPhone(b, s)
		t0 = time.Now()
		if _, err := replay(b, phone, src, f.params, nil); err != nil {
			b.Fatal(err)
		}
		replayDur += time.Since(t0)
		replayTrips += c.n.Load()
		if !contains(s.Phone().Notes(), "call mom") {
			b.Fatal("replay did not save the note")
		}
	}
	n := float64(b.N)
	perStep := float64(steps) / n
	b.ReportMetric(float64(agentTrips)/n/perStep, "agent-trips/step")
	b.ReportMetric(float64(replayTrips)/n/perStep, "replay-trips/step")
	b.ReportMetric(float64(agentDur.Milliseconds())/n, "agent-ms/run")
	b.ReportMetric(float64(replayDur.Milliseconds())/n, "replay-ms/run")
	b.ReportMetric(0, "replay-model-ms/run")
	if replayTrips > agentTrips {
		b.Fatalf("replay used more device round trips (%d) than the agent run (%d)", replayTrips, agentTrips)
	}
	_ = android.PkgNotes
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
