package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/workspace"
)

// AgentsCmd manages the agents of one install (docs/agents.md): the default agent
// is the install's own home; managed agents live below it.
type AgentsCmd struct {
	Create AgentsCreateCmd `cmd:"" help:"Create a managed agent with its own config, workspace and state; it copies the model profiles of --from (keys only with --with-keys)."`
	List   AgentsListCmd   `cmd:"" default:"withargs" help:"List the agents with their target binding and gateway state."`
	Show   AgentsShowCmd   `cmd:"" help:"Show one agent: directory, origin, model profiles, target, gateway."`
	Remove AgentsRemoveCmd `cmd:"" help:"Remove a managed agent with its workspace and state, releasing its target."`
}

// install is the install the command works on (--home, $OPENPOCKET_HOME,
// ~/.openpocket): the default agent's home, the managed agents below it.
func (g Globals) install() (*workspace.Install, error) {
	in, err := workspace.OpenInstall(g.Home)
	if err != nil {
		return nil, UsageError{err}
	}
	return in, nil
}

// agentID is the selected agent (--agent, $OPENPOCKET_AGENT), "default"
// when none is.
func (g Globals) agentID() string {
	if g.AgentID == "" {
		return workspace.DefaultAgent
	}
	return g.AgentID
}

// openAgentHome opens the selected agent's home; a managed agent must
// exist (the default agent's home is created on first use, as always).
func (g Globals) openAgentHome() (*workspace.Home, error) {
	if g.agentID() == workspace.DefaultAgent {
		return workspace.Open(g.Home)
	}
	in, err := g.install()
	if err != nil {
		return nil, err
	}
	return in.OpenAgent(g.agentID())
}

// agentDir is the selected agent's home directory; a managed agent must
// exist (the default agent's is the install, made on first use).
func (g Globals) agentDir() (string, error) {
	in, err := g.install()
	if err != nil {
		return "", err
	}
	if ok, err := in.Exists(g.agentID()); err != nil {
		return "", err
	} else if !ok {
		_, err := in.OpenAgent(g.agentID()) // the error names the agents there are
		return "", err
	}
	return in.AgentDir(g.agentID())
}

// AgentsCreateCmd creates a managed agent.
type AgentsCreateCmd struct {
	ID       string `arg:"" help:"New agent id (lowercase letters, digits, '-', '_')."`
	From     string `help:"Agent whose model profiles the new one copies." default:"default" placeholder:"ID"`
	WithKeys bool   `help:"Copy the profiles' apiKey values too (by default only apiKeyEnv names come along)."`
}

func (c *AgentsCreateCmd) Run(out Streams, g Globals) error {
	in, err := g.install()
	if err != nil {
		return err
	}
	if _, err := workspace.Open(in.Dir()); err != nil { // the install itself first
		return UsageError{err}
	}
	h, err := in.CreateAgent(c.ID, workspace.CreateOptions{From: c.From, WithKeys: c.WithKeys})
	if err != nil {
		return UsageError{err}
	}
	keys := "without API keys (apiKeyEnv names kept)"
	if c.WithKeys {
		keys = "with API keys"
	}
	fmt.Fprintf(out.Stdout, "created agent %s in %s\nmodel profiles copied from %s %s: %d\nnext: openpocket --agent %s target set --type emulator --device SERIAL\n",
		c.ID, h.Dir(), c.From, keys, len(h.Config().Models), c.ID)
	return nil
}

// AgentsListCmd lists the agents.
type AgentsListCmd struct{}

func (c *AgentsListCmd) Run(out Streams, g Globals) error {
	in, err := g.install()
	if err != nil {
		return err
	}
	list, err := in.Agents()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(out.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tTARGET\tGATEWAY\tDIR")
	for _, ag := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ag.ID, bindingText(in, ag), gatewayText(ag.Dir), ag.Dir)
	}
	return tw.Flush()
}

// bindingText is an agent's target for a listing: its binding, else the
// configured type without one.
func bindingText(in *workspace.Install, ag workspace.AgentInfo) string {
	b, ok, err := in.Binding(ag.ID)
	if err != nil {
		return "error: " + err.Error()
	}
	if ok {
		return b.Type + " " + b.Fingerprint()
	}
	return "-"
}

// gatewayText says whether the gateway of the agent at dir runs.
func gatewayText(dir string) string {
	if l, ok := cron.GatewayRunning(stateDirOf(dir)); ok {
		return fmt.Sprintf("running (pid %d)", l.PID)
	}
	return "stopped"
}

// stateDirOf is the state directory of the agent home at dir.
func stateDirOf(dir string) string { return filepath.Join(dir, "state") }

// AgentsShowCmd shows one agent.
type AgentsShowCmd struct {
	ID string `arg:"" help:"Agent id (default: the selected agent)." optional:""`
}

func (c *AgentsShowCmd) Run(out Streams, g Globals) error {
	id := c.ID
	if id == "" {
		id = g.agentID()
	}
	in, err := g.install()
	if err != nil {
		return err
	}
	info, err := in.Agent(id)
	if err != nil {
		return UsageError{err}
	}
	h, err := in.OpenAgent(id)
	if err != nil {
		return UsageError{err}
	}
	cfg := h.Config()
	w := out.Stdout
	fmt.Fprintf(w, "agent:    %s\ndir:      %s\n", info.ID, info.Dir)
	if info.CreatedAt != "" {
		fmt.Fprintf(w, "created:  %s from %s (keys copied: %t)\n", info.CreatedAt, info.CreatedFrom, info.KeysCopied)
	}
	fmt.Fprintf(w, "model:    %s (profiles: %s)\n", cfg.DefaultModel, cfg.ProfileList())
	fmt.Fprintf(w, "target:   %s\n", bindingText(in, info))
	fmt.Fprintf(w, "gateway:  %s\n", gatewayText(info.Dir))
	return nil
}

// AgentsRemoveCmd removes a managed agent.
type AgentsRemoveCmd struct {
	ID string `arg:"" help:"Agent id."`
}

func (c *AgentsRemoveCmd) Run(out Streams, g Globals) error {
	in, err := g.install()
	if err != nil {
		return err
	}
	info, err := in.Agent(c.ID)
	if err != nil {
		return UsageError{err}
	}
	if l, ok := cron.GatewayRunning(stateDirOf(info.Dir)); ok {
		return UsageError{fmt.Errorf("agent %s: its gateway runs (pid %d, started %s); stop it first", c.ID, l.PID, l.StartedAt)}
	}
	if err := in.RemoveAgent(c.ID); err != nil {
		return UsageError{err}
	}
	fmt.Fprintf(out.Stdout, "removed agent %s (%s); its target is free\n", c.ID, info.Dir)
	return nil
}

// exampleBlock is an "Examples:" help block for commands whose examples
// live beside them (same shape as exampleHelp's).
func exampleBlock(ex ...string) string { return "Examples:\n  " + strings.Join(ex, "\n  ") }

func (c *AgentsCreateCmd) Help() string {
	return exampleBlock("openpocket agents create shop", "openpocket agents create ops --from shop --with-keys")
}
func (c *AgentsListCmd) Help() string { return exampleBlock("openpocket agents list") }
func (c *AgentsShowCmd) Help() string {
	return exampleBlock("openpocket agents show shop", "openpocket --agent shop agents show")
}
func (c *AgentsRemoveCmd) Help() string { return exampleBlock("openpocket agents remove shop") }
func (c *TargetShowCmd) Help() string {
	return exampleBlock("openpocket target show", "OPENPOCKET_AGENT=shop openpocket target show")
}
func (c *TargetSetCmd) Help() string {
	return exampleBlock("openpocket --agent shop target set --type emulator --device emulator-5554",
		"openpocket target set --type android-tv --endpoint 192.168.1.20:5555",
		"openpocket target set --type physical-phone --device R58M1234 --pin 1234")
}
func (c *TargetClearCmd) Help() string {
	return exampleBlock("openpocket target clear", "openpocket --agent shop target clear")
}
