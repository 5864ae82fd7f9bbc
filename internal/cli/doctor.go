package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/sandbox"
	"github.com/openpocket/openpocket/internal/workspace"
)

// DoctorCmd checks what a run needs, one line per check with the fix.
type DoctorCmd struct {
	Model string `help:"Check only this model profile (default: every profile; defaultModel decides the exit code)." placeholder:"PROFILE"`
}

// check is one line of the report. needed marks what the default run
// (openpocket agent/play on the configured target) cannot do without.
type check struct {
	ok     bool
	needed bool
	note   bool // information, not a check: "note:" instead of ✓/✗
	what   string
	fix    string
}

// doctor collects the checks in order.
type doctor struct {
	ctx    context.Context
	g      Globals
	phones *Phones
	logger *slog.Logger
	asm    Assembly
	checks []check
}

func (d *doctor) add(ok, needed bool, what, fix string) {
	d.checks = append(d.checks, check{ok: ok, needed: needed, what: what, fix: fix})
}

// Run prints ✓/✗ lines and exits 0 only when everything the default run
// needs is there (1 otherwise). It never starts an adb server or changes
// a file; --sim attaches the virtual phone first, like other commands.
func (c *DoctorCmd) Run(ctx context.Context, out Streams, g Globals, phones *Phones, logger *slog.Logger, asm Assembly) error {
	d := &doctor{ctx: ctx, g: g, phones: phones, logger: logger, asm: asm}
	cfg, cfgOK := d.config()
	if g.UseSim {
		if _, err := phones.startSim(); err != nil {
			d.add(false, true, "virtual phone: "+err.Error(), "check the adb server line below")
		}
	}
	if d.adb() {
		d.devices(cfg)
	}
	if cfgOK {
		d.models(cfg, c.Model)
	}
	d.sandbox(cfg)
	failed := 0
	for _, ch := range d.checks {
		mark := "✓"
		if ch.note {
			fmt.Fprintln(out.Stdout, "note: "+ch.what)
			continue
		}
		if !ch.ok {
			mark = "✗"
			if ch.needed {
				failed++
			}
		}
		line := mark + " " + ch.what
		if !ch.ok && ch.fix != "" {
			line += " — fix: " + ch.fix
		}
		fmt.Fprintln(out.Stdout, line)
	}
	if failed > 0 {
		return FailedError{Msg: fmt.Sprintf("doctor: %d problem(s) stop the default run", failed)}
	}
	fmt.Fprintln(out.Stdout, "ready: the default run has what it needs")
	return nil
}

// config validates the config file, each problem with line and column.
func (d *doctor) config() (workspace.Config, bool) {
	path := d.g.Config
	if path == "" {
		dir, err := d.g.agentDir() // the selected agent's (--agent)
		if err != nil {
			d.add(false, true, "home: "+err.Error(), "set OPENPOCKET_HOME or pass --home DIR (and --agent an existing agent)")
			return workspace.Config{}, false
		}
		path = dir + "/config.json"
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		d.add(false, true, "config: "+path+" does not exist", "openpocket init")
		return workspace.DefaultConfig(), false
	}
	cfg, warns, err := workspace.LoadConfigWarnings(path)
	if err != nil {
		d.add(false, true, "config: "+oneLine(err.Error()), "edit "+path+" at that line and column")
		return cfg, false
	}
	for _, w := range warns {
		if w.Note { // an upstream key migrated or accepted: nothing to fix
			d.checks = append(d.checks, check{ok: true, note: true, what: "config: " + w.String()})
			continue
		}
		d.add(false, false, "config: "+w.String(), "rename or remove the key")
	}
	d.add(true, true, "config: "+path+" is valid", "")
	return cfg, true
}

// adb checks the binary and that the server answers (without starting it).
func (d *doctor) adb() bool {
	addr := d.phones.adbAddr()
	bin, lookErr := exec.LookPath("adb")
	conn, dialErr := net.DialTimeout("tcp", addr, 2*time.Second)
	if dialErr == nil {
		conn.Close()
	}
	if lookErr != nil {
		d.add(false, dialErr != nil, "adb: the adb binary is not on PATH", "make setup (apt-get install adb), or install Android platform-tools")
	} else {
		d.add(true, true, "adb: "+bin, "")
	}
	if dialErr != nil {
		_, port, _ := net.SplitHostPort(addr)
		d.add(false, true, fmt.Sprintf("adb server: nothing listens at %s", addr), fmt.Sprintf("adb -P %s start-server", port))
		return false
	}
	d.add(true, true, "adb server: listening at "+addr, "")
	return true
}

// devices lists the attached devices and checks the one a run would use:
// authorized, screen on, not locked.
func (d *doctor) devices(cfg workspace.Config) {
	ctx, cancel := context.WithTimeout(d.ctx, 10*time.Second)
	defer cancel()
	client := d.phones.adbClient()
	devs, err := client.Devices(ctx)
	if err != nil {
		d.add(false, true, "devices: "+err.Error(), "adb kill-server && adb start-server, if the server is wedged")
		return
	}
	// The device a run would use, by the one resolver (resolve.go).
	want, source := "", adb.FromOnly
	if sel, err := d.phones.selection(d.g.agentID(), cfg.Target); err == nil {
		c, _ := adb.Static(sel)
		want, source = c.Name(), c.Source
		if c.Note != "" {
			d.add(true, false, "devices: "+c.Note, "")
		}
	}
	if want != "" {
		d.add(true, false, fmt.Sprintf("devices: a run uses %s (chosen by %s)", want, source), "")
	}
	if len(devs) == 0 {
		d.add(false, true, "devices: none attached", noPhoneHint(ctx, d.phones.adbAddr()))
		return
	}
	if want == "" && len(devs) > 1 {
		d.add(false, true, fmt.Sprintf("devices: %d attached and no target chosen", len(devs)), "pass --device SERIAL or bind one: openpocket target set --type TYPE --device SERIAL")
		for _, dev := range devs {
			d.add(dev.State == "device", false, fmt.Sprintf("device %s: %s", dev.Serial, dev.State), "")
		}
		return
	}
	found := false
	for _, dev := range devs {
		if want != "" && dev.Serial != want {
			continue
		}
		found = true
		d.device(ctx, client, dev)
	}
	if !found {
		d.add(false, true, fmt.Sprintf("device %s: not attached", want), "openpocket devices lists what is attached; adb connect HOST:PORT for a TCP device")
	}
}

func (d *doctor) device(ctx context.Context, client *adb.Client, dev adb.DeviceInfo) {
	name := dev.Serial
	if dev.Model != "" {
		name += " (" + dev.Model + ")"
	}
	switch dev.State {
	case "device":
	case "unauthorized":
		d.add(false, true, "device "+name+": unauthorized", "accept the USB debugging prompt on the phone")
		return
	default:
		d.add(false, true, "device "+name+": "+dev.State, "reconnect the cable or run adb reconnect")
		return
	}
	t, err := client.Open(ctx, adb.Target{Serial: dev.Serial})
	if err != nil {
		d.add(false, true, "device "+name+": "+err.Error(), "openpocket devices")
		return
	}
	power, err := t.Shell(ctx, "dumpsys power")
	if err != nil {
		d.add(false, true, "device "+name+": "+err.Error(), "check the cable or adb reconnect")
		return
	}
	awake := strings.Contains(string(power.Stdout), "mWakefulness=Awake")
	win, _ := t.Shell(ctx, "dumpsys window policy")
	locked := keyguardShowing(string(win.Stdout))
	switch {
	case !awake:
		d.add(false, true, "device "+name+": authorized, screen off", `wake it: openpocket act '{"type":"keyevent","keycode":"KEYCODE_WAKEUP"}'`)
	case locked:
		d.add(false, true, "device "+name+": authorized, screen on, locked", "unlock the phone (or set target.pin in config.json)")
	default:
		d.add(true, true, "device "+name+": authorized, screen on, unlocked", "")
	}
}

// keyguardShowing reads the lock state from `dumpsys window policy`, whose
// field names vary by Android version.
func keyguardShowing(s string) bool {
	for _, marker := range []string{"mShowingLockscreen=true", "isStatusBarKeyguard=true", "mDreamingLockscreen=true", "showing=true"} {
		if strings.Contains(s, marker) {
			return true
		}
	}
	return false
}

// models sends each profile a minimal request: an answer of any kind
// means reachable; an HTTP error or no connection is a ✗ naming the
// profile. Only defaultModel (or --model) decides the exit code.
func (d *doctor) models(cfg workspace.Config, only string) {
	names := modelProfileNames(cfg)
	if only != "" {
		if _, ok := cfg.Models[only]; !ok {
			d.add(false, true, fmt.Sprintf("model %q: not in config.json models (profiles: %s)", only, strings.Join(names, ", ")), "openpocket model list")
			return
		}
		names = []string{only}
	}
	if len(names) == 0 {
		d.add(false, true, "models: no model profile configured", "openpocket init")
		return
	}
	for _, name := range names {
		needed := name == cfg.DefaultModel || name == only
		p := cfg.Models[name]
		label := fmt.Sprintf("model %q (%s at %s)", name, p.Model, modelBaseURL(p))
		m, err := d.asm.ProfileModel(d.logger, name, p, nil)
		if err != nil {
			d.add(false, needed, label+": "+oneLine(err.Error()), "fix the profile in config.json, or export its key variable")
			continue
		}
		ctx, cancel := context.WithTimeout(d.ctx, 30*time.Second)
		_, err = m.Decide(ctx, engine.ModelRequest{System: "Health check by openpocket doctor.", Text: "Reply with the word ok."})
		cancel()
		var me ModelError
		if err != nil && errors.As(modelFailure(err), &me) {
			d.add(false, needed, label+": "+oneLine(err.Error()), "check baseUrl, the model name and the API key, or start the local server")
			continue
		}
		d.add(true, needed, label+": answers", "")
	}
}

// sandbox reports the OS confinement host processes (run_script, exec)
// run under, as the executors see it; the default run (playbooks, agent
// without scripts) does not need it.
func (d *doctor) sandbox(cfg workspace.Config) {
	mode, err := sandbox.ParseMode(cfg.ScriptExecutor.Sandbox)
	if err == nil && mode == sandbox.ModeOff {
		d.add(false, false, "sandbox: off in config.json (scriptExecutor.sandbox); scripts and exec run unconfined", `remove `+sandbox.OptOutKey+` once bubblewrap works here`)
		return
	}
	// One line per limit, ✗ where it does not hold here.
	for _, g := range sandbox.Probe().Guarantees(os.Geteuid() == 0) {
		fix := ""
		if !g.Holds {
			fix = "see docs/security.md (Host processes)"
		}
		d.add(g.Holds, false, "sandbox: "+g.Name+": "+g.How, fix)
	}
}
