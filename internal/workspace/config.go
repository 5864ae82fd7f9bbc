package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
)

// Config is config.json (docs/cli.md and docs/agents.md). Decoding starts
// from DefaultConfig, so keys absent from the file keep their defaults and
// keys present win, including false and 0.
type Config struct {
	DefaultModel   string                  `json:"defaultModel"`
	Models         map[string]ModelProfile `json:"models"`
	Target         TargetConfig            `json:"target"`
	Agent          AgentConfig             `json:"agent"`
	Screenshots    ScreenshotsConfig       `json:"screenshots"`
	ScriptExecutor ScriptExecutorConfig    `json:"scriptExecutor"`
	CodingTools    CodingToolsConfig       `json:"codingTools"`
	MemoryTools    MemoryToolsConfig       `json:"memoryTools"`
	Heartbeat      HeartbeatConfig         `json:"heartbeat"`
	Cron           CronConfig              `json:"cron"`
	HumanAuth      HumanAuthConfig         `json:"humanAuth"`
	Device         DeviceConfig            `json:"device"`
	Channels       ChannelsConfig          `json:"channels"`
	Fleet          FleetConfig             `json:"fleet"`
}

// ModelProfile is one entry of "models". When "models" is present in the
// file it replaces the default profiles as a whole.
type ModelProfile struct {
	BaseURL         string `json:"baseUrl"`
	Model           string `json:"model"`
	APIKey          string `json:"apiKey"`
	APIKeyEnv       string `json:"apiKeyEnv"`
	MaxTokens       int    `json:"maxTokens"`
	ReasoningEffort string `json:"reasoningEffort"`
	// Temperature is nil when not configured (the request omits it).
	Temperature *float64 `json:"temperature,omitempty"`
	// ImageFormat is how screenshots are sent to this model: "jpeg", "png",
	// or empty for whichever is smaller per image. ImageQuality is the
	// JPEG quality, 1-100 (0 = 80).
	ImageFormat  string `json:"imageFormat,omitempty"`
	ImageQuality int    `json:"imageQuality,omitempty"`
}

// TargetConfig selects the phone.
type TargetConfig struct {
	// Type is emulator, physical-phone, android-tv or cloud.
	Type string `json:"type"`
	// Device is the adb serial; "" means the only attached device.
	Device      string `json:"device"`
	AdbEndpoint string `json:"adbEndpoint"`
	Pin         string `json:"pin"`
	// Avd is an emulator target's virtual device: started when the
	// target is not attached (openpocket emulator).
	Avd string `json:"avd,omitempty"`
}

// AgentConfig tunes the agent loop.
type AgentConfig struct {
	MaxSteps             int  `json:"maxSteps"`
	LoopDelayMs          int  `json:"loopDelayMs"`
	ReturnHomeOnTaskEnd  bool `json:"returnHomeOnTaskEnd"`
	AutoArtifactsEnabled bool `json:"autoArtifactsEnabled"`
	// SystemPromptMode is full, minimal or none.
	SystemPromptMode   string `json:"systemPromptMode"`
	ContextBudgetChars int    `json:"contextBudgetChars"`
	// StuckAfter is the loop breaker's N: after N actions in a row that
	// change nothing on screen (or the same action repeated N times
	// without getting anywhere) the run relaunches the app once, then asks
	// the person, else fails "stuck". 0 turns the loop breaker off.
	StuckAfter int `json:"stuckAfter"`
	// MaxTokens is the token budget of one agent run (input + output of
	// every model call); a run that would exceed it ends FAILED. 0: none.
	MaxTokens int64 `json:"maxTokens"`
	// ReplayFirst replays the learned skill a task matches, with zero
	// model calls, before asking the model: in `openpocket agent`
	// (unless --no-replay), scheduled agent_turn jobs and chat tasks.
	ReplayFirst bool `json:"replayFirst"`
}

// ScreenshotsConfig controls step screenshots.
type ScreenshotsConfig struct {
	SaveStepScreenshots bool `json:"saveStepScreenshots"`
	// Directory is relative to OPENPOCKET_HOME unless absolute.
	Directory string `json:"directory"`
	// MaxCount is how many PNGs retention keeps; 0 or less keeps all.
	MaxCount int `json:"maxCount"`
}

// ScriptExecutorConfig tunes run_script; Sandbox and Limits also apply to
// the coding tools' exec.
type ScriptExecutorConfig struct {
	AllowedCommands []string `json:"allowedCommands"`
	TimeoutSec      int      `json:"timeoutSec"`
	MaxOutputChars  int      `json:"maxOutputChars"`
	// Sandbox is "auto" (confine with bubblewrap; refuse when it is
	// unavailable) or "off" (run unconfined, logged on every start).
	Sandbox string        `json:"sandbox"`
	Limits  SandboxLimits `json:"limits"`
}

// SandboxLimits are the resource limits of confined processes; 0 keeps the
// built-in default.
type SandboxLimits struct {
	CPUSec     int `json:"cpuSec"`
	MemoryMB   int `json:"memoryMb"`
	Processes  int `json:"processes"`
	FileSizeMB int `json:"fileSizeMb"`
	OpenFiles  int `json:"openFiles"`
}

// CodingToolsConfig tunes read/write/edit/apply_patch/exec/process.
type CodingToolsConfig struct {
	Enabled           bool `json:"enabled"`
	WorkspaceOnly     bool `json:"workspaceOnly"`
	TimeoutSec        int  `json:"timeoutSec"`
	MaxOutputChars    int  `json:"maxOutputChars"`
	AllowBackground   bool `json:"allowBackground"`
	ApplyPatchEnabled bool `json:"applyPatchEnabled"`
	// AllowedCommands for exec; nil means the executor's built-in list,
	// ["*"] allows everything.
	AllowedCommands []string `json:"allowedCommands"`
}

// MemoryToolsConfig tunes memory_search and memory_get.
type MemoryToolsConfig struct {
	MaxResults      int     `json:"maxResults"`
	MinScore        float64 `json:"minScore"`
	MaxSnippetChars int     `json:"maxSnippetChars"`
}

// HeartbeatConfig tunes the gateway heartbeat.
type HeartbeatConfig struct {
	EverySec         int `json:"everySec"`
	StuckTaskWarnSec int `json:"stuckTaskWarnSec"`
}

// CronConfig tunes the scheduler.
type CronConfig struct {
	TickSec int `json:"tickSec"`
	// JobsFile is relative to OPENPOCKET_HOME unless absolute.
	JobsFile string `json:"jobsFile"`
}

// HumanAuthConfig configures the human-auth relay.
type HumanAuthConfig struct {
	Enabled           bool   `json:"enabled"`
	RelayHost         string `json:"relayHost"`
	RelayPort         int    `json:"relayPort"`
	RequestTimeoutSec int    `json:"requestTimeoutSec"`
	// PublicBaseURL, when set, is the address links are printed with (a
	// tunnel such as ngrok or cloudflared, or a reverse proxy), e.g.
	// "https://abc.ngrok.app"; the relay itself still listens on
	// relayHost:relayPort.
	PublicBaseURL string `json:"publicBaseUrl"`
	// Probe is humanAuth.probe: off (default), ask or auto — whether a
	// camera, photo picker, payment sheet, location prompt or secure
	// screen hands over to the person without the model asking.
	Probe string `json:"probe,omitempty"`
	// Permissions answers runtime permission dialogs by policy; absent,
	// they stay on screen (docs/human-auth.md).
	Permissions *PermissionsConfig `json:"permissions,omitempty"`
	// Mode is "apply" (the runtime applies what a person sends: types
	// codes and fields, pushes files) or "delegate" (it stores and
	// describes it, and the model applies it; docs/human-auth.md).
	Mode string `json:"mode"`
	// Takeover lets the person on the relay page tap the phone through
	// its live screen while a request is pending.
	Takeover bool `json:"takeover"`
}

// ChannelsConfig configures the chat channels the gateway runs.
type ChannelsConfig struct {
	Telegram TelegramConfig `json:"telegram"`
}

// TelegramConfig configures the Telegram bot (docs/telegram.md).
type TelegramConfig struct {
	Enabled bool `json:"enabled"`
	// BotToken is the token from @BotFather; BotTokenEnv names an
	// environment variable holding it instead (preferred: no secret in
	// config.json).
	BotToken    string `json:"botToken,omitempty"`
	BotTokenEnv string `json:"botTokenEnv,omitempty"`
	// AllowedUserIDs and AllowedChatIDs are who may talk to the bot;
	// anyone else is ignored (and logged). Both empty: nobody.
	AllowedUserIDs []int64 `json:"allowedUserIds"`
	AllowedChatIDs []int64 `json:"allowedChatIds"`
	// APIBaseURL is the Bot API server ("" = the public one), for a
	// self-hosted server.
	APIBaseURL string `json:"apiBaseUrl,omitempty"`
	// ProgressEverySteps: the status message is edited every N steps (and
	// whenever the app changes).
	ProgressEverySteps int `json:"progressEverySteps"`
	// WebhookURL switches from long polling to a webhook: the public https
	// URL Telegram posts to; WebhookListen is the local address serving it
	// (default 127.0.0.1:8443), behind a proxy or tunnel.
	WebhookURL    string `json:"webhookUrl,omitempty"`
	WebhookListen string `json:"webhookListen,omitempty"`
	// StartedByUpstreamRule: Enabled was set because the file has a token
	// and no "enabled" key (upstream's rule); the gateway says so at start.
	StartedByUpstreamRule bool `json:"-"`
}

// Token returns the bot token: botToken, else the variable botTokenEnv
// names. It never logs or stores the value.
func (t TelegramConfig) Token() string {
	if t.BotToken != "" {
		return t.BotToken
	}
	if t.BotTokenEnv != "" {
		return os.Getenv(t.BotTokenEnv)
	}
	return ""
}

// DeviceConfig tunes device actions (ours, not upstream).
type DeviceConfig struct {
	// SettleTimeoutMs bounds the wait for the screen to stop changing after
	// a UI action.
	SettleTimeoutMs int `json:"settleTimeoutMs"`
	// PostActionDelayMs is the fixed delay after a UI action when settling
	// is not possible.
	PostActionDelayMs int `json:"postActionDelayMs"`
	// Capture is how screenshots leave the device: "auto" (the default:
	// measure PNG and raw on each device and keep the faster), "png" or
	// "raw".
	Capture string `json:"capture,omitempty"`
	// ElementBudgetChars is the size in characters of the element list the
	// model reads (0: the default, 3,200).
	ElementBudgetChars int `json:"elementBudgetChars,omitempty"`
	// ShellTimeoutSec stops a shell action that runs longer (default 20,
	// upstream's figure); an action's own timeoutSec wins.
	ShellTimeoutSec int `json:"shellTimeoutSec"`
}

// DefaultScriptAllowedCommands is the default run_script allowlist.
// Programs that run other programs (awk, sed, find, env, xargs, shells)
// are deliberately absent.
var DefaultScriptAllowedCommands = []string{"adb", "echo", "pwd", "ls", "cat", "grep", "rg", "head", "tail", "wc", "sort", "uniq", "cut", "tr", "date", "sleep"}

// DefaultModels returns the default model profiles.
func DefaultModels() map[string]ModelProfile {
	return map[string]ModelProfile{
		"default": {
			BaseURL:   "https://api.openai.com/v1",
			Model:     "gpt-4.1",
			APIKeyEnv: "OPENAI_API_KEY",
			MaxTokens: 4096,
		},
	}
}

// DefaultConfig returns the configuration used for keys absent from
// config.json.
func DefaultConfig() Config {
	return Config{
		DefaultModel: "default",
		Models:       DefaultModels(),
		Target:       TargetConfig{Type: "emulator"},
		Agent: AgentConfig{
			MaxSteps:             100,
			LoopDelayMs:          1200,
			ReturnHomeOnTaskEnd:  true,
			AutoArtifactsEnabled: true,
			SystemPromptMode:     "full",
			ContextBudgetChars:   150000,
			StuckAfter:           DefaultStuckAfter,
			ReplayFirst:          true,
		},
		Screenshots: ScreenshotsConfig{
			SaveStepScreenshots: true,
			Directory:           "state/screenshots",
			MaxCount:            400,
		},
		ScriptExecutor: ScriptExecutorConfig{
			AllowedCommands: slices.Clone(DefaultScriptAllowedCommands),
			TimeoutSec:      60,
			MaxOutputChars:  6000,
			Sandbox:         "auto",
		},
		CodingTools: CodingToolsConfig{
			Enabled:           true,
			WorkspaceOnly:     true,
			TimeoutSec:        1800,
			MaxOutputChars:    12000,
			AllowBackground:   true,
			ApplyPatchEnabled: true,
		},
		MemoryTools: MemoryToolsConfig{MaxResults: 6, MinScore: 0.2, MaxSnippetChars: 1200},
		Heartbeat:   HeartbeatConfig{EverySec: 30, StuckTaskWarnSec: 600},
		Cron:        CronConfig{TickSec: 10, JobsFile: "workspace/cron/jobs.json"},
		HumanAuth: HumanAuthConfig{
			Enabled:           false,
			RelayHost:         "127.0.0.1",
			RelayPort:         8787,
			RequestTimeoutSec: 300,
			Mode:              "apply",
			Takeover:          true,
		},
		Device:   DeviceConfig{SettleTimeoutMs: 3000, PostActionDelayMs: 1200, ShellTimeoutSec: 20},
		Channels: ChannelsConfig{Telegram: TelegramConfig{ProgressEverySteps: 3}},
	}
}

// DefaultStuckAfter is agent.stuckAfter's default: one more than the
// prompt's own stuck signal (3), so the model gets one step to react to
// that warning before the loop breaker acts.
const DefaultStuckAfter = 4

// Warning is a non-fatal finding in a JSON file, such as an unknown key.
type Warning struct {
	File    string
	Line    int
	Column  int
	Path    string // dotted key path, e.g. "agent.maxStep"
	Message string
	// Note marks a finding that is not a problem: an upstream key migrated
	// or accepted (config_upstream.go). Doctor shows it as a note.
	Note bool
}

func (w Warning) String() string {
	return fmt.Sprintf("%s:%d:%d: %s", w.File, w.Line, w.Column, w.Message)
}

// ConfigError is a config.json problem with its position. Line and Column
// are 1-based; both are 0 for problems not tied to one place.
type ConfigError struct {
	File   string
	Line   int
	Column int
	// Path is the dotted key path when known ("agent.maxSteps").
	Path    string
	Message string
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

// LoadConfig reads a config file, starting from DefaultConfig. Use
// LoadConfigWarnings to also get the unknown-key warnings.
func LoadConfig(path string) (Config, error) {
	cfg, _, err := LoadConfigWarnings(path)
	return cfg, err
}

// LoadConfigWarnings is LoadConfig plus the warnings (unknown keys with the
// nearest valid key) of a readable file, returned even with an error.
func LoadConfigWarnings(path string) (Config, []Warning, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return DefaultConfig(), nil, fmt.Errorf("read config: %w", err)
	}
	return ParseConfig(path, data)
}

// ParseConfig decodes config JSON; file names the source in messages.
func ParseConfig(file string, data []byte) (Config, []Warning, error) {
	cfg := DefaultConfig()
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return cfg, nil, &ConfigError{File: file, Line: 1, Column: 1, Message: "file is empty: expected a JSON object such as {}"}
	}
	if err := checkSyntax(file, data); err != nil {
		return cfg, nil, err
	}
	data, migrated := migrateLegacyKeys(file, data)
	spans, err := scanJSON(data)
	if err != nil {
		var dup *duplicateKeyError
		if errors.As(err, &dup) {
			return cfg, nil, dup.configError(file, data)
		}
		return cfg, nil, positionError(file, data, err, nil)
	}
	if len(spans) == 0 || spans[0].kind != '{' {
		return cfg, nil, &ConfigError{File: file, Line: 1, Column: 1, Message: "expected a JSON object at the top level"}
	}
	warnings := append(migrated, unknownKeys(file, data, spans, typeOfConfig)...)
	noteUpstreamKeys(warnings)

	cfg.Models = nil // "models" in the file replaces the defaults as a whole
	if err := json.Unmarshal(data, &cfg); err != nil {
		if cfg.Models == nil {
			cfg.Models = DefaultModels()
		}
		return cfg, warnings, positionError(file, data, err, spans)
	}
	if cfg.Models == nil {
		cfg.Models = DefaultModels()
	}
	notes, err := applyUpstreamValues(file, data, spans, &cfg)
	warnings = append(warnings, notes...)
	sortWarnings(warnings)
	if err != nil {
		var ce *ConfigError
		if errors.As(err, &ce) {
			if sp, ok := findSpan(spans, ce.Path); ok {
				ce.Line, ce.Column = lineCol(data, sp.start)
			}
		}
		return cfg, warnings, err
	}
	if err := cfg.Validate(); err != nil {
		var ce *ConfigError
		if errors.As(err, &ce) {
			ce.File = file
			if sp, ok := findSpan(spans, ce.Path); ok {
				ce.Line, ce.Column = lineCol(data, sp.start)
			}
		}
		return cfg, warnings, err
	}
	return cfg, warnings, nil
}

// Validate checks values that have a fixed set of choices or must be
// positive. The error is a *ConfigError naming the key path.
func (c Config) Validate() error {
	for _, check := range []func() error{c.validateChoices, c.validateNumbers, c.validateSettings, c.validateModels, c.HumanAuth.validateCapability, c.validateFleet} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func badConfig(path, msg string, args ...any) error {
	return &ConfigError{File: "config.json", Path: path, Message: fmt.Sprintf(msg, args...)}
}

func (c Config) validateChoices() error {
	oneOf := func(path, got string, choices ...string) error {
		if slices.Contains(choices, got) {
			return nil
		}
		return badConfig(path, "expected one of %s, got %q", strings.Join(choices, ", "), got)
	}
	if err := oneOf("target.type", c.Target.Type, "emulator", "physical-phone", "android-tv", "cloud"); err != nil {
		return err
	}
	if err := oneOf("agent.systemPromptMode", c.Agent.SystemPromptMode, "full", "minimal", "none"); err != nil {
		return err
	}
	if err := oneOf("scriptExecutor.sandbox", c.ScriptExecutor.Sandbox, "auto", "off"); err != nil {
		return err
	}
	if c.Device.Capture != "" {
		return oneOf("device.capture", c.Device.Capture, "auto", "png", "raw")
	}
	return nil
}

func (c Config) validateNumbers() error {
	positive := []struct {
		path string
		v    int
	}{
		{"agent.maxSteps", c.Agent.MaxSteps},
		{"scriptExecutor.timeoutSec", c.ScriptExecutor.TimeoutSec},
		{"codingTools.timeoutSec", c.CodingTools.TimeoutSec},
		{"heartbeat.everySec", c.Heartbeat.EverySec},
		{"cron.tickSec", c.Cron.TickSec},
	}
	for _, p := range positive {
		if p.v <= 0 {
			return badConfig(p.path, "expected a number greater than 0, got %d", p.v)
		}
	}
	nonNegative := []struct {
		path string
		v    int
	}{
		{"agent.loopDelayMs", c.Agent.LoopDelayMs},
		{"agent.contextBudgetChars", c.Agent.ContextBudgetChars},
		{"scriptExecutor.maxOutputChars", c.ScriptExecutor.MaxOutputChars},
		{"scriptExecutor.limits.cpuSec", c.ScriptExecutor.Limits.CPUSec},
		{"scriptExecutor.limits.memoryMb", c.ScriptExecutor.Limits.MemoryMB},
		{"scriptExecutor.limits.processes", c.ScriptExecutor.Limits.Processes},
		{"scriptExecutor.limits.fileSizeMb", c.ScriptExecutor.Limits.FileSizeMB},
		{"scriptExecutor.limits.openFiles", c.ScriptExecutor.Limits.OpenFiles},
		{"codingTools.maxOutputChars", c.CodingTools.MaxOutputChars},
		{"memoryTools.maxResults", c.MemoryTools.MaxResults},
		{"memoryTools.maxSnippetChars", c.MemoryTools.MaxSnippetChars},
		{"heartbeat.stuckTaskWarnSec", c.Heartbeat.StuckTaskWarnSec},
		{"humanAuth.requestTimeoutSec", c.HumanAuth.RequestTimeoutSec},
		{"device.settleTimeoutMs", c.Device.SettleTimeoutMs},
		{"device.postActionDelayMs", c.Device.PostActionDelayMs},
		{"device.elementBudgetChars", c.Device.ElementBudgetChars},
		{"device.shellTimeoutSec", c.Device.ShellTimeoutSec},
		{"channels.telegram.progressEverySteps", c.Channels.Telegram.ProgressEverySteps},
	}
	for _, p := range nonNegative {
		if p.v < 0 {
			return badConfig(p.path, "expected a number of at least 0, got %d", p.v)
		}
	}
	if n := c.Agent.StuckAfter; n < 0 || n == 1 {
		return badConfig("agent.stuckAfter", "expected 0 (off) or a number of steps of at least 2, got %d", n)
	}
	if c.Agent.MaxTokens < 0 {
		return badConfig("agent.maxTokens", "expected a number of tokens of at least 0 (0: no budget), got %d", c.Agent.MaxTokens)
	}
	if c.HumanAuth.RelayPort < 0 || c.HumanAuth.RelayPort > 65535 {
		return badConfig("humanAuth.relayPort", "expected a port between 0 and 65535, got %d", c.HumanAuth.RelayPort)
	}
	if c.MemoryTools.MinScore < 0 || c.MemoryTools.MinScore > 1 {
		return badConfig("memoryTools.minScore", "expected a number between 0 and 1, got %g", c.MemoryTools.MinScore)
	}
	return nil
}

func (c Config) validateSettings() error {
	if u := strings.TrimSpace(c.HumanAuth.PublicBaseURL); u != "" && !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
		return badConfig("humanAuth.publicBaseUrl", "expected an http:// or https:// URL, got %q", u)
	}
	if m := c.HumanAuth.Mode; m != "" && m != "apply" && m != "delegate" {
		return badConfig("humanAuth.mode", "expected \"apply\" or \"delegate\", got %q", m)
	}
	if c.Screenshots.SaveStepScreenshots && strings.TrimSpace(c.Screenshots.Directory) == "" {
		return badConfig("screenshots.directory", "expected a directory when saveStepScreenshots is true")
	}
	if tg := c.Channels.Telegram; tg.Enabled && tg.BotToken == "" && tg.BotTokenEnv == "" {
		return badConfig("channels.telegram", "enabled without a token: expected botToken or botTokenEnv (the name of a variable holding it)")
	}
	if u := c.Channels.Telegram.WebhookURL; u != "" && !strings.HasPrefix(u, "https://") {
		return badConfig("channels.telegram.webhookUrl", "expected an https:// URL (Telegram posts only to https), got %q", u)
	}
	if strings.TrimSpace(c.Cron.JobsFile) == "" {
		return badConfig("cron.jobsFile", "expected a file path")
	}
	return nil
}

func (c Config) validateModels() error {
	for _, name := range c.ProfileNames() {
		m := c.Models[name]
		if f := m.ImageFormat; f != "" && f != "jpeg" && f != "png" {
			return badConfig("models."+name+".imageFormat", "expected \"jpeg\" or \"png\", got %q", f)
		}
		if m.ImageQuality < 0 || m.ImageQuality > 100 {
			return badConfig("models."+name+".imageQuality", "expected a JPEG quality between 1 and 100 (0 = default 80), got %d", m.ImageQuality)
		}
	}
	if _, ok := c.Models[c.DefaultModel]; !ok {
		return badConfig("defaultModel", "expected the name of a profile in \"models\" (%s), got %q", strings.Join(c.ProfileNames(), ", "), c.DefaultModel)
	}
	return nil
}

// ProfileNames are the names of the model profiles, sorted.
func (c Config) ProfileNames() []string {
	return slices.Sorted(maps.Keys(c.Models))
}

// ProfileList is ProfileNames for a message: "a, b", or "none".
func (c Config) ProfileList() string {
	if len(c.Models) == 0 {
		return "none"
	}
	return strings.Join(c.ProfileNames(), ", ")
}

// Profile returns the named model profile, or the default profile for "".
func (c Config) Profile(name string) (ModelProfile, bool) {
	if name == "" {
		name = c.DefaultModel
	}
	p, ok := c.Models[name]
	return p, ok
}

// MarshalConfig renders cfg as pretty JSON with a trailing newline.
func MarshalConfig(cfg Config) ([]byte, error) {
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode config: %w", err)
	}
	return append(data, '\n'), nil
}
