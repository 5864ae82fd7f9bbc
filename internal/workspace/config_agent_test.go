package workspace

import (
	"strings"
	"testing"
)

// TestAgentLoopBreakerAndBudgetKeys: agent.stuckAfter and agent.maxTokens
// load, default sensibly, and a bad value is an error naming the file,
// line and key with what was expected.
func TestAgentLoopBreakerAndBudgetKeys(t *testing.T) {
	d := DefaultConfig().Agent
	if d.StuckAfter != DefaultStuckAfter || d.MaxTokens != 0 {
		t.Fatalf("defaults: stuckAfter=%d maxTokens=%d", d.StuckAfter, d.MaxTokens)
	}
	cfg, err := LoadConfig(writeConfig(t, `{"agent": {"stuckAfter": 6, "maxTokens": 50000}}`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Agent.StuckAfter != 6 || cfg.Agent.MaxTokens != 50000 {
		t.Fatalf("loaded: %+v", cfg.Agent)
	}
	if cfg, err = LoadConfig(writeConfig(t, `{"agent": {"stuckAfter": 0}}`)); err != nil || cfg.Agent.StuckAfter != 0 {
		t.Fatalf("stuckAfter 0 turns the loop breaker off: %v %+v", err, cfg.Agent)
	}
	cases := []struct{ text, want string }{
		{"{\n  \"agent\": {\"stuckAfter\": 1}\n}", "config.json:2:27: agent.stuckAfter: expected 0 (off) or a number of steps of at least 2, got 1"},
		{"{\n  \"agent\": {\n    \"stuckAfter\": -3\n  }\n}", "config.json:3:19: agent.stuckAfter: expected 0 (off) or a number of steps of at least 2, got -3"},
		{"{\"agent\": {\"maxTokens\": -1}}", "config.json:1:25: agent.maxTokens: expected a number of tokens of at least 0 (0: no budget), got -1"},
		{"{\"agent\": {\"maxTokens\": \"lots\"}}", "config.json:1:25: agent.maxTokens: expected a number, got string"},
		{"{\"agent\": {\"stuckAfter\": 2.5}}", "agent.stuckAfter: expected a whole number, got number 2.5"},
	}
	for _, c := range cases {
		_, err := LoadConfig(writeConfig(t, c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("config %s\nerror = %v\nwant it to contain %q", c.text, err, c.want)
		}
	}
}

// TestAgentReplayFirstKey: agent.replayFirst is on by default, false
// turns it off, and a value that is not a boolean is an error at its line.
func TestAgentReplayFirstKey(t *testing.T) {
	if !DefaultConfig().Agent.ReplayFirst {
		t.Fatal("agent.replayFirst defaults to true")
	}
	cfg, err := LoadConfig(writeConfig(t, `{"agent": {"replayFirst": false}}`))
	if err != nil || cfg.Agent.ReplayFirst {
		t.Fatalf("replayFirst false: %v %+v", err, cfg.Agent)
	}
	cfg, err = LoadConfig(writeConfig(t, `{"agent": {"maxSteps": 5}}`))
	if err != nil || !cfg.Agent.ReplayFirst {
		t.Fatalf("absent replayFirst keeps the default: %v %+v", err, cfg.Agent)
	}
	_, err = LoadConfig(writeConfig(t, "{\n  \"agent\": {\"replayFirst\": \"no\"}\n}"))
	if err == nil || !strings.Contains(err.Error(), "config.json:2:") || !strings.Contains(err.Error(), "agent.replayFirst") {
		t.Fatalf("a string for replayFirst: %v", err)
	}
}
