package android

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

var commands map[string]command

// commands refer back to the interpreter (sh -c), so the table is filled in
// init to avoid an initialization cycle.
func init() {
	commands = map[string]command{
		"am": cmdAm, "cat": cmdCat, "cmd": cmdCmd, "dumpsys": cmdDumpsys, "echo": cmdEcho,
		"false":   func(context.Context, *Phone, *cmdIO) int { return 1 },
		"getprop": cmdGetprop, "grep": cmdGrep, "head": cmdHead, "id": cmdID, "input": cmdInput,
		"ls": cmdLs, "mkdir": cmdMkdir, "monkey": cmdMonkey, "pm": cmdPm, "pwd": cmdPwd, "rm": cmdRm,
		"screencap": cmdScreencap, "settings": cmdSettings, "sleep": cmdSleep, "tail": cmdTail,
		"true":        func(context.Context, *Phone, *cmdIO) int { return 0 },
		"uiautomator": cmdUiautomator, "wc": cmdWc, "whoami": cmdWhoami, "wm": cmdWm,
	}
	addDeviceCommands(commands)
}

// commandNames lists the built-in commands, sorted (for /system/bin).
func commandNames() []string {
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func cmdUiautomator(_ context.Context, p *Phone, c *cmdIO) int {
	if len(c.args) < 2 || c.args[1] != "dump" {
		c.errorf("Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\nhelp: displays help message\n\ndump: creates an XML dump of current UI hierarchy\n\nevents: prints out accessibility events until terminated")
		return 1
	}
	file := "/sdcard/window_dump.xml"
	for _, a := range c.args[2:] {
		if !strings.HasPrefix(a, "--") {
			file = a
		}
	}
	p.mu.Lock()
	awake := p.st.awake
	xml := p.xmlLocked()
	p.mu.Unlock()
	if !awake {
		c.errorf("ERROR: null root node returned by UiTestAutomationBridge.")
		return 1
	}
	if file == "/dev/tty" || file == "/dev/stdout" {
		c.stdout.Write(xml)
	} else if err := p.fs.writeNew(file, xml); err != nil {
		c.errorf("ERROR: could not write %s: %s", file, errText(err))
		return 1
	}
	fmt.Fprintf(c.stdout, "UI hierchary dumped to: %s\n", file)
	return 0
}

func cmdCmd(ctx context.Context, p *Phone, c *cmdIO) int {
	if len(c.args) < 2 {
		c.errorf("cmd: No service specified; use -l to list all running services. Use -w to start and wait for a service.")
		return 20
	}
	sub := &cmdIO{args: c.args[1:], stdin: c.stdin, stdout: c.stdout, stderr: c.stderr}
	switch c.args[1] {
	case "clipboard":
		return clipboardCmd(p, sub)
	case "package":
		sub.args[0] = "pm"
		return cmdPm(ctx, p, sub)
	case "activity":
		sub.args[0] = "am"
		return cmdAm(ctx, p, sub)
	case "settings":
		return cmdSettings(ctx, p, sub)
	case "input":
		return cmdInput(ctx, p, sub)
	case "window":
		return cmdWm(ctx, p, sub)
	case "connectivity":
		return connectivityCmd(p, sub)
	case "location":
		return locationCmd(p, sub)
	case "uimode":
		return uimodeCmd(p, sub)
	case "statusbar":
		return statusbarCmd(p, sub)
	}
	c.errorf("cmd: Can't find service: %s", c.args[1])
	return 20
}

func clipboardCmd(p *Phone, c *cmdIO) int {
	args := c.args[1:]
	switch {
	case len(args) >= 2 && args[0] == "set" && args[1] == "text":
		text := strings.Join(args[2:], " ")
		var refused bool
		p.locked(func() {
			if refused = p.st.ext.quirks.ClipboardSetError; !refused {
				p.st.clipboard = text
			}
		})
		if refused {
			fmt.Fprintln(c.stdout, clipboardSetNoIME)
		}
		return 0
	case len(args) >= 2 && args[0] == "get" && args[1] == "text":
		var denied, errLine bool
		p.locked(func() { denied, errLine = p.st.ext.clipboardDenied, p.st.ext.quirks.ClipboardGetError })
		if errLine {
			fmt.Fprintln(c.stdout, clipboardGetDenied)
			return 0
		}
		if denied {
			// Android 10+ hides the clip from the shell: ClipboardService
			// returns no clip, which the command prints as null.
			fmt.Fprintln(c.stdout, "null")
			return 0
		}
		fmt.Fprintln(c.stdout, p.Clipboard())
		return 0
	case len(args) >= 1 && args[0] == "clear":
		p.locked(func() { p.st.clipboard = "" })
		return 0
	}
	c.errorf("Unknown command: %s\nusage: cmd clipboard [set text TEXT | get text | clear]", strings.Join(args, " "))
	return 255
}

func cmdSettings(_ context.Context, p *Phone, c *cmdIO) int {
	usage := func() int {
		c.errorf("usage:  settings [--user <USER_ID> | current] get namespace key\n        settings [--user <USER_ID> | current] put namespace key value\n        settings [--user <USER_ID> | current] delete namespace key\n        settings [--user <USER_ID> | current] list namespace")
		return 255
	}
	args := c.args[1:]
	if len(args) >= 2 && args[0] == "--user" {
		args = args[2:]
	}
	if len(args) < 2 {
		return usage()
	}
	ns := args[1]
	if ns != "global" && ns != "system" && ns != "secure" {
		c.errorf("Invalid namespace '%s'", ns)
		return usage()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var out strings.Builder
	switch {
	case args[0] == "get" && len(args) == 3:
		v, ok := p.settingLocked(ns, args[2])
		if !ok {
			v = "null"
		}
		out.WriteString(v + "\n")
	case args[0] == "put" && len(args) >= 4:
		if err := p.putSettingLocked(ns, args[2], args[3]); err != nil {
			c.errorf("%v", err)
			return 255
		}
	case args[0] == "delete" && len(args) == 3:
		delete(p.st.settings, ns+"/"+args[2])
		out.WriteString("Deleted 1 rows\n")
	case args[0] == "list" && len(args) == 2:
		var keys []string
		for k := range p.st.settings {
			if strings.HasPrefix(k, ns+"/") {
				keys = append(keys, strings.TrimPrefix(k, ns+"/"))
			}
		}
		if ns == "global" {
			keys = append(keys, "bluetooth_on", "wifi_on")
		}
		sort.Strings(keys)
		for _, k := range keys {
			v, _ := p.settingLocked(ns, k)
			out.WriteString(k + "=" + v + "\n")
		}
	default:
		return usage()
	}
	// Output is small; writing it under the lock would risk blocking, so
	// hand it over after unlocking.
	defer io.WriteString(c.stdout, out.String())
	return 0
}

func boolDigit(on bool) string {
	if on {
		return "1"
	}
	return "0"
}

func (p *Phone) settingLocked(ns, key string) (string, bool) {
	if ns == "global" {
		switch key {
		case "wifi_on":
			return boolDigit(p.st.wifi), true
		case "bluetooth_on":
			return boolDigit(p.st.bluetooth), true
		}
	}
	v, ok := p.st.settings[ns+"/"+key]
	return v, ok
}

func (p *Phone) putSettingLocked(ns, key, value string) error {
	if ns == "global" && (key == "wifi_on" || key == "bluetooth_on") {
		n, err := strconv.Atoi(value)
		if err != nil {
			return fmt.Errorf("settings: %s must be 0 or 1, got %q", key, value)
		}
		if key == "wifi_on" {
			p.st.wifi = n != 0
		} else {
			p.st.bluetooth = n != 0
		}
		p.changed()
		return nil
	}
	p.st.settings[ns+"/"+key] = value
	return nil
}

func cmdWm(_ context.Context, p *Phone, c *cmdIO) int {
	args := c.args[1:]
	if len(args) == 0 {
		c.errorf("Window manager (window) commands:\n  size [reset|WxH|WdpxHdp]\n  density [reset|DENSITY]")
		return 255
	}
	p.mu.Lock()
	st := &p.st
	var out string
	status := 0
	switch {
	case args[0] == "size" && len(args) == 1 && st.ext.quirks.WMSizeSilent:
	case args[0] == "size" && len(args) == 1:
		out = fmt.Sprintf("Physical size: %dx%d\n", st.physW, st.physH)
		if st.overW > 0 {
			out += fmt.Sprintf("Override size: %dx%d\n", st.overW, st.overH)
		}
	case args[0] == "size" && args[1] == "reset":
		st.overW, st.overH = 0, 0
		st.contactsScroll = 0
		p.changed()
	case args[0] == "size":
		var w, h int
		if _, err := fmt.Sscanf(args[1], "%dx%d", &w, &h); err != nil || w <= 0 || h <= 0 {
			out, status = fmt.Sprintf("Error: bad size %s\n", args[1]), 255
			break
		}
		st.overW, st.overH = w, h
		st.contactsScroll = 0
		p.changed()
	case args[0] == "dismiss-keyguard":
		p.dismissKeyguardLocked()
	case args[0] == "density" && len(args) == 1:
		out = fmt.Sprintf("Physical density: %d\n", st.physDensity)
		if st.overDensity > 0 {
			out += fmt.Sprintf("Override density: %d\n", st.overDensity)
		}
	case args[0] == "density" && args[1] == "reset":
		st.overDensity = 0
		p.changed()
	case args[0] == "density":
		d, err := strconv.Atoi(args[1])
		if err != nil || d <= 0 {
			out, status = fmt.Sprintf("Error: bad density %s\n", args[1]), 255
			break
		}
		st.overDensity = d
		p.changed()
	default:
		out, status = fmt.Sprintf("Error: unknown command '%s'\n", args[0]), 255
	}
	p.mu.Unlock()
	if status != 0 {
		io.WriteString(c.stderr, out)
	} else {
		io.WriteString(c.stdout, out)
	}
	return status
}

func (p *Phone) props() map[string]string {
	_, _, density := p.sizeLocked()
	return map[string]string{
		"ro.product.model":         p.opts.Model,
		"ro.product.manufacturer":  "OpenPocket",
		"ro.product.brand":         "openpocket",
		"ro.product.name":          "openpocket_vphone",
		"ro.product.device":        "vphone",
		"ro.product.cpu.abi":       "x86_64",
		"ro.build.version.release": androidRelease(p.st.ext.sdk),
		"ro.build.version.sdk":     strconv.Itoa(p.st.ext.sdk),
		"ro.build.id":              buildID,
		"ro.build.type":            "userdebug",
		"ro.build.characteristics": p.characteristics(),
		"ro.build.fingerprint":     "openpocket/openpocket_vphone/vphone:14/" + buildID + "/1:userdebug/test-keys",
		"ro.serialno":              p.opts.Serial,
		"ro.sf.lcd_density":        strconv.Itoa(p.st.physDensity),
		"ro.debuggable":            "1",
		"ro.secure":                "0",
		"sys.boot_completed":       boolProp(!p.booting),
		"dev.bootcomplete":         boolProp(!p.booting),
		"init.svc.bootanim":        map[bool]string{true: "running", false: "stopped"}[p.booting],
		"persist.sys.locale":       "en-US",
		"persist.sys.timezone":     "UTC",
		"qemu.sf.lcd_density":      strconv.Itoa(density),
	}
}

func cmdGetprop(_ context.Context, p *Phone, c *cmdIO) int {
	p.mu.Lock()
	props := p.props()
	p.mu.Unlock()
	if len(c.args) > 1 {
		v, ok := props[c.args[1]]
		if !ok && len(c.args) > 2 {
			v = c.args[2]
		}
		fmt.Fprintln(c.stdout, v)
		return 0
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&out, "[%s]: [%s]\n", k, props[k])
	}
	io.WriteString(c.stdout, out.String())
	return 0
}

func boolProp(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
