package skills_test

import (
	"os"
	"testing"
	"time"

	"github.com/openpocket/openpocket/internal/llm"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/skills"
)

// BenchmarkReplayVsAgent compares a replay with the agent run it was
// learned from — the real agent loop and openai-go client against the fake
// server, with the screen-reading model (instant) — on the note task (a
// launch, a permission dialog answered mid-run, a tap, typing, save): model
// calls and device round trips per step, both measured. The replay must
// make no model call and no more round trips per step than the agent.
func BenchmarkReplayVsAgent(b *testing.B) {
	s := takePhone(b)
	srv := llmtest.NewServer(b)
	model := &screenModel{}
	srv.Respond(model.reply)
	srv.DiscardRequests()
	b.Setenv("OPENAI_API_KEY", "")
	client, err := llm.New(llm.Profile{Name: "bench", BaseURL: srv.BaseURL(), Model: "gpt-test"}, llm.Options{Timeout: 20 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	c := learnCases()[1]
	var agentTrips, replayTrips, agentSteps, replaySteps, agentCalls, replayCalls int64
	var agentDur, replayDur time.Duration
	for b.Loop() {
		s.Phone().Reset()
		phone, n := openPhone(b, s)
		model.use(c.policy)
		calls0 := model.Calls()
		t0 := time.Now()
		steps := runAgent(b, phone, client, c.task)
		agentDur += time.Since(t0)
		agentTrips += n.n.Load()
		agentSteps += int64(len(steps))
		agentCalls += int64(model.Calls() - calls0)
		art, err := skills.Write(skills.ArtifactOptions{Workspace: b.TempDir(), Task: c.task, Steps: steps})
		if err != nil {
			b.Fatal(err)
		}
		src, err := os.ReadFile(art.ScriptPath)
		if err != nil {
			b.Fatal(err)
		}

		s.Phone().Reset()
		phone, n = openPhone(b, s)
		calls0 = model.Calls()
		t0 = time.Now()
		res, err := replay(b, phone, string(src), map[string]string{"text_1": "call mom"}, nil)
		if err != nil {
			b.Fatal(err)
		}
		replayDur += time.Since(t0)
		replayTrips += n.n.Load()
		replaySteps += int64(len(res.Steps))
		replayCalls += int64(model.Calls() - calls0)
		if err := c.done(s.Phone(), "call mom"); err != nil {
			b.Fatal(err)
		}
	}
	runs := float64(b.N)
	agentPerStep := float64(agentTrips) / float64(agentSteps)
	replayPerStep := float64(replayTrips) / float64(replaySteps)
	b.ReportMetric(agentPerStep, "agent-trips/step")
	b.ReportMetric(replayPerStep, "replay-trips/step")
	b.ReportMetric(replayPerStep/agentPerStep, "replay/agent-trips")
	b.ReportMetric(float64(agentCalls)/runs, "agent-model-calls/run")
	b.ReportMetric(float64(replayCalls)/runs, "replay-model-calls/run")
	b.ReportMetric(float64(agentDur.Milliseconds())/runs, "agent-ms/run")
	b.ReportMetric(float64(replayDur.Milliseconds())/runs, "replay-ms/run")
	if replayCalls != 0 {
		b.Fatalf("the replay called the model %d times", replayCalls)
	}
	if replayPerStep > agentPerStep {
		b.Fatalf("the replay used more device round trips per step (%.1f) than the agent run (%.1f)", replayPerStep, agentPerStep)
	}
}
