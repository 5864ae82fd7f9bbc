package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/openpocket/openpocket/internal/atomicfile"
	"github.com/openpocket/openpocket/internal/llm"
	"github.com/openpocket/openpocket/internal/workspace"
	"github.com/openpocket/openpocket/stdlib/agent"
)

// InitCmd writes a starting config.json and bootstraps the workspace.
type InitCmd struct {
	Profile    string `help:"Name of the model profile to write." default:"default" placeholder:"NAME"`
	BaseURL    string `name:"base-url" help:"OpenAI-compatible base URL of the model endpoint." placeholder:"URL"`
	ModelName  string `name:"model-name" help:"Model name sent with each request, e.g. gpt-4.1." placeholder:"MODEL"`
	APIKeyEnv  string `name:"api-key-env" help:"Environment variable that holds the API key (the key itself is never written)." placeholder:"VAR"`
	TargetType string `name:"target-type" help:"emulator, physical-phone, android-tv or cloud." enum:"emulator,physical-phone,android-tv,cloud" default:"emulator"`
	Serial     string `name:"serial" help:"adb serial of the phone to drive (empty: the only attached one)." placeholder:"SERIAL"`
	Force      bool   `help:"Overwrite an existing config.json."`
}

// initDefaults are offered when a flag is not given.
var initDefaults = map[string]string{
	"base-url":    "https://api.openai.com/v1",
	"model-name":  "gpt-4.1",
	"api-key-env": "OPENAI_API_KEY",
}

// Run asks on a terminal for what the flags did not give (flags only
// otherwise), refuses to overwrite config.json without --force, writes it
// atomically and bootstraps the workspace (docs/formats.md).
func (c *InitCmd) Run(out Streams, g Globals) error {
	dir, err := g.agentDir()
	if err != nil {
		return UsageError{err}
	}
	cfgPath := filepath.Join(dir, "config.json")
	if g.Config != "" {
		cfgPath = g.Config
	}
	// A config of nothing but the defaults (an earlier version wrote one on
	// any first command) is replaced: nobody edited it, nothing is lost.
	if _, err := os.Stat(cfgPath); err == nil && !c.Force && !workspace.IsUnedited(cfgPath) {
		return UsageError{fmt.Errorf("%s already exists; pass --force to overwrite it (openpocket doctor checks it as it is)", cfgPath)}
	}
	if isTTY(out.Stdout) && isTTYReader(os.Stdin) {
		if err := c.ask(bufio.NewReader(os.Stdin), out.Stdout); err != nil {
			return err
		}
	}
	c.fillDefaults()
	cfg := workspace.DefaultConfig()
	cfg.Models = map[string]workspace.ModelProfile{c.Profile: {BaseURL: c.BaseURL, Model: c.ModelName, APIKeyEnv: c.APIKeyEnv, MaxTokens: 4096}}
	cfg.DefaultModel = c.Profile
	cfg.Target.Type, cfg.Target.Device = c.TargetType, c.Serial
	if err := cfg.Validate(); err != nil {
		return UsageError{err}
	}
	data, err := workspace.MarshalConfig(cfg)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(cfgPath), 0o755); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(cfgPath, data, 0o600); err != nil {
		return err
	}
	fmt.Fprintf(out.Stdout, "wrote %s (model profile %q: %s at %s, key from $%s)\n", cfgPath, c.Profile, c.ModelName, c.BaseURL, c.APIKeyEnv)
	h, err := workspace.Open(dir)
	if err != nil {
		return UsageError{err}
	}
	created, err := seedWorkspace(h.Workspace())
	if err != nil {
		return err
	}
	for _, f := range created {
		fmt.Fprintf(out.Stdout, "created %s\n", f)
	}
	if err := h.MarkOnboardingCompleted(time.Now()); err != nil {
		return err
	}
	switch {
	case os.Getenv(c.APIKeyEnv) != "":
	case llm.IsLocalURL(c.BaseURL):
		fmt.Fprintf(out.Stdout, "note: $%s is not set: %s is a local server, so no key (no Authorization header) is sent until it is\n", c.APIKeyEnv, c.BaseURL)
	default:
		fmt.Fprintf(out.Stdout, "note: $%s is not set in this shell; export it before a model run\n", c.APIKeyEnv)
	}
	printNoPhoneHint(out.Stdout, g)
	fmt.Fprintln(out.Stdout, "next: openpocket doctor")
	return nil
}

func (c *InitCmd) fillDefaults() {
	if c.BaseURL == "" {
		c.BaseURL = initDefaults["base-url"]
	}
	if c.ModelName == "" {
		c.ModelName = initDefaults["model-name"]
	}
	if c.APIKeyEnv == "" {
		c.APIKeyEnv = initDefaults["api-key-env"]
	}
}

// ask prompts for each value the flags left empty; Enter keeps the
// default shown in brackets.
func (c *InitCmd) ask(in *bufio.Reader, out io.Writer) error {
	questions := []struct {
		prompt string
		def    string
		dst    *string
	}{
		{"Model endpoint base URL", initDefaults["base-url"], &c.BaseURL},
		{"Model name", initDefaults["model-name"], &c.ModelName},
		{"Environment variable holding the API key", initDefaults["api-key-env"], &c.APIKeyEnv},
		{"adb serial of the phone (empty: the only attached one)", "", &c.Serial},
	}
	for _, q := range questions {
		if *q.dst != "" {
			continue
		}
		if q.def != "" {
			fmt.Fprintf(out, "%s [%s]: ", q.prompt, q.def)
		} else {
			fmt.Fprintf(out, "%s: ", q.prompt)
		}
		line, err := in.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if v := strings.TrimSpace(line); v != "" {
			*q.dst = v
		} else {
			*q.dst = q.def
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
	}
	return nil
}

// isTTYReader reports whether f is a terminal someone types into; stdin
// from /dev/null (a character device, but no terminal) gets no questions.
func isTTYReader(f *os.File) bool { return agent.IsTerminal(f) }

// starterFiles are what a new workspace gets (docs/formats.md and the context
// files the agent prompt reads). BOOTSTRAP.md is seeded on first run only.
var starterFiles = []struct{ name, body string }{
	{"BOOTSTRAP.md", "# Bootstrap\n\nThis workspace was set up by `openpocket init`.\n\n1. `openpocket doctor` checks adb, the phone and the model endpoint.\n2. `openpocket --sim play examples/demo.yaml` runs a playbook on the virtual phone.\n3. `openpocket agent \"Turn Wi-Fi off\"` lets the model drive.\n\nFill in USER.md and IDENTITY.md so the agent knows who it works for.\n"},
	{"AGENTS.md", "# Agents\n\nHow the agent should work in this workspace: conventions, apps to prefer, things never to do.\n"},
	{"SOUL.md", "# Soul\n\nTone and values of the agent.\n"},
	{"USER.md", "# User\n\n- name:\n- language:\n- time zone:\n"},
	{"IDENTITY.md", "# Identity\n\n- name: OpenPocket\n"},
	{"TOOLS.md", "# Tools\n\nNotes about scripts and tools available in this workspace.\n"},
	{"HEARTBEAT.md", "# Heartbeat\n\nWhat to check on each heartbeat.\n"},
	{"MEMORY.md", "# Memory\n\nLong-lived facts the agent may search (memory_search).\n"},
}

// seedWorkspace writes the starter files that do not exist yet and
// returns their paths; existing files are never touched.
func seedWorkspace(dir string) ([]string, error) {
	var created []string
	for _, f := range starterFiles {
		p := filepath.Join(dir, f.name)
		ok, err := atomicfile.WriteNew(p, []byte(f.body), 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return created, err
		}
		if ok {
			created = append(created, p)
		}
	}
	return created, nil
}
