package workspace

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func problems(warns []Warning) []string {
	var out []string
	for _, w := range warns {
		if !w.Note {
			out = append(out, w.String())
		}
	}
	return out
}

func notesByPath(warns []Warning) map[string]Warning {
	m := map[string]Warning{}
	for _, w := range warns {
		if w.Note {
			m[w.Path] = w
		}
	}
	return m
}

// Upstream's README: a config written by upstream "loads as is". Our test
// copy of its example config (every key config-defaults.md documents, with
// a few values changed so that the migration shows) loads with no
// unknown-key warning; every upstream key is migrated or noted.
func TestUpstreamExampleConfigLoadsWithoutWarnings(t *testing.T) {
	t.Setenv("OP_TEST_TG_TOKEN", "123:abc")
	data, err := os.ReadFile("testdata/upstream-example.json")
	require.NoError(t, err)
	cfg, warns, err := ParseConfig("config.json", data)
	require.NoError(t, err)
	assert.Empty(t, problems(warns), "no unknown-key warnings")

	// Migrated values.
	assert.Equal(t, "physical-phone", cfg.Target.Type)
	assert.Equal(t, "192.168.1.50:5555", cfg.Target.AdbEndpoint, "adb's port added, as upstream does")
	assert.Equal(t, "1234", cfg.Target.Pin)
	assert.Equal(t, "minimal", cfg.Agent.SystemPromptMode)
	assert.Equal(t, 80, cfg.Agent.MaxSteps)
	assert.Equal(t, 8899, cfg.HumanAuth.RelayPort, "humanAuth.localRelayPort")
	assert.Equal(t, "127.0.0.1", cfg.HumanAuth.RelayHost)
	assert.True(t, cfg.HumanAuth.Enabled)
	tg := cfg.Channels.Telegram
	assert.Equal(t, "OP_TEST_TG_TOKEN", tg.BotTokenEnv, "the legacy top-level telegram block")
	assert.Equal(t, []int64{1001, 1002}, tg.AllowedChatIDs)
	assert.Equal(t, []int64{42, 43}, tg.AllowedUserIDs, "channels.telegram.allowFrom")
	assert.True(t, tg.Enabled, "channels.telegram without enabled starts when a token is configured")
	assert.True(t, tg.StartedByUpstreamRule)
	assert.Equal(t, 2, tg.ProgressEverySteps, "agent.progressReportInterval")

	// Every note names its position, and says why.
	notes := notesByPath(warns)
	for _, path := range []string{"projectName", "emulator", "telegram", "agent.lang", "target.wakeupIntervalSec",
		"humanAuth.tunnel", "humanAuth.relayBaseUrl", "models.aliyun-ui-agent/mobile.backend", "channels.defaults",
		"channels.telegram.allowFrom", "channels.telegram", "target.adbEndpoint", "humanAuth.localRelayPort"} {
		n, ok := notes[path]
		if assert.True(t, ok, "a note for %s", path) {
			assert.Positive(t, n.Line, path)
			assert.Positive(t, n.Column, path)
		}
	}
	assert.Contains(t, notes["channels.telegram"].Message, "the Telegram channel starts")
	assert.Contains(t, notes["humanAuth.tunnel"].Message, "publicBaseUrl")
	assert.Equal(t, [2]int{2, 3}, [2]int{notes["projectName"].Line, notes["projectName"].Column}, "noted keys keep their line and column")
}

// Without a token the channel stays off, as upstream's
// isTelegramConfigured leaves it.
func TestUpstreamTelegramWithoutTokenStaysOff(t *testing.T) {
	t.Setenv("OP_TEST_TG_TOKEN", "")
	data, err := os.ReadFile("testdata/upstream-example.json")
	require.NoError(t, err)
	cfg, warns, err := ParseConfig("config.json", data)
	require.NoError(t, err)
	assert.False(t, cfg.Channels.Telegram.Enabled)
	_, noted := notesByPath(warns)["channels.telegram"]
	assert.False(t, noted)

	cfg, _, err = ParseConfig("config.json", []byte(`{"channels": {"telegram": {"botToken": "1:x", "enabled": false}}}`))
	require.NoError(t, err)
	assert.False(t, cfg.Channels.Telegram.Enabled, "an explicit enabled: false wins")
}

// Upstream's normalizeLegacyKeys: deployment_target and its snake_case
// keys, the PIN spellings (physical before virtual), human_auth's
// local_relay_port and relay_base_url.
func TestUpstreamLegacySpellingsMigrate(t *testing.T) {
	data, err := os.ReadFile("testdata/upstream-legacy.json")
	require.NoError(t, err)
	cfg, warns, err := ParseConfig("config.json", data)
	require.NoError(t, err)
	assert.Empty(t, problems(warns))
	assert.Equal(t, "physical-phone", cfg.Target.Type)
	assert.Equal(t, "10.0.0.7:5555", cfg.Target.AdbEndpoint)
	assert.Equal(t, "2468", cfg.Target.Pin, "physical_phone_pin wins over virtual_phone_pin")
	assert.Equal(t, 9911, cfg.HumanAuth.RelayPort)
	assert.Equal(t, "https://relay.example.org", cfg.HumanAuth.PublicBaseURL)
	assert.Equal(t, "http://127.0.0.1:9/v1", cfg.Models["m"].BaseURL)
	var msgs []string
	for _, w := range warns {
		msgs = append(msgs, w.String())
	}
	joined := strings.Join(msgs, "\n")
	assert.Contains(t, joined, `config.json:3:3: migrated legacy key "deployment_target" to "target"`)
	assert.Contains(t, joined, `upstream key "target.virtual_phone_pin": superseded by target.pin`)
}

// A key nobody documents is still a warning with its line and column.
func TestUnknownKeyBesideUpstreamKeysStaysAWarning(t *testing.T) {
	_, warns, err := ParseConfig("config.json", []byte("{\n  \"projectName\": \"x\",\n  \"agent\": {\"maxStepz\": 3}\n}"))
	require.NoError(t, err)
	assert.Equal(t, []string{`config.json:3:13: unknown key "agent.maxStepz" (did you mean "maxSteps"?); it is ignored`}, problems(warns))
}
