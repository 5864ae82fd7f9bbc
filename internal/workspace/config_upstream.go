package workspace

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// A config.json written by upstream OpenPocket loads as is (README): its
// keys are renamed to ours where this config has the same setting
// (upstreamAliases, and snake_case → camelCase in legacy.go), moved where
// upstream kept a setting elsewhere (applyUpstreamValues), and accepted
// with a note saying why where this runtime has no such setting
// (upstreamOnlyKeys). None of these is a warning: nothing is wrong with the
// file.

// upstreamAliases maps an upstream key, as a dotted path in our spelling of
// its parents with the key itself in camelCase, to our key under the same
// parent (upstream src/config normalizeLegacyKeys and config-defaults.md).
var upstreamAliases = map[string]string{
	"deploymentTarget":         "target",
	"heartbeatConfig":          "heartbeat",
	"cronConfig":               "cron",
	"target.targetType":        "type",
	"target.targetPin":         "pin",
	"target.physicalPhonePin":  "pin",
	"target.virtualPhonePin":   "pin",
	"humanAuth.localRelayHost": "relayHost",
	"humanAuth.localRelayPort": "relayPort",
	"humanAuth.relayBaseUrl":   "publicBaseUrl",
}

// renamePriority orders spellings that rename to the same key: upstream
// uses pin, else physicalPhonePin, else virtualPhonePin.
var renamePriority = map[string]int{
	"target_pin": 0, "physicalPhonePin": 1, "physical_phone_pin": 1,
	"virtualPhonePin": 2, "virtual_phone_pin": 2,
}

// upstreamOnlyKeys are upstream's documented keys this runtime has no
// setting for, by dotted path ("*" matches a model profile name), with why
// they are not needed. A key listed here loads with a note, not a warning.
var upstreamOnlyKeys = map[string]string{
	"projectName":                      "a display name only",
	"workspaceDir":                     "the workspace is OPENPOCKET_HOME/workspace (or the agent's); set OPENPOCKET_HOME to move it",
	"stateDir":                         "state is OPENPOCKET_HOME/state (or the agent's); set OPENPOCKET_HOME to move it",
	"sessionStorage":                   "sessions are always Markdown files under workspace/sessions (docs/formats.md)",
	"emulator":                         "emulators are managed with the Android SDK's own tools and `openpocket target`",
	"dashboard":                        "the dashboard's address is given on the command line (openpocket dashboard)",
	"gatewayLogging":                   "the gateway logs with --log-level and --log-format",
	"pairing":                          "Telegram access is the allowlist in channels.telegram",
	"agent.skillsSpecMode":             "skills load in one mode (docs/skills.md)",
	"agent.lang":                       "the runtime's prompts are English, as upstream normalizes lang to en",
	"agent.verbose":                    "progress is shown on a terminal and kept quiet otherwise",
	"agent.runtimeBackend":             "there is one agent loop (stdlib/agent.lua)",
	"agent.legacyCodingExecutor":       "there is one coding executor",
	"target.wakeupIntervalSec":         "the phone is woken and unlocked before each run instead of on a timer",
	"target.cloudProvider":             "cloud targets are not supported",
	"target.physicalPhonePin":          "superseded by target.pin",
	"target.virtualPhonePin":           "superseded by target.pin",
	"scriptExecutor.enabled":           "run_script is offered whenever the model's tools include it",
	"memoryTools.enabled":              "memory tools are always offered",
	"heartbeat.enabled":                "the gateway always writes its heartbeat",
	"heartbeat.writeLogFile":           "the heartbeat always goes to state/heartbeat.log",
	"cron.enabled":                     "the gateway runs every enabled job of cron.jobsFile; disable jobs one by one",
	"humanAuth.useLocalRelay":          "the relay always runs locally (publicBaseUrl is the address links use)",
	"humanAuth.localRelayHost":         "superseded by humanAuth.relayHost",
	"humanAuth.localRelayPort":         "superseded by humanAuth.relayPort",
	"humanAuth.localRelayStateFile":    "requests are kept under the agent's state directory",
	"humanAuth.relayBaseUrl":           "superseded by humanAuth.publicBaseUrl",
	"humanAuth.apiKey":                 "the local relay authenticates each request with its own one-time token",
	"humanAuth.apiKeyEnv":              "the local relay authenticates each request with its own one-time token",
	"humanAuth.pollIntervalMs":         "the relay answers at once instead of being polled",
	"humanAuth.tunnel":                 "start the tunnel yourself and set humanAuth.publicBaseUrl to its address (docs/human-auth.md)",
	"models.*.backend":                 "every profile speaks the OpenAI wire format",
	"channels.defaults":                "Telegram access is the allowlist in channels.telegram",
	"channels.discord":                 "only the Telegram channel is supported",
	"channels.whatsapp":                "only the Telegram channel is supported",
	"channels.imessage":                "only the Telegram channel is supported",
	"channels.slack":                   "only the Telegram channel is supported",
	"channels.telegram.dmPolicy":       "the allowlist (allowedUserIds, allowedChatIds) decides who may talk to the bot",
	"channels.telegram.groupPolicy":    "the allowlist (allowedUserIds, allowedChatIds) decides who may talk to the bot",
	"channels.telegram.pollTimeoutSec": "the bot's long-poll timeout is fixed",
	"telegram.pollTimeoutSec":          "the bot's long-poll timeout is fixed",
	// Moved by applyUpstreamValues: the note says where to.
	"telegram":                     "moved to channels.telegram",
	"channels.telegram.allowFrom":  "moved to channels.telegram.allowedUserIds",
	"agent.deviceId":               "moved to target.device",
	"agent.progressReportInterval": "moved to channels.telegram.progressEverySteps",
}

// upstreamOnlyNote is the note for an unknown key upstream documents, or
// "" for a key nobody documents.
func upstreamOnlyNote(path string) string {
	segs := strings.Split(path, ".")
	segs[len(segs)-1] = snakeToCamel(segs[len(segs)-1])
	if len(segs) == 3 && segs[0] == "models" {
		segs[1] = "*"
	}
	return upstreamOnlyKeys[strings.Join(segs, ".")]
}

// noteUpstreamKeys turns the unknown-key warnings of upstream's keys into
// notes.
func noteUpstreamKeys(warns []Warning) {
	for i, w := range warns {
		if w.Note {
			continue
		}
		if why := upstreamOnlyNote(w.Path); why != "" {
			warns[i].Note = true
			warns[i].Message = fmt.Sprintf("upstream key %q: %s", w.Path, why)
		}
	}
}

// upstreamValues are the upstream settings that live elsewhere here.
type upstreamValues struct {
	Telegram *struct {
		BotToken       string            `json:"botToken"`
		BotTokenEnv    string            `json:"botTokenEnv"`
		AllowedChatIDs []json.RawMessage `json:"allowedChatIds"`
	} `json:"telegram"`
	Agent struct {
		DeviceID               *string `json:"deviceId"`
		ProgressReportInterval *int    `json:"progressReportInterval"`
	} `json:"agent"`
	Channels struct {
		Telegram *struct {
			Enabled   *bool             `json:"enabled"`
			AllowFrom []json.RawMessage `json:"allowFrom"`
		} `json:"telegram"`
	} `json:"channels"`
	Target struct {
		AdbEndpoint *string `json:"adbEndpoint"`
	} `json:"target"`
}

// defaultTelegramTokenEnv is the variable upstream reads the bot token
// from when the config names none.
const defaultTelegramTokenEnv = "TELEGRAM_BOT_TOKEN"

// applyUpstreamValues moves upstream's settings into cfg (data is the
// file after key renames). The moved keys are noted by noteUpstreamKeys;
// this notes what changes a value: the channel started by upstream's rule
// and the adb port added.
func applyUpstreamValues(file string, data []byte, spans []span, cfg *Config) ([]Warning, error) {
	var up upstreamValues
	if err := json.Unmarshal(data, &up); err != nil {
		return nil, nil // the main decode reports type errors with positions
	}
	var notes []Warning
	note := func(path, msg string, args ...any) {
		w := Warning{File: file, Path: path, Message: fmt.Sprintf(msg, args...), Note: true}
		if sp, ok := findSpan(spans, path); ok {
			w.Line, w.Column = lineCol(data, keyOrValue(sp))
		}
		notes = append(notes, w)
	}
	tg := &cfg.Channels.Telegram
	if old := up.Telegram; old != nil {
		if tg.BotToken == "" && tg.BotTokenEnv == "" {
			tg.BotToken, tg.BotTokenEnv = old.BotToken, old.BotTokenEnv
		}
		ids, err := int64s(old.AllowedChatIDs)
		if err != nil {
			return notes, &ConfigError{File: file, Path: "telegram.allowedChatIds", Message: err.Error()}
		}
		tg.AllowedChatIDs = appendNew(tg.AllowedChatIDs, ids...)
	}
	if ch := up.Channels.Telegram; ch != nil && len(ch.AllowFrom) > 0 {
		ids, err := int64s(ch.AllowFrom)
		if err != nil {
			return notes, &ConfigError{File: file, Path: "channels.telegram.allowFrom", Message: err.Error()}
		}
		tg.AllowedUserIDs = appendNew(tg.AllowedUserIDs, ids...)
	}
	// Upstream starts the bot whenever it has a token unless enabled is
	// false; here enabled must say so. Keep upstream's rule for its files.
	configured := up.Telegram != nil || up.Channels.Telegram != nil
	enabledSet := up.Channels.Telegram != nil && up.Channels.Telegram.Enabled != nil
	if configured && !enabledSet && !tg.Enabled {
		env := tg.BotTokenEnv
		if env == "" && tg.BotToken == "" {
			env = defaultTelegramTokenEnv
		}
		if tg.BotToken != "" || strings.TrimSpace(os.Getenv(env)) != "" {
			tg.Enabled, tg.BotTokenEnv, tg.StartedByUpstreamRule = true, env, true
			if tg.BotToken != "" {
				tg.BotTokenEnv = ""
			}
			note("channels.telegram", "no \"enabled\" key and a bot token is configured: the Telegram channel starts, as upstream starts it (add \"enabled\": false to keep it off)")
		}
	}
	if up.Agent.DeviceID != nil && *up.Agent.DeviceID != "" && cfg.Target.Device == "" {
		cfg.Target.Device = *up.Agent.DeviceID
	}
	if n := up.Agent.ProgressReportInterval; n != nil && *n > 0 && !spanExists(spans, "channels.telegram.progressEverySteps") {
		tg.ProgressEverySteps = *n
	}
	if ep := strings.TrimSpace(cfg.Target.AdbEndpoint); ep != "" {
		if _, _, err := net.SplitHostPort(ep); err != nil {
			cfg.Target.AdbEndpoint = net.JoinHostPort(strings.Trim(ep, "[]"), "5555")
			note("target.adbEndpoint", "%q has no port: using %s (adb's default, as upstream adds it)", ep, cfg.Target.AdbEndpoint)
		}
	}
	return notes, nil
}

// int64s reads chat or user ids written as numbers or numeric strings.
func int64s(raw []json.RawMessage) ([]int64, error) {
	var out []int64
	for i, r := range raw {
		s := strings.Trim(strings.TrimSpace(string(r)), `"`)
		if s == "" || s == "null" {
			continue
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("entry %d: expected a numeric Telegram id, got %s", i+1, r)
		}
		out = append(out, n)
	}
	return out, nil
}

func appendNew(list []int64, ids ...int64) []int64 {
	for _, id := range ids {
		dup := false
		for _, have := range list {
			dup = dup || have == id
		}
		if !dup {
			list = append(list, id)
		}
	}
	return list
}

func spanExists(spans []span, path string) bool {
	_, ok := findSpan(spans, path)
	return ok
}

func keyOrValue(s span) int64 {
	if s.keyStart >= 0 {
		return s.keyStart
	}
	return s.start
}
