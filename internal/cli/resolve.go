package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/emulator"
	"github.com/openpocket/openpocket/internal/workspace"
)

// The one device resolver of every command and front end (adb.Resolve):
// --device › $ANDROID_SERIAL › the agent's binding › config's target › the
// only attached device. The command's own flags and environment apply to
// the command's own agent only: a dashboard serving several agents drives
// the others by their bindings.

// selection is what this command knows about agent's device: the global
// flags and $ANDROID_SERIAL when agent is the command's own, the agent's
// binding, and target (config.json's). With --sim the virtual phone is
// started first: it is the device the flag names.
func (p *Phones) selection(agent string, target workspace.TargetConfig) (adb.Selection, error) {
	if agent == "" {
		agent = workspace.DefaultAgent
	}
	sel := adb.Selection{Agent: agent, ConfigDevice: target.Device, ConfigEndpoint: target.AdbEndpoint}
	if agent == agentOf(p.flags) {
		sel.Flag, sel.Endpoint, sel.Env = p.flags.Device, p.flags.Target, p.flags.envSerial
		if p.flags.UseSim && sel.Flag == "" && sel.Endpoint == "" {
			s, err := p.startSim()
			if err != nil {
				return sel, err
			}
			sel.Sim = s.Serial()
		}
	}
	if in, err := workspace.OpenInstall(p.flags.Home); err == nil {
		if b, ok, err := in.Binding(agent); err == nil && ok {
			sel.BoundDevice, sel.BoundEndpoint = b.Device, b.Endpoint
		}
	}
	return sel, nil
}

// openChosen resolves agent's device (target: its config's) and opens
// it, refusing one another agent has bound; a note about the choice
// ($ANDROID_SERIAL overriding the binding) is printed once per command.
func (p *Phones) openChosen(ctx context.Context, agent string, target workspace.TargetConfig) (*adb.Device, adb.Choice, error) {
	return p.openChosenWith(ctx, agent, target, true)
}

// openChosenWith is openChosen; startAVD false only finds a running
// emulator of an AVD target (a page view must not start one).
func (p *Phones) openChosenWith(ctx context.Context, agent string, target workspace.TargetConfig, startAVD bool) (*adb.Device, adb.Choice, error) {
	sel, err := p.selection(agent, target)
	if err != nil {
		return nil, adb.Choice{}, err
	}
	if err := p.avdDevice(ctx, &sel, target, startAVD); err != nil {
		return nil, adb.Choice{}, err
	}
	d, ch, err := p.adbClient().OpenSelected(ctx, sel)
	if err != nil {
		return nil, ch, err
	}
	p.noteOnce(ch.Note)
	if err := p.honourBindings(ctx, d, agent, ch.Endpoint); err != nil {
		return nil, ch, err
	}
	return d, ch, nil
}

// avdMu serializes emulator starts: two runs of the command must not
// start the same AVD twice.
var avdMu sync.Mutex

// avdDevice makes an emulator target with an AVD (target set --type
// emulator --avd NAME) and no serial chosen otherwise resolve to that
// AVD's emulator, started (headless) when it is not running.
func (p *Phones) avdDevice(ctx context.Context, sel *adb.Selection, target workspace.TargetConfig, start bool) error {
	if target.Type != "emulator" || target.Avd == "" {
		return nil
	}
	if c, ok := adb.Static(*sel); ok && c.Source != adb.FromConfig || target.Device != "" {
		return nil // a serial chosen by flag, environment or binding
	}
	avdMu.Lock()
	defer avdMu.Unlock()
	sdk, err := emulator.FindSDK(emulator.OSEnv())
	if err != nil {
		return fmt.Errorf("agent %s's target is the emulator %s: %w", sel.Agent, target.Avd, err)
	}
	m := &emulator.Manager{SDK: sdk, ADB: p.adbClient()}
	if err := m.ADB.EnsureServer(ctx); err != nil {
		return err
	}
	serial, err := m.Find(ctx, target.Avd)
	if err != nil {
		return err
	}
	if serial == "" && !start {
		return fmt.Errorf("%w: agent %s's emulator %s is not running; its next run starts it, or: openpocket emulator start %s",
			adb.ErrNoDevice, sel.Agent, target.Avd, target.Avd)
	}
	if serial == "" {
		fmt.Fprintf(p.stderr, "starting emulator %s for agent %s (its target); waiting for its boot\n", target.Avd, sel.Agent)
		if serial, err = m.Start(ctx, target.Avd, emulator.StartOptions{Headless: true}); err != nil {
			return fmt.Errorf("agent %s's target: %w", sel.Agent, err)
		}
	}
	sel.ConfigDevice, sel.ConfigEndpoint = serial, ""
	return nil
}

// chosenName is agent's device as far as it is known without asking the
// adb server ("" for the only attached device): jobs' per-device
// exclusion and messages.
func (p *Phones) chosenName(agent string, target workspace.TargetConfig) string {
	sel, err := p.selection(agent, target)
	if err != nil {
		return ""
	}
	c, _ := adb.Static(sel)
	return c.Name()
}

var notesMu sync.Mutex

// noteOnce prints note on the command's stderr the first time.
func (p *Phones) noteOnce(note string) {
	if note == "" {
		return
	}
	notesMu.Lock()
	defer notesMu.Unlock()
	if p.notes == nil {
		p.notes = map[string]bool{}
	}
	if !p.notes[note] {
		p.notes[note] = true
		fmt.Fprintln(p.stderr, note)
	}
}

// ownTarget is config.json's target of the command's agent, read without
// writing anything (snapshot and act work without a home): --config, else
// the agent's config.json; none is no target.
func (g Globals) ownTarget() workspace.TargetConfig {
	path := g.Config
	if path == "" {
		dir, err := g.agentDir()
		if err != nil {
			return workspace.TargetConfig{}
		}
		path = filepath.Join(dir, "config.json")
	}
	cfg, _, err := workspace.LoadConfigWarnings(path)
	if err != nil {
		return workspace.TargetConfig{}
	}
	return cfg.Target
}
