package workspace

import (
	"strings"
	"testing"
)

func TestMigrateLegacyKeys(t *testing.T) {
	src := `{
  "default_model": "a",
  "models": {"a": {"base_url": "http://127.0.0.1:1/v1", "model": "m"}},
  "agent": {"maxSteps": 7, "max_steps": 9, "made_up_key": 1},
  "human_auth": {"request_timeout_sec": 30}
}`
	cfg, warns, err := ParseConfig("up.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DefaultModel != "a" || cfg.Models["a"].BaseURL != "http://127.0.0.1:1/v1" {
		t.Fatalf("snake_case keys not read: %+v", cfg)
	}
	if cfg.Agent.MaxSteps != 7 {
		t.Errorf("maxSteps = %d: the camelCase key present wins, the snake_case one is not migrated over it", cfg.Agent.MaxSteps)
	}
	if cfg.HumanAuth.RequestTimeoutSec != 30 {
		t.Errorf("a snake_case key below a snake_case parent: requestTimeoutSec = %d", cfg.HumanAuth.RequestTimeoutSec)
	}
	var got []string
	for _, w := range warns {
		got = append(got, w.String())
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		`up.json:2:3: migrated legacy key "default_model" to "defaultModel"`,
		`up.json:3:20: migrated legacy key "base_url" to "baseUrl"`,
		`up.json:5:3: migrated legacy key "human_auth" to "humanAuth"`,
		`unknown key "agent.max_steps"`,
		`unknown key "agent.made_up_key"`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
}

func TestSnakeToCamel(t *testing.T) {
	for in, want := range map[string]string{"return_home_on_task_end": "returnHomeOnTaskEnd", "a": "a", "x__y": "xY", "_lead": "lead"} {
		if got := snakeToCamel(in); got != want {
			t.Errorf("snakeToCamel(%q) = %q, want %q", in, got, want)
		}
	}
}
