package workspace

import (
	"strings"
	"testing"
)

func TestHumanAuthModeAndTakeoverDefaults(t *testing.T) {
	c := DefaultConfig().HumanAuth
	if c.Mode != "apply" || !c.Takeover {
		t.Fatalf("humanAuth.mode = %q, takeover = %v; want apply, true", c.Mode, c.Takeover)
	}
	path := writeConfig(t, "{\n  \"humanAuth\": {\"mode\": \"delegate\", \"takeover\": false}\n}")
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.HumanAuth.Mode != "delegate" || cfg.HumanAuth.Takeover {
		t.Fatalf("loaded mode = %q, takeover = %v", cfg.HumanAuth.Mode, cfg.HumanAuth.Takeover)
	}
}

func TestHumanAuthModeMustBeApplyOrDelegate(t *testing.T) {
	path := writeConfig(t, "{\n  \"humanAuth\": {\"mode\": \"auto\"}\n}")
	_, err := LoadConfig(path)
	want := `humanAuth.mode: expected "apply" or "delegate", got "auto"`
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "config.json:2:") {
		t.Fatalf("error = %v, want %q at its line", err, want)
	}
}
