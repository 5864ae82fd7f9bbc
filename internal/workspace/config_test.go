package workspace

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDefaultConfigValues(t *testing.T) {
	c := DefaultConfig()
	checks := map[string][2]any{
		"agent.maxSteps":                   {c.Agent.MaxSteps, 100},
		"agent.loopDelayMs":                {c.Agent.LoopDelayMs, 1200},
		"agent.returnHomeOnTaskEnd":        {c.Agent.ReturnHomeOnTaskEnd, true},
		"agent.autoArtifactsEnabled":       {c.Agent.AutoArtifactsEnabled, true},
		"agent.systemPromptMode":           {c.Agent.SystemPromptMode, "full"},
		"agent.contextBudgetChars":         {c.Agent.ContextBudgetChars, 150000},
		"screenshots.saveStepScreenshots":  {c.Screenshots.SaveStepScreenshots, true},
		"screenshots.directory":            {c.Screenshots.Directory, "state/screenshots"},
		"screenshots.maxCount":             {c.Screenshots.MaxCount, 400},
		"scriptExecutor.timeoutSec":        {c.ScriptExecutor.TimeoutSec, 60},
		"scriptExecutor.maxOutputChars":    {c.ScriptExecutor.MaxOutputChars, 6000},
		"codingTools.enabled":              {c.CodingTools.Enabled, true},
		"codingTools.workspaceOnly":        {c.CodingTools.WorkspaceOnly, true},
		"codingTools.timeoutSec":           {c.CodingTools.TimeoutSec, 1800},
		"codingTools.maxOutputChars":       {c.CodingTools.MaxOutputChars, 12000},
		"codingTools.allowBackground":      {c.CodingTools.AllowBackground, true},
		"codingTools.applyPatchEnabled":    {c.CodingTools.ApplyPatchEnabled, true},
		"memoryTools.maxResults":           {c.MemoryTools.MaxResults, 6},
		"memoryTools.minScore":             {c.MemoryTools.MinScore, 0.2},
		"memoryTools.maxSnippetChars":      {c.MemoryTools.MaxSnippetChars, 1200},
		"heartbeat.everySec":               {c.Heartbeat.EverySec, 30},
		"heartbeat.stuckTaskWarnSec":       {c.Heartbeat.StuckTaskWarnSec, 600},
		"cron.tickSec":                     {c.Cron.TickSec, 10},
		"cron.jobsFile":                    {c.Cron.JobsFile, "workspace/cron/jobs.json"},
		"humanAuth.enabled":                {c.HumanAuth.Enabled, false},
		"humanAuth.relayHost":              {c.HumanAuth.RelayHost, "127.0.0.1"},
		"humanAuth.relayPort":              {c.HumanAuth.RelayPort, 8787},
		"humanAuth.requestTimeoutSec":      {c.HumanAuth.RequestTimeoutSec, 300},
		"humanAuth.publicBaseUrl":          {c.HumanAuth.PublicBaseURL, ""},
		"defaultModel":                     {c.DefaultModel, "default"},
		"models.default.baseUrl":           {c.Models["default"].BaseURL, "https://api.openai.com/v1"},
		"models.default.model":             {c.Models["default"].Model, "gpt-4.1"},
		"models.default.apiKeyEnv":         {c.Models["default"].APIKeyEnv, "OPENAI_API_KEY"},
		"device.settleTimeoutMs":           {c.Device.SettleTimeoutMs, 3000},
		"scriptExecutor.allowedCommands#0": {c.ScriptExecutor.AllowedCommands[0], "adb"},
	}
	for name, c := range checks {
		if !reflect.DeepEqual(c[0], c[1]) {
			t.Errorf("%s = %v, want %v", name, c[0], c[1])
		}
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("defaults do not validate: %v", err)
	}
}

func TestLoadConfigExplicitZeroAndFalseSurvive(t *testing.T) {
	path := writeConfig(t, `{
  "agent": {"returnHomeOnTaskEnd": false, "autoArtifactsEnabled": false, "loopDelayMs": 0},
  "screenshots": {"saveStepScreenshots": false, "maxCount": 0},
  "codingTools": {"enabled": false, "workspaceOnly": false},
  "memoryTools": {"minScore": 0},
  "scriptExecutor": {"allowedCommands": []}
}`)
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Agent.ReturnHomeOnTaskEnd || cfg.Agent.AutoArtifactsEnabled || cfg.Agent.LoopDelayMs != 0 {
		t.Errorf("agent zero values overridden by defaults: %+v", cfg.Agent)
	}
	if cfg.Screenshots.SaveStepScreenshots || cfg.Screenshots.MaxCount != 0 {
		t.Errorf("screenshots zero values overridden: %+v", cfg.Screenshots)
	}
	if cfg.CodingTools.Enabled || cfg.CodingTools.WorkspaceOnly {
		t.Errorf("codingTools false overridden: %+v", cfg.CodingTools)
	}
	if cfg.MemoryTools.MinScore != 0 {
		t.Errorf("memoryTools.minScore = %v, want 0", cfg.MemoryTools.MinScore)
	}
	if cfg.ScriptExecutor.AllowedCommands == nil || len(cfg.ScriptExecutor.AllowedCommands) != 0 {
		t.Errorf("explicit empty allowedCommands = %#v, want empty non-nil", cfg.ScriptExecutor.AllowedCommands)
	}
	// Keys not in the file keep defaults.
	if cfg.Agent.MaxSteps != 100 || cfg.Agent.SystemPromptMode != "full" || cfg.Heartbeat.EverySec != 30 {
		t.Errorf("absent keys lost their defaults: %+v %+v", cfg.Agent, cfg.Heartbeat)
	}
	if _, ok := cfg.Models["default"]; !ok {
		t.Errorf("default model profile missing when models is absent")
	}
}

func TestLoadConfigModelsReplaceDefaults(t *testing.T) {
	path := writeConfig(t, `{"defaultModel": "local", "models": {"local": {"baseUrl": "http://127.0.0.1:8080/v1", "model": "qwen", "temperature": 0}}}`)
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Models) != 1 {
		t.Fatalf("models = %v, want only local", cfg.Models)
	}
	p, ok := cfg.Profile("")
	if !ok || p.Model != "qwen" || p.Temperature == nil || *p.Temperature != 0 {
		t.Fatalf("profile = %+v ok=%v, want qwen with temperature 0", p, ok)
	}
}

func TestLoadConfigSyntaxErrorsHaveLineAndColumn(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"missing comma", "{\n  \"agent\": {\n    \"maxSteps\": 5\n    \"loopDelayMs\": 1\n  }\n}", ":4:5: expected ',' or '}' after the value but found '\"' (missing comma?)"},
		{"trailing comma", "{\n  \"agent\": {\"maxSteps\": 5,}\n}", ":2:27: expected a quoted key after ',' but found '}' (trailing commas are not allowed)"},
		{"missing colon", "{\"agent\" {}}", ":1:10: expected ':' after the key but found '{'"},
		{"truncated", "{\n  \"agent\": {\n", ":2:13: unexpected end of file"},
		{"empty", "  \n", ":1:1: file is empty: expected a JSON object"},
		{"not an object", "[1]", ":1:1: expected a JSON object at the top level"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeConfig(t, c.text)
			_, err := LoadConfig(path)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.HasPrefix(err.Error(), path) || !strings.Contains(err.Error(), "config.json"+c.want) {
				t.Fatalf("error = %q\nwant it to contain %q", err, "config.json"+c.want)
			}
		})
	}
}

func TestLoadConfigTypeErrorsNameFieldPath(t *testing.T) {
	cases := []struct{ text, want string }{
		{"{\n  \"agent\": {\n    \"maxSteps\": \"ten\"\n  }\n}", "config.json:3:17: agent.maxSteps: expected a number, got string"},
		{"{\"agent\": {\"maxSteps\": 1.5}}", "config.json:1:24: agent.maxSteps: expected a whole number, got number 1.5"},
		{"{\"models\": {\"fast\": {\"maxTokens\": true}}}", "config.json:1:35: models.fast.maxTokens: expected a number, got bool"},
		{"{\"screenshots\": {\"saveStepScreenshots\": \"yes\"}}", "screenshots.saveStepScreenshots: expected true or false, got string"},
		{"{\"scriptExecutor\": {\"allowedCommands\": \"ls\"}}", "scriptExecutor.allowedCommands: expected an array, got string"},
	}
	for _, c := range cases {
		path := writeConfig(t, c.text)
		_, err := LoadConfig(path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("config %s\nerror = %v\nwant it to contain %q", c.text, err, c.want)
		}
	}
}

func TestLoadConfigValidationNamesPathAndLine(t *testing.T) {
	path := writeConfig(t, "{\n  \"agent\": {\"systemPromptMode\": \"fancy\"}\n}")
	_, err := LoadConfig(path)
	want := "config.json:2:33: agent.systemPromptMode: expected one of full, minimal, none, got \"fancy\""
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error = %v, want %q", err, want)
	}
}

func TestLoadConfigPublicBaseURLMustBeHTTP(t *testing.T) {
	path := writeConfig(t, "{\n  \"humanAuth\": {\"publicBaseUrl\": \"ftp://x\"}\n}")
	_, err := LoadConfig(path)
	want := "humanAuth.publicBaseUrl: expected an http:// or https:// URL, got \"ftp://x\""
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error = %v, want %q", err, want)
	}
}

func TestLoadConfigSandboxKeys(t *testing.T) {
	path := writeConfig(t, "{\n  \"scriptExecutor\": {\"sandbox\": \"maybe\"}\n}")
	_, err := LoadConfig(path)
	want := `config.json:2:33: scriptExecutor.sandbox: expected one of auto, off, got "maybe"`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error = %v, want %q", err, want)
	}
	path = writeConfig(t, "{\"scriptExecutor\": {\"sandbox\": \"off\", \"limits\": {\"processes\": 64, \"fileSizeMb\": 10}}}")
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ScriptExecutor.Sandbox != "off" || cfg.ScriptExecutor.Limits.Processes != 64 || cfg.ScriptExecutor.Limits.FileSizeMB != 10 {
		t.Errorf("sandbox config: %+v", cfg.ScriptExecutor)
	}
	if d := DefaultConfig().ScriptExecutor; d.Sandbox != "auto" || slices.Contains(d.AllowedCommands, "awk") || slices.Contains(d.AllowedCommands, "sed") {
		t.Errorf("defaults: %+v", d)
	}
}

func TestLoadConfigUnknownKeysWarnWithSuggestion(t *testing.T) {
	path := writeConfig(t, "{\n  \"agent\": {\"maxStep\": 7},\n  \"heartbeet\": {},\n  \"models\": {\"x\": {\"model\": \"m\", \"baseURL\": \"u\"}},\n  \"defaultModel\": \"x\",\n  \"zzzzzzzz\": 1\n}")
	cfg, warnings, err := LoadConfigWarnings(path)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Agent.MaxSteps != 100 {
		t.Errorf("unknown key changed maxSteps to %d", cfg.Agent.MaxSteps)
	}
	var got []string
	for _, w := range warnings {
		got = append(got, strings.TrimPrefix(w.String(), filepath.Dir(path)+string(filepath.Separator)))
	}
	want := []string{
		`config.json:2:13: unknown key "agent.maxStep" (did you mean "maxSteps"?); it is ignored`,
		`config.json:3:3: unknown key "heartbeet" (did you mean "heartbeat"?); it is ignored`,
		`config.json:4:34: unknown key "models.x.baseURL" (did you mean "baseUrl"?); it is ignored`,
		`config.json:6:3: unknown key "zzzzzzzz"; it is ignored`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestOpenCreatesHomeAndKeepsExistingConfig(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "home")
	h, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"workspace", "state", "workspace/memory", "workspace/sessions",
		"workspace/skills", "workspace/scripts", "workspace/cron", "workspace/.openpocket/workspace-state.json"} {
		if _, err := os.Stat(filepath.Join(dir, rel)); err != nil {
			t.Errorf("missing %s: %v", rel, err)
		}
	}
	// Opening never writes config.json (init does): the home runs on the
	// defaults meanwhile.
	if _, err := os.Stat(h.ConfigPath()); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open wrote config.json: %v", err)
	}
	if !reflect.DeepEqual(h.Config(), DefaultConfig()) {
		t.Fatalf("a home without config.json has %+v", h.Config())
	}
	data, err := MarshalConfig(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.ConfigPath(), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if !IsUnedited(h.ConfigPath()) {
		t.Error("a config.json of nothing but the defaults counts as edited")
	}
	var st map[string]any
	raw, _ := os.ReadFile(h.WorkspaceStatePath())
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	if st["version"] != 1.0 || st["bootstrapSeededAt"] == "" || st["onboardingCompletedAt"] != nil {
		t.Errorf("workspace-state.json = %s", raw)
	}
	if h.Workspace() != filepath.Join(dir, "workspace") || h.State() != filepath.Join(dir, "state") || h.Dir() != dir {
		t.Errorf("accessors: %s %s %s", h.Dir(), h.Workspace(), h.State())
	}

	// An edited config survives a second Open, and SaveConfig round-trips.
	custom := `{"agent": {"maxSteps": 3}}`
	if err := os.WriteFile(h.ConfigPath(), []byte(custom), 0o600); err != nil {
		t.Fatal(err)
	}
	h2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(h2.ConfigPath()); string(got) != custom {
		t.Fatalf("Open overwrote config: %s", got)
	}
	if IsUnedited(h2.ConfigPath()) {
		t.Error("an edited config.json counts as unedited")
	}
	if h2.Config().Agent.MaxSteps != 3 {
		t.Fatalf("maxSteps = %d", h2.Config().Agent.MaxSteps)
	}
	cfg := h2.Config()
	cfg.Agent.ReturnHomeOnTaskEnd = false
	if err := h2.SaveConfig(cfg); err != nil {
		t.Fatal(err)
	}
	back, err := LoadConfig(h2.ConfigPath())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, cfg) {
		t.Fatalf("SaveConfig round trip:\n got %+v\nwant %+v", back, cfg)
	}
}

func TestOpenUsesEnvHome(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvHome, dir)
	h, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	if h.Dir() != dir {
		t.Fatalf("Dir = %s, want %s", h.Dir(), dir)
	}
}

func TestOpenMalformedConfigFails(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte("{\n  \"agent\": [}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir)
	if err == nil || !strings.Contains(err.Error(), "config.json:2:13: expected a value") {
		t.Fatalf("error = %v", err)
	}
}

func TestTelegramConfig(t *testing.T) {
	cfg, _, err := ParseConfig("config.json", []byte(`{"channels": {"telegram": {"enabled": true, "botTokenEnv": "OP_TEST_TG_TOKEN", "allowedUserIds": [42], "apiBaseUrl": "http://127.0.0.1:1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	tg := cfg.Channels.Telegram
	if !tg.Enabled || len(tg.AllowedUserIDs) != 1 || tg.AllowedUserIDs[0] != 42 || tg.APIBaseURL != "http://127.0.0.1:1" || tg.ProgressEverySteps != 3 {
		t.Fatalf("telegram config = %+v", tg)
	}
	t.Setenv("OP_TEST_TG_TOKEN", "123:abc")
	if got := tg.Token(); got != "123:abc" {
		t.Fatalf("Token() = %q", got)
	}
	_, _, err = ParseConfig("config.json", []byte(`{"channels": {"telegram": {"webhookUrl": "http://x"}}}`))
	if err == nil || !strings.Contains(err.Error(), "channels.telegram.webhookUrl: expected an https:// URL") {
		t.Fatalf("http webhook: err = %v", err)
	}
	_, _, err = ParseConfig("config.json", []byte("{\n \"channels\": {\"telegram\": {\"enabled\": true}}}"))
	if err == nil || !strings.Contains(err.Error(), "config.json:2:") || !strings.Contains(err.Error(), "botToken or botTokenEnv") {
		t.Fatalf("enabled without token: err = %v", err)
	}
}

func TestLoadConfigModelImageFormat(t *testing.T) {
	path := writeConfig(t, `{"defaultModel": "v", "models": {"v": {"model": "m", "imageFormat": "png", "imageQuality": 90}}}`)
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := cfg.Profile(""); p.ImageFormat != "png" || p.ImageQuality != 90 {
		t.Fatalf("profile = %+v, want png at 90", p)
	}
	for text, want := range map[string]string{
		"{\"defaultModel\": \"v\", \"models\": {\"v\": {\n  \"imageFormat\": \"webp\"}}}": "config.json:2:18: models.v.imageFormat: expected \"jpeg\" or \"png\", got \"webp\"",
		"{\"defaultModel\": \"v\", \"models\": {\"v\": {\"imageQuality\": 101}}}":         "models.v.imageQuality: expected a JPEG quality between 1 and 100 (0 = default 80), got 101",
	} {
		_, err := LoadConfig(writeConfig(t, text))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("config %s\nerror = %v\nwant it to contain %q", text, err, want)
		}
	}
}

// Profile names in messages are sorted (map order would change between
// runs of the same command) and say "none" when there are none.
func TestProfileList(t *testing.T) {
	cfg := Config{Models: map[string]ModelProfile{"zeta": {}, "alpha": {}, "mid": {}}}
	if got := cfg.ProfileList(); got != "alpha, mid, zeta" {
		t.Errorf("ProfileList() = %q, want %q", got, "alpha, mid, zeta")
	}
	if got := (Config{}).ProfileList(); got != "none" {
		t.Errorf("ProfileList() of no profiles = %q, want none", got)
	}
}

// device.capture and device.elementBudgetChars load, and bad values name
// their key.
func TestDeviceCaptureAndElementBudget(t *testing.T) {
	cfg, err := LoadConfig(writeConfig(t, `{"device": {"capture": "raw", "elementBudgetChars": 1500}}`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Device.Capture != "raw" || cfg.Device.ElementBudgetChars != 1500 {
		t.Errorf("device = %+v, want capture raw and elementBudgetChars 1500", cfg.Device)
	}
	for text, want := range map[string]string{
		`{"device": {"capture": "jpeg"}}`:           `device.capture: expected one of auto, png, raw, got "jpeg"`,
		`{"device": {"elementBudgetChars": -5}}`:    "device.elementBudgetChars: expected a number of at least 0, got -5",
		`{"device": {"capture": "png", "x": true}}`: "",
	} {
		_, err := LoadConfig(writeConfig(t, text))
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", text, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: error %v, want it to contain %q", text, err, want)
		}
	}
}
