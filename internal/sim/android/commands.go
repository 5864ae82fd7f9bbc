package android

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/openpocket/openpocket/internal/sim/adbd"
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

func cmdEcho(_ context.Context, _ *Phone, c *cmdIO) int {
	args := c.args[1:]
	newline := true
	if len(args) > 0 && args[0] == "-n" {
		newline, args = false, args[1:]
	}
	out := strings.Join(args, " ")
	if newline {
		out += "\n"
	}
	io.WriteString(c.stdout, out)
	return 0
}

func cmdID(_ context.Context, _ *Phone, c *cmdIO) int {
	io.WriteString(c.stdout, "uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),3001(net_bt_admin),3002(net_bt),3003(inet),3006(net_bw_stats) context=u:r:shell:s0\n")
	return 0
}

func cmdWhoami(_ context.Context, _ *Phone, c *cmdIO) int {
	io.WriteString(c.stdout, "shell\n")
	return 0
}

func cmdPwd(_ context.Context, _ *Phone, c *cmdIO) int {
	io.WriteString(c.stdout, "/\n")
	return 0
}

func cmdSleep(ctx context.Context, _ *Phone, c *cmdIO) int {
	if len(c.args) != 2 {
		c.errorf("usage: sleep DURATION")
		return 1
	}
	secs, err := strconv.ParseFloat(strings.TrimSuffix(c.args[1], "s"), 64)
	if err != nil || secs < 0 {
		c.errorf("sleep: invalid number '%s'", c.args[1])
		return 1
	}
	timer := time.NewTimer(time.Duration(secs * float64(time.Second)))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return 130
	case <-timer.C:
		return 0
	}
}

// splitFlags separates leading single-dash flags ("-rf" → r, f) from operands.
func splitFlags(args []string) (flags string, operands []string) {
	for i, a := range args {
		if a == "--" {
			return flags, append(operands, args[i+1:]...)
		}
		if len(a) > 1 && a[0] == '-' {
			flags += a[1:]
			continue
		}
		operands = append(operands, a)
	}
	return flags, operands
}

func cmdLs(_ context.Context, p *Phone, c *cmdIO) int {
	flags, paths := splitFlags(c.args[1:])
	long := strings.Contains(flags, "l")
	if len(paths) == 0 {
		paths = []string{"/"}
	}
	status := 0
	for i, pth := range paths {
		info, err := p.fs.Stat(pth)
		if err != nil {
			c.errorf("ls: %s: %s", pth, errText(err))
			status = 1
			continue
		}
		entries := []fsLine{{name: pth, info: info}}
		if info.Mode.IsDir() {
			list, _ := p.fs.ReadDir(pth)
			entries = entries[:0]
			for _, e := range list {
				entries = append(entries, fsLine{name: e.Name, info: e})
			}
			if len(paths) > 1 {
				if i > 0 {
					io.WriteString(c.stdout, "\n")
				}
				fmt.Fprintf(c.stdout, "%s:\n", pth)
			}
			if long {
				fmt.Fprintf(c.stdout, "total %d\n", len(entries))
			}
		}
		for _, e := range entries {
			if long {
				fmt.Fprintf(c.stdout, "%s 1 shell shell %8d %s %s\n", modeString(e.info.Mode), e.info.Size,
					e.info.ModTime.UTC().Format("2006-01-02 15:04"), e.name)
			} else {
				fmt.Fprintln(c.stdout, e.name)
			}
		}
	}
	return status
}

type fsLine struct {
	name string
	info adbd.FileInfo
}

func modeString(m fs.FileMode) string {
	s := []byte("-rwxrwxrwx")
	if m.IsDir() {
		s[0] = 'd'
	}
	for i := 0; i < 9; i++ {
		if m&(1<<uint(8-i)) == 0 {
			s[i+1] = '-'
		}
	}
	return string(s)
}

func cmdCat(_ context.Context, p *Phone, c *cmdIO) int {
	_, paths := splitFlags(c.args[1:])
	if len(paths) == 0 {
		io.Copy(c.stdout, c.stdin)
		return 0
	}
	status := 0
	for _, pth := range paths {
		data, err := p.fs.ReadFile(pth)
		if err != nil {
			c.errorf("cat: %s: %s", pth, errText(err))
			status = 1
			continue
		}
		c.stdout.Write(data)
	}
	return status
}

func cmdRm(_ context.Context, p *Phone, c *cmdIO) int {
	flags, paths := splitFlags(c.args[1:])
	force := strings.Contains(flags, "f")
	recursive := strings.ContainsAny(flags, "rR")
	if len(paths) == 0 && !force {
		c.errorf("rm: Need 1 argument")
		return 1
	}
	status := 0
	for _, pth := range paths {
		if err := p.fs.remove(pth, recursive); err != nil {
			if force && isNotExist(err) {
				continue
			}
			c.errorf("rm: %s: %s", pth, errText(err))
			status = 1
		}
	}
	return status
}

func isNotExist(err error) bool { return errText(err) == "No such file or directory" }

func cmdMkdir(_ context.Context, p *Phone, c *cmdIO) int {
	flags, paths := splitFlags(c.args[1:])
	if len(paths) == 0 {
		c.errorf("mkdir: Need 1 argument")
		return 1
	}
	status := 0
	for _, pth := range paths {
		if err := p.fs.mkdir(pth, strings.Contains(flags, "p")); err != nil {
			c.errorf("mkdir: %s: %s", pth, errText(err))
			status = 1
		}
	}
	return status
}

// readLines reads all of stdin (or the named files) as lines.
func readLines(p *Phone, c *cmdIO, files []string) ([]string, bool) {
	var data []byte
	if len(files) == 0 {
		data, _ = io.ReadAll(c.stdin)
	}
	for _, f := range files {
		d, err := p.fs.ReadFile(f)
		if err != nil {
			c.errorf("%s: %s: %s", c.args[0], f, errText(err))
			return nil, false
		}
		data = append(data, d...)
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines, true
}

func cmdGrep(_ context.Context, p *Phone, c *cmdIO) int {
	var ignoreCase, invert, count, fixed, onlyMatching bool
	var pattern string
	havePattern := false
	var files []string
	args := c.args[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-e" && i+1 < len(args) {
			pattern, havePattern = args[i+1], true
			i++
			continue
		}
		if len(a) > 1 && a[0] == '-' && !havePattern {
			for _, f := range a[1:] {
				switch f {
				case 'i':
					ignoreCase = true
				case 'v':
					invert = true
				case 'c':
					count = true
				case 'F':
					fixed = true
				case 'o':
					onlyMatching = true
				case 'E':
				default:
					c.errorf("grep: Unknown option '%c'", f)
					return 2
				}
			}
			continue
		}
		if !havePattern {
			pattern, havePattern = a, true
		} else {
			files = append(files, a)
		}
	}
	if !havePattern {
		c.errorf("grep: Need 1 argument")
		return 2
	}
	if fixed {
		pattern = regexp.QuoteMeta(pattern)
	}
	if ignoreCase {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		c.errorf("grep: bad regex '%s': %v", pattern, err)
		return 2
	}
	lines, ok := readLines(p, c, files)
	if !ok {
		return 2
	}
	n := 0
	for _, line := range lines {
		if re.MatchString(line) == invert {
			continue
		}
		n++
		switch {
		case count:
		case onlyMatching && !invert:
			for _, m := range re.FindAllString(line, -1) {
				fmt.Fprintln(c.stdout, m)
			}
		default:
			fmt.Fprintln(c.stdout, line)
		}
	}
	if count {
		fmt.Fprintln(c.stdout, n)
	}
	if n == 0 {
		return 1
	}
	return 0
}

// lineCount parses head/tail's "-n N" or "-N".
func lineCount(c *cmdIO) (n int, files []string, ok bool) {
	n = 10
	args := c.args[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-n" && i+1 < len(args):
			v, err := strconv.Atoi(args[i+1])
			if err != nil {
				c.errorf("%s: invalid number '%s'", c.args[0], args[i+1])
				return 0, nil, false
			}
			n = v
			i++
		case strings.HasPrefix(a, "-n"):
			v, err := strconv.Atoi(a[2:])
			if err != nil {
				c.errorf("%s: invalid number '%s'", c.args[0], a[2:])
				return 0, nil, false
			}
			n = v
		case len(a) > 1 && a[0] == '-':
			v, err := strconv.Atoi(a[1:])
			if err != nil {
				c.errorf("%s: Unknown option '%s'", c.args[0], a)
				return 0, nil, false
			}
			n = v
		default:
			files = append(files, a)
		}
	}
	return max(n, 0), files, true
}

func cmdHead(_ context.Context, p *Phone, c *cmdIO) int {
	n, files, ok := lineCount(c)
	if !ok {
		return 1
	}
	lines, ok := readLines(p, c, files)
	if !ok {
		return 1
	}
	for _, l := range lines[:min(n, len(lines))] {
		fmt.Fprintln(c.stdout, l)
	}
	return 0
}

func cmdTail(_ context.Context, p *Phone, c *cmdIO) int {
	n, files, ok := lineCount(c)
	if !ok {
		return 1
	}
	lines, ok := readLines(p, c, files)
	if !ok {
		return 1
	}
	for _, l := range lines[max(0, len(lines)-n):] {
		fmt.Fprintln(c.stdout, l)
	}
	return 0
}

func cmdWc(_ context.Context, p *Phone, c *cmdIO) int {
	flags, files := splitFlags(c.args[1:])
	lines, ok := readLines(p, c, files)
	if !ok {
		return 1
	}
	if strings.Contains(flags, "l") {
		fmt.Fprintln(c.stdout, len(lines))
		return 0
	}
	words, chars := 0, 0
	for _, l := range lines {
		words += len(strings.Fields(l))
		chars += len(l) + 1
	}
	fmt.Fprintf(c.stdout, "%d %d %d\n", len(lines), words, chars)
	return 0
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
		p.locked(func() { p.st.clipboard = text })
		return 0
	case len(args) >= 2 && args[0] == "get" && args[1] == "text":
		var denied bool
		p.locked(func() { denied = p.st.ext.clipboardDenied })
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
		"sys.boot_completed":       "1",
		"dev.bootcomplete":         "1",
		"init.svc.bootanim":        "stopped",
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
