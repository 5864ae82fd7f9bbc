package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/workspace"
)

// TargetCmd shows and changes the selected agent's target (docs/agents.md:
// "switching target is explicit via openpocket target set").
type TargetCmd struct {
	Show  TargetShowCmd  `cmd:"" default:"withargs" help:"Show the agent's target, its binding and (android-tv) its key set."`
	Set   TargetSetCmd   `cmd:"" help:"Choose the agent's target and bind it exclusively (refused while the agent's gateway runs or another agent holds it)."`
	Clear TargetClearCmd `cmd:"" help:"Release the agent's target binding and reset its target to the default."`
}

// TVKeys are the remote-control keys of an android-tv target: the D-pad
// and the remote's buttons, by the names `keyevent` takes.
var TVKeys = []string{
	"KEYCODE_DPAD_UP", "KEYCODE_DPAD_DOWN", "KEYCODE_DPAD_LEFT", "KEYCODE_DPAD_RIGHT", "KEYCODE_DPAD_CENTER",
	"KEYCODE_BACK", "KEYCODE_HOME", "KEYCODE_MENU", "KEYCODE_GUIDE", "KEYCODE_SETTINGS", "KEYCODE_SEARCH",
	"KEYCODE_MEDIA_PLAY_PAUSE", "KEYCODE_MEDIA_REWIND", "KEYCODE_MEDIA_FAST_FORWARD",
	"KEYCODE_VOLUME_UP", "KEYCODE_VOLUME_DOWN", "KEYCODE_VOLUME_MUTE", "KEYCODE_CHANNEL_UP", "KEYCODE_CHANNEL_DOWN",
	"KEYCODE_TV_INPUT", "KEYCODE_CAPTIONS",
}

// TargetShowCmd prints the target.
type TargetShowCmd struct{}

func (c *TargetShowCmd) Run(out Streams, g Globals, h *workspace.Home) error {
	in, err := g.install()
	if err != nil {
		return err
	}
	t := h.Config().Target
	w := out.Stdout
	fmt.Fprintf(w, "agent:    %s\ntype:     %s\n", g.agentID(), t.Type)
	switch {
	case t.Device != "":
		fmt.Fprintf(w, "device:   %s\n", t.Device)
	case t.AdbEndpoint != "":
		fmt.Fprintf(w, "endpoint: %s\n", t.AdbEndpoint)
	default:
		fmt.Fprintln(w, "device:   the only attached device (not bound)")
	}
	if t.Avd != "" {
		fmt.Fprintf(w, "avd:      %s (started when not attached)\n", t.Avd)
	}
	if t.Pin != "" {
		fmt.Fprintln(w, "pin:      set") // never printed: it unlocks the phone
	}
	b, ok, err := in.Binding(g.agentID())
	if err != nil {
		return err
	}
	if ok {
		fmt.Fprintf(w, "binding:  %s (exclusive since %s)\n", b.Fingerprint(), b.BoundAt)
	} else {
		fmt.Fprintln(w, "binding:  none")
	}
	fmt.Fprintf(w, "gateway:  %s\n", gatewayText(h.Dir()))
	if t.Type == "android-tv" {
		fmt.Fprintf(w, "keys:     %s\n", strings.Join(TVKeys, " "))
	}
	return nil
}

// TargetSetCmd binds a target.
type TargetSetCmd struct {
	Type string `help:"emulator, physical-phone, android-tv or cloud." required:"" enum:"emulator,physical-phone,android-tv,cloud" placeholder:"TYPE"`
	// The serial comes from the global --device (-s, $ANDROID_SERIAL):
	// `openpocket target set --type emulator --device emulator-5554`.
	Endpoint string `help:"host:port adb connects to (cloud targets need one); with the global --device SERIAL instead for an attached device." placeholder:"HOST:PORT"`
	Pin      string `help:"Screen-lock PIN the runtime may unlock the device with, 4 to 16 digits (stored in config.json, never printed; kept when not given)." placeholder:"PIN"`
	Avd      string `name:"avd" help:"Emulator targets: the AVD the gateway and runs start (openpocket emulator start) when its emulator is not attached." placeholder:"NAME"`
	Detached bool   `help:"Bind a serial that is not attached to the adb server now."`
}

func (c *TargetSetCmd) Run(ctx context.Context, out Streams, g Globals, h *workspace.Home, phones *Phones) error {
	in, err := changeableTarget(g, h)
	if err != nil {
		return err
	}
	serial := g.deviceOrEnv()
	if err := c.check(serial); err != nil {
		return err
	}
	if serial != "" && !c.Detached && c.Avd == "" {
		if err := attachedOrSay(ctx, phones, serial); err != nil {
			return err
		}
	}
	old, hadOld, err := in.Binding(g.agentID())
	if err != nil {
		return err
	}
	var b workspace.Binding
	if serial != "" || c.Endpoint != "" {
		b, err = in.Bind(workspace.Binding{Agent: g.agentID(), Type: c.Type, Device: serial, Endpoint: c.Endpoint}, time.Now())
		if err != nil {
			return err
		}
	} else if err := in.Unbind(g.agentID()); err != nil {
		return err
	}
	cfg := h.Config()
	pin := c.Pin
	if pin == "" {
		pin = cfg.Target.Pin // a new type or device keeps the stored PIN
	}
	cfg.Target = workspace.TargetConfig{Type: c.Type, Device: serial, AdbEndpoint: c.Endpoint, Pin: pin, Avd: c.Avd}
	if err := h.SaveConfig(cfg); err != nil {
		// Config and binding stay one story: put the old binding back.
		if hadOld {
			in.Bind(old, time.Now())
		} else {
			in.Unbind(g.agentID())
		}
		return err
	}
	if b.Agent == "" {
		fmt.Fprintf(out.Stdout, "agent %s: target %s, the only attached device (not bound)\n", g.agentID(), c.Type)
		return nil
	}
	fmt.Fprintf(out.Stdout, "agent %s: target %s %s, bound exclusively\n", g.agentID(), c.Type, b.Fingerprint())
	return nil
}

// check validates the flags, completing an endpoint without a port with
// adb's default 5555.
func (c *TargetSetCmd) check(serial string) error {
	if serial != "" && c.Endpoint != "" {
		return UsageError{errors.New("give --device SERIAL or --endpoint HOST[:PORT], not both")}
	}
	if c.Type == "cloud" && c.Endpoint == "" {
		return UsageError{errors.New("a cloud target is a typed endpoint: give --endpoint HOST:PORT")}
	}
	if c.Avd != "" && c.Type != "emulator" {
		return UsageError{fmt.Errorf("--avd names an emulator's virtual device: use it with --type emulator, not %s", c.Type)}
	}
	if c.Endpoint != "" {
		ep, err := adb.WithDefaultPort(c.Endpoint)
		if err != nil {
			return UsageError{fmt.Errorf("--endpoint: %w", err)}
		}
		c.Endpoint = ep
	}
	if c.Pin != "" && !validPin(c.Pin) {
		return UsageError{fmt.Errorf("--pin: expected 4 to 16 digits (the phone's screen-lock PIN), got %d characters%s", len(c.Pin), notDigits(c.Pin))}
	}
	return nil
}

// validPin: Android's screen-lock PINs are 4 to 16 digits.
func validPin(pin string) bool {
	if len(pin) < 4 || len(pin) > 16 {
		return false
	}
	for _, r := range pin {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// notDigits says a PIN holds other characters than digits (never which:
// the PIN is a secret).
func notDigits(pin string) string {
	for _, r := range pin {
		if r < '0' || r > '9' {
			return " with characters other than digits"
		}
	}
	return ""
}

// attachedOrSay refuses serial unless the adb server lists it, naming
// what is attached.
func attachedOrSay(ctx context.Context, phones *Phones, serial string) error {
	client := phones.adbClient()
	if err := client.EnsureServer(ctx); err != nil {
		return fmt.Errorf("target set: cannot check that %s is attached: %w; pass --detached to bind it anyway", serial, err)
	}
	devs, err := client.Devices(ctx)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(devs))
	for _, d := range devs {
		if d.Serial == serial {
			return nil
		}
		names = append(names, d.Serial+" ("+d.State+")")
	}
	attached := "none"
	if len(names) > 0 {
		attached = strings.Join(names, ", ")
	}
	return UsageError{fmt.Errorf("device %s is not attached to the adb server at %s (attached: %s); connect it first (`openpocket connect HOST[:PORT]` for Wi-Fi), or pass --detached to bind it anyway",
		serial, client.Addr(), attached)}
}

// TargetClearCmd releases the binding.
type TargetClearCmd struct{}

func (c *TargetClearCmd) Run(out Streams, g Globals, h *workspace.Home) error {
	in, err := changeableTarget(g, h)
	if err != nil {
		return err
	}
	if err := in.Unbind(g.agentID()); err != nil {
		return err
	}
	cfg := h.Config()
	cfg.Target = workspace.DefaultConfig().Target
	if err := h.SaveConfig(cfg); err != nil {
		return err
	}
	fmt.Fprintf(out.Stdout, "agent %s: target cleared (binding released)\n", g.agentID())
	return nil
}

// changeableTarget opens the install of the agent (home h) whose target is about to change and
// refuses while its gateway runs (docs/agents.md: stop it first).
func changeableTarget(g Globals, h *workspace.Home) (*workspace.Install, error) {
	in, err := g.install()
	if err != nil {
		return nil, err
	}
	if l, ok := cron.GatewayRunning(h.State()); ok {
		return nil, UsageError{fmt.Errorf("agent %s: its gateway runs (pid %d, started %s); stop it before changing its target", g.agentID(), l.PID, l.StartedAt)}
	}
	return in, nil
}
