package agent_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/stdlib/agent"
)

// BenchmarkAgentStep measures the agent's per-step runtime overhead with an
// instant model (no HTTP): each step taps the Wi-Fi switch in Settings. The
// floor is the same device work done directly in the same run — Capture
// (scaled + set-of-mark) and Execute (scaled, observed) — so
// ratio = agent ms/step ÷ floor ms/step is what the Lua loop, prompt
// building, the session file, the trace file and the step screenshot cost
// on top (target < 1.2).
func BenchmarkAgentStep(b *testing.B) {
	r := newRig(b)
	mark := r.settingsWifiMark()
	ctx := context.Background()
	tr, err := r.openDevice(ctx)
	require.NoError(b, err)
	p := device.NewPhone(tr, device.Options{})
	_, err = p.LaunchApp(ctx, "com.android.settings")
	require.NoError(b, err)
	tap, err := action.New("tap_element", map[string]any{"elementId": mark})
	require.NoError(b, err)

	// Warm both paths once.
	snap, err := p.Capture(ctx, device.CaptureOptions{Scaled: true, SOM: true, Installed: true})
	require.NoError(b, err)
	_, err = p.Execute(ctx, tap, device.ActOptions{Snapshot: snap, Scaled: true, Observe: true})
	require.NoError(b, err)

	m := &fakeModel{next: func(engine.ModelRequest) (engine.ModelReply, error) {
		return engine.ModelReply{Action: tap, Thought: "toggle", Usage: engine.Usage{TotalTokens: 1}}, nil
	}}

	// Floor and agent alternate in rounds of up to 10 steps so drift in a
	// shared machine's load hits both alike; each agent round is a whole
	// run (session, VM, system prompt, installed apps), amortized over its
	// steps.
	var floor, run time.Duration
	b.ResetTimer()
	for done := 0; done < b.N; {
		n := min(10, b.N-done)
		start := time.Now()
		for range n {
			snap, err := p.Capture(ctx, device.CaptureOptions{Scaled: true, SOM: true})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := p.Execute(ctx, tap, device.ActOptions{Snapshot: snap, Scaled: true, Observe: true}); err != nil {
				b.Fatal(err)
			}
		}
		floor += time.Since(start)

		start = time.Now()
		res, err := agent.Run(ctx, r.session(ctx, r.engine(m), "toggle Wi-Fi forever"), agent.Options{MaxSteps: n})
		run += time.Since(start)
		if err != nil || res.Steps != n {
			b.Fatalf("agent run: %v (%d steps: %s)", err, res.Steps, res.Message)
		}
		done += n
	}
	b.StopTimer()

	floorMs := float64(floor.Microseconds()) / 1000 / float64(b.N)
	agentMs := float64(run.Microseconds()) / 1000 / float64(b.N)
	b.ReportMetric(floorMs, "floor-ms/step")
	b.ReportMetric(agentMs, "agent-ms/step")
	b.ReportMetric(agentMs/floorMs, "ratio")
}
