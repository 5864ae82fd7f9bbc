package cli

import (
	"context"
	"fmt"
	"strings"
)

// examples are shown under each command's --help ("Examples:"), so a user
// sees a working invocation before reading the flags. One place, so every
// command has one and the help golden test covers them all.
var examples = map[string][]string{
	"version":         {"openpocket version", "openpocket --version"},
	"help":            {"openpocket help play", "openpocket help cron add"},
	"completion":      {"source <(openpocket completion bash)", "openpocket completion zsh > \"${fpath[1]}/_openpocket\"", "openpocket completion fish > ~/.config/fish/completions/openpocket.fish"},
	"doctor":          {"openpocket doctor", "openpocket --sim doctor --model local"},
	"init":            {"openpocket init", "openpocket init --base-url http://localhost:11434/v1 --model-name qwen2.5-vl --api-key-env OLLAMA_KEY --device emulator-5554"},
	"sim":             {"openpocket sim --size 720x1280"},
	"devices":         {"openpocket devices", "openpocket devices --json"},
	"snapshot":        {"openpocket --sim snapshot", "openpocket -s emulator-5554 snapshot --json --som marks.jpg"},
	"act":             {`openpocket --sim act '{"type":"launch_app","packageName":"com.android.settings"}'`, `openpocket act '{"type":"tap","x":540,"y":1200}' --observe`},
	"play":            {"openpocket --sim play examples/demo.yaml", "openpocket play flows/ -e user=bob --include-tags smoke --report junit.xml", "openpocket play flows/login.yaml --dry-run", "openpocket play flows/ --report-html report/ --record --watch"},
	"convert maestro": {"openpocket convert maestro .maestro/ -o playbooks/", "openpocket convert maestro .maestro/login.yaml -o out/ --no-lint"},
	"compile":         {"openpocket compile flows/login.yaml -e user=bob > login.lua", "openpocket play flows/login.yaml --dry-run   (the plan, not the Lua)"},
	"lint":            {"openpocket lint flows/", "openpocket lint flows/login.yaml -e user=bob"},
	"run":             {"openpocket --sim run script.lua", "openpocket run script.lua -- --user bob   (arg[1] is \"--user\")"},
	"repl":            {"openpocket --sim repl"},
	"agent":           {`openpocket --sim agent "Turn Wi-Fi off"`, `openpocket agent "Open Settings" --model local --max-steps 20 --json`},
	"model list":      {"openpocket model list", "openpocket model list --json"},
	"model show":      {"openpocket model show local"},
	"model set":       {"openpocket model set local"},
	"script run":      {`openpocket script run --text 'echo hello'`, "openpocket script run --file scripts/cleanup.sh"},
	"memory search":   {"openpocket memory search wifi", "openpocket memory search \"login code\" --json"},
	"memory get":      {"openpocket memory get MEMORY.md --from 1 --lines 40"},
	"cron list":       {"openpocket cron list", "openpocket cron list --json"},
	"cron add":        {`openpocket cron add --name morning --cron "0 8 * * *" --task "Check the weather"`, "openpocket cron add --every 1h --playbook flows/sync.yaml"},
	"cron remove":     {"openpocket cron remove morning"},
	"cron enable":     {"openpocket cron enable morning"},
	"cron disable":    {"openpocket cron disable morning"},
	"cron run":        {"openpocket cron run morning"},
	"skills list":     {"openpocket skills list", "openpocket skills list --json"},
	"skills show":     {"openpocket skills show wifi-off"},
	"skills validate": {"openpocket skills validate", "openpocket skills validate workspace/skills/auto"},
	"skills run":      {"openpocket --sim skills run wifi-off", "openpocket skills run wifi-off --fallback-agent"},
	"sessions list":   {"openpocket sessions list", "openpocket sessions list --json"},
	"sessions show":   {"openpocket sessions show 20260222-030000", "openpocket sessions show latest"},
	"gateway":         {"openpocket --sim gateway"},
	"auth list":       {"openpocket auth list"},
	"auth approve":    {"openpocket auth approve 20260222-030000-step-4 --text 482913", "openpocket auth approve 20260222-030000-step-4"},
	"auth reject":     {"openpocket auth reject 20260222-030000-step-4"},
}

// exampleHelp is the "Examples:" block of a command's help.
func exampleHelp(command string) string {
	ex := examples[command]
	if len(ex) == 0 {
		return ""
	}
	return "Examples:\n  " + strings.Join(ex, "\n  ")
}

func (c *VersionCmd) Help() string        { return exampleHelp("version") }
func (c *HelpCmd) Help() string           { return exampleHelp("help") }
func (c *CompletionCmd) Help() string     { return exampleHelp("completion") }
func (c *DoctorCmd) Help() string         { return exampleHelp("doctor") + "\n\n" + exitCodeHelp }
func (c *InitCmd) Help() string           { return exampleHelp("init") }
func (c *SimCmd) Help() string            { return exampleHelp("sim") }
func (c *DevicesCmd) Help() string        { return exampleHelp("devices") }
func (c *SnapshotCmd) Help() string       { return exampleHelp("snapshot") }
func (c *ActCmd) Help() string            { return exampleHelp("act") }
func (c *PlayCmd) Help() string           { return exampleHelp("play") }
func (c *CompileCmd) Help() string        { return exampleHelp("compile") }
func (c *LintCmd) Help() string           { return exampleHelp("lint") }
func (c *RunCmd) Help() string            { return exampleHelp("run") }
func (c *ReplCmd) Help() string           { return exampleHelp("repl") }
func (c *AgentCmd) Help() string          { return exampleHelp("agent") }
func (c *ModelListCmd) Help() string      { return exampleHelp("model list") }
func (c *ModelShowCmd) Help() string      { return exampleHelp("model show") }
func (c *ModelSetCmd) Help() string       { return exampleHelp("model set") }
func (c *ScriptRunCmd) Help() string      { return exampleHelp("script run") }
func (c *MemorySearchCmd) Help() string   { return exampleHelp("memory search") }
func (c *MemoryGetCmd) Help() string      { return exampleHelp("memory get") }
func (c *CronListCmd) Help() string       { return exampleHelp("cron list") }
func (c *CronAddCmd) Help() string        { return exampleHelp("cron add") }
func (c *CronRemoveCmd) Help() string     { return exampleHelp("cron remove") }
func (c *CronEnableCmd) Help() string     { return exampleHelp("cron enable") }
func (c *CronDisableCmd) Help() string    { return exampleHelp("cron disable") }
func (c *CronRunCmd) Help() string        { return exampleHelp("cron run") }
func (c *SkillsListCmd) Help() string     { return exampleHelp("skills list") }
func (c *SkillsShowCmd) Help() string     { return exampleHelp("skills show") }
func (c *SkillsValidateCmd) Help() string { return exampleHelp("skills validate") }
func (c *SkillsRunCmd) Help() string      { return exampleHelp("skills run") }
func (c *SessionsListCmd) Help() string   { return exampleHelp("sessions list") }
func (c *SessionsShowCmd) Help() string   { return exampleHelp("sessions show") }
func (c *GatewayCmd) Help() string        { return exampleHelp("gateway") }

// exitCodeHelp is printed under the top-level help and doctor's.
var exitCodeHelp = fmt.Sprintf(`Exit codes:
  %d    ok
  %d    the run ran and failed (task failed, assertion, step error)
  %d    bad input: flags, config, YAML, Lua, action JSON
  %d    device problem: no adb server, no/several/lost device, device in use
  %d    model endpoint problem: unreachable, refused the key, unknown model
  %d   internal error: a bug of openpocket (-v shows the stack)
  %d  interrupted (Ctrl-C, SIGTERM)`, ExitOK, ExitFailed, ExitUsage, ExitDevice, ExitModel, ExitInternal, ExitCanceled)

// HelpCmd is `openpocket help [COMMAND...]`.
type HelpCmd struct {
	Command []string `arg:"" optional:"" help:"The command to explain, e.g. play or cron add."`
}

// Run prints the help of the named command, like COMMAND --help.
func (c *HelpCmd) Run(ctx context.Context, out Streams, sys System) error {
	code := MainWith(ctx, append(append([]string{}, c.Command...), "--help"), out.Stdout, out.Stderr, sys)
	if code != ExitOK {
		return UsageError{fmt.Errorf("help: no command %q (see openpocket --help)", strings.Join(c.Command, " "))}
	}
	return nil
}
