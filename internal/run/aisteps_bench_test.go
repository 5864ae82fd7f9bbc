package run_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/stdlib/aistep"
)

// aiBenchPlaybook has five AI steps on Settings.
const aiBenchPlaybook = `name: five ai steps
steps:
  - launch: {app: com.android.settings, stop: true}
  - ai_tap: the Wi-Fi switch
  - ai_assert: Wi-Fi is off
  - ai_extract: {query: the Wi-Fi state, as: state}
  - ai_tap: the Bluetooth switch
  - ai_assert: Bluetooth is on
`

// plainBenchPlaybook is the floor: the same actions with written
// selectors and no model.
const plainBenchPlaybook = `name: five plain steps
steps:
  - launch: {app: com.android.settings, stop: true}
  - tap: {id: wifi_switch}
  - assert_visible: {id: wifi_switch, checked: false}
  - copy_text: {text: Wi-Fi, as: state}
  - tap: {id: bluetooth_switch}
  - assert_visible: {id: bluetooth_switch, checked: true}
`

// BenchmarkAIPlaybookFirstVsSecondRun: model calls and milliseconds per
// run of a playbook with five AI steps, its first run (nothing in
// .ai.json: every step asks) against its second (everything reused), and
// the second run against the floor of the same steps written by hand,
// measured in the same run.
func BenchmarkAIPlaybookFirstVsSecondRun(b *testing.B) {
	r := newAIRig(b)
	dir := b.TempDir()
	ai, plain := filepath.Join(dir, "five.yaml"), filepath.Join(dir, "plain.yaml")
	if err := os.WriteFile(ai, []byte(aiBenchPlaybook), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(plain, []byte(plainBenchPlaybook), 0o644); err != nil {
		b.Fatal(err)
	}
	play := func(file string) (time.Duration, int) {
		r.sim.Phone().Reset()
		n := r.calls()
		start := time.Now()
		res, err := r.svc.Playbook(b.Context(), run.PlaybookOptions{File: file})
		d := time.Since(start)
		if err != nil || !res.Passed() {
			b.Fatalf("%s: %v %s", file, err, res.Error)
		}
		return d, r.calls() - n
	}
	var first, second, floor time.Duration
	var firstCalls, secondCalls int
	b.ResetTimer()
	for b.Loop() {
		if err := os.Remove(filepath.Join(dir, aistep.StoreName(ai))); err != nil && !os.IsNotExist(err) {
			b.Fatal(err)
		}
		d, n := play(ai)
		first, firstCalls = first+d, firstCalls+n
		d, n = play(ai)
		second, secondCalls = second+d, secondCalls+n
		d, _ = play(plain)
		floor += d
	}
	n := float64(b.N)
	ms := func(d time.Duration) float64 { return float64(d.Milliseconds()) / n }
	b.ReportMetric(float64(firstCalls)/n, "calls/first-run")
	b.ReportMetric(float64(secondCalls)/n, "calls/second-run")
	b.ReportMetric(ms(first), "ms/first-run")
	b.ReportMetric(ms(second), "ms/second-run")
	b.ReportMetric(ms(floor), "ms/plain-run")
	b.ReportMetric(float64(second)/float64(floor), "second/plain")
	b.ReportMetric(float64(second)/float64(first), "second/first")
}
