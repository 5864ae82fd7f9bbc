package cli

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/openpocket/openpocket/internal/llm"
	"github.com/openpocket/openpocket/internal/workspace"
)

// ModelCmd manages the model profiles of config.json.
type ModelCmd struct {
	List ModelListCmd `cmd:"" help:"List model profiles; * marks defaultModel, mode is the endpoint that last worked."`
	Show ModelShowCmd `cmd:"" help:"Show one profile (default: defaultModel); API keys are never printed."`
	Set  ModelSetCmd  `cmd:"" help:"Make a profile the defaultModel in config.json."`
}

// ModelListCmd lists the profiles.
type ModelListCmd struct {
	JSON bool `name:"json" help:"Print the profiles as JSON (API keys never included)."`
}

// modelListEntry is one profile in model list --json.
type modelListEntry struct {
	Profile   string `json:"profile"`
	Default   bool   `json:"default"`
	Model     string `json:"model"`
	BaseURL   string `json:"baseUrl"`
	APIKey    string `json:"apiKey"` // where the key comes from, never the key
	Mode      string `json:"mode,omitempty"`
	MaxTokens int    `json:"maxTokens,omitempty"`
}

// Run prints one line per profile: default marker, name, model, base URL,
// remembered endpoint mode.
func (c *ModelListCmd) Run(streams Streams, h *workspace.Home, cfg workspace.Config) error {
	modes, err := h.ModeStore()
	if err != nil {
		return err
	}
	if c.JSON {
		out := []modelListEntry{}
		for _, name := range modelProfileNames(cfg) {
			p := cfg.Models[name]
			out = append(out, modelListEntry{Profile: name, Default: name == cfg.DefaultModel, Model: p.Model, BaseURL: modelBaseURL(p),
				APIKey: modelKeyStatus(p), Mode: modes.Get(name), MaxTokens: p.MaxTokens})
		}
		enc := json.NewEncoder(streams.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if len(cfg.Models) == 0 {
		fmt.Fprintln(streams.Stdout, "no model profiles: add one to config.json `models`")
		return nil
	}
	tw := tabwriter.NewWriter(streams.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\tPROFILE\tMODEL\tBASE URL\tMODE")
	for _, name := range modelProfileNames(cfg) {
		p := cfg.Models[name]
		mark := ""
		if name == cfg.DefaultModel {
			mark = "*"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", mark, name, p.Model, modelBaseURL(p), modelModeOf(modes, name))
	}
	return tw.Flush()
}

// ModelShowCmd shows one profile.
type ModelShowCmd struct {
	Profile string `arg:"" optional:"" help:"Profile name (default: defaultModel)."`
}

// Run prints the profile's settings; the key is reported as set or not.
func (c *ModelShowCmd) Run(out Streams, h *workspace.Home, cfg workspace.Config) error {
	name := c.Profile
	if name == "" {
		name = cfg.DefaultModel
	}
	p, ok := cfg.Models[name]
	if !ok {
		return UsageError{fmt.Errorf("model profile %q is not in config.json `models` (profiles: %s)", name, strings.Join(modelProfileNames(cfg), ", "))}
	}
	modes, err := h.ModeStore()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(out.Stdout, 0, 0, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "%s:\t%s\n", k, v) }
	row("profile", name)
	row("default", fmt.Sprint(name == cfg.DefaultModel))
	row("model", p.Model)
	row("baseUrl", modelBaseURL(p))
	row("apiKey", modelKeyStatus(p))
	if p.MaxTokens > 0 {
		row("maxTokens", fmt.Sprint(p.MaxTokens))
	}
	if p.ReasoningEffort != "" {
		row("reasoningEffort", p.ReasoningEffort)
	}
	if p.Temperature != nil {
		row("temperature", fmt.Sprint(*p.Temperature))
	}
	row("mode", modelModeOf(modes, name))
	return tw.Flush()
}

// ModelSetCmd sets defaultModel.
type ModelSetCmd struct {
	Profile string `arg:"" help:"Profile name from config.json models."`
}

// Run updates defaultModel in OPENPOCKET_HOME/config.json atomically.
func (c *ModelSetCmd) Run(out Streams, g Globals, h *workspace.Home) error {
	if g.Config != "" {
		return UsageError{fmt.Errorf("model set writes %s; it cannot be combined with --config", h.ConfigPath())}
	}
	cfg := h.Config()
	if _, ok := cfg.Models[c.Profile]; !ok {
		return UsageError{fmt.Errorf("model profile %q is not in %s `models` (profiles: %s)", c.Profile, h.ConfigPath(), strings.Join(modelProfileNames(cfg), ", "))}
	}
	prev := cfg.DefaultModel
	cfg.DefaultModel = c.Profile
	if err := h.SaveConfig(cfg); err != nil {
		return err
	}
	if prev == c.Profile {
		fmt.Fprintf(out.Stdout, "defaultModel is already %s\n", c.Profile)
	} else {
		fmt.Fprintf(out.Stdout, "defaultModel: %s -> %s\n", modelOrDash(prev), c.Profile)
	}
	return nil
}

func modelProfileNames(cfg workspace.Config) []string {
	names := make([]string, 0, len(cfg.Models))
	for n := range cfg.Models {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func modelBaseURL(p workspace.ModelProfile) string {
	if p.BaseURL == "" {
		return llm.DefaultBaseURL
	}
	return p.BaseURL
}

// modeOf is the remembered endpoint mode; a profile never used starts with
// chat completions.
func modelModeOf(m llm.ModeStore, profile string) string {
	if mode := m.Get(profile); mode != "" {
		return mode
	}
	return "- (chat first)"
}

func modelKeyStatus(p workspace.ModelProfile) string {
	switch {
	case p.APIKey != "":
		return "set in config.json"
	case p.APIKeyEnv != "":
		return "from $" + p.APIKeyEnv
	}
	return "from $OPENAI_API_KEY"
}

func modelOrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
