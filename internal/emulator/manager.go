package emulator

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/openpocket/openpocket/internal/adb"
)

// Errors of the manager.
var (
	ErrNoAVD       = errors.New("no such AVD")
	ErrNoAVDs      = errors.New("no AVDs")
	ErrBootTimeout = errors.New("emulator did not finish booting")
	ErrNotRunning  = errors.New("no emulator running")
)

// The adb server finds emulators on console ports 5554-5584 (adbd one
// above each).
const firstPort, lastPort = 5554, 5584

// Manager drives the SDK's emulator against one adb server.
type Manager struct {
	SDK SDK
	ADB *adb.Client
	// Poll is how often Start checks the boot (default 500ms).
	Poll time.Duration
}

// ListAVDs runs `emulator -list-avds`.
func (m *Manager) ListAVDs(ctx context.Context) ([]string, error) {
	out, err := exec.CommandContext(ctx, m.SDK.Emulator, "-list-avds").Output()
	if err != nil {
		return nil, fmt.Errorf("%s -list-avds: %w", m.SDK.Emulator, err)
	}
	var avds []string
	for _, l := range strings.Split(string(out), "\n") {
		// Newer emulators print INFO lines before the names.
		if l = strings.TrimSpace(l); l != "" && !strings.Contains(l, " ") && !strings.HasPrefix(l, "INFO") {
			avds = append(avds, l)
		}
	}
	return avds, nil
}

// noAVDs says how to make one.
func (m *Manager) noAVDs() error {
	how := "avdmanager create avd -n Pixel_8 -k \"system-images;android-34;google_apis;x86_64\" -d pixel_8"
	if m.SDK.AVDManager == "" {
		how = "install the command-line tools (sdkmanager \"cmdline-tools;latest\"), then " + how
	}
	return fmt.Errorf("%w: the SDK at %s has no virtual device; create one with Android Studio's Device Manager or: %s", ErrNoAVDs, m.SDK.Root, how)
}

// StartOptions tune Start.
type StartOptions struct {
	Headless, WipeData bool
	// Wait bounds the boot (default 3 minutes).
	Wait time.Duration
	// Port is the console port to use (0: the first free pair).
	Port int
}

// Start starts AVD name and waits until the adb server lists it as
// emulator-N and sys.boot_completed is 1; it returns the serial.
func (m *Manager) Start(ctx context.Context, name string, o StartOptions) (string, error) {
	avds, err := m.ListAVDs(ctx)
	if err != nil {
		return "", err
	}
	if len(avds) == 0 {
		return "", m.noAVDs()
	}
	if !slices.Contains(avds, name) {
		return "", fmt.Errorf("%w %q: the SDK has %s", ErrNoAVD, name, strings.Join(avds, ", "))
	}
	port, err := m.freePort(ctx, o.Port)
	if err != nil {
		return "", err
	}
	args := []string{"-avd", name, "-port", strconv.Itoa(port)}
	if o.Headless {
		args = append(args, "-no-window", "-no-audio")
	}
	if o.WipeData {
		args = append(args, "-wipe-data")
	}
	cmd := exec.Command(m.SDK.Emulator, args...)
	var out bytes.Buffer
	w := &capped{b: &out} // one writer: exec copies both streams through one pipe
	cmd.Stdout, cmd.Stderr = w, w
	// Its own session: the emulator outlives this command and a Ctrl-C
	// meant for it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("start %s: %w", m.SDK.Emulator, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	serial := "emulator-" + strconv.Itoa(port)
	if err := m.waitBoot(ctx, serial, o.Wait, exited, &out); err != nil {
		return serial, err
	}
	return serial, nil
}

// waitBoot waits for serial to be listed as a device with
// sys.boot_completed=1.
func (m *Manager) waitBoot(ctx context.Context, serial string, wait time.Duration, exited <-chan error, out *bytes.Buffer) error {
	if wait <= 0 {
		wait = 3 * time.Minute
	}
	poll := m.Poll
	if poll <= 0 {
		poll = 500 * time.Millisecond
	}
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	stage := "the adb server does not list it yet"
	for {
		if booted, why := m.booted(ctx, serial); booted {
			return nil
		} else if why != "" {
			stage = why
		}
		select {
		case err := <-exited:
			return fmt.Errorf("emulator for %s exited before it booted (%v): %s", serial, err, lastLines(out.String(), 5))
		case <-deadline.C:
			return fmt.Errorf("%w within %s: %s %s; it keeps running: stop it with `openpocket emulator stop %s`, or wait longer with --wait",
				ErrBootTimeout, wait, serial, stage, serial)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
	}
}

// booted reports whether serial is a device with a completed boot, and
// otherwise where it is.
func (m *Manager) booted(ctx context.Context, serial string) (bool, string) {
	devs, err := m.ADB.Devices(ctx)
	if err != nil {
		return false, ""
	}
	for _, d := range devs {
		if d.Serial != serial {
			continue
		}
		if d.State != "device" {
			return false, "is " + d.State
		}
		t, err := m.ADB.Open(ctx, adb.Target{Serial: serial})
		if err != nil {
			return false, ""
		}
		res, err := t.Shell(ctx, "getprop sys.boot_completed")
		if err != nil {
			return false, ""
		}
		if v := strings.TrimSpace(string(res.Stdout)); v == "1" {
			return true, ""
		} else {
			return false, fmt.Sprintf("is listed but sys.boot_completed is %q", v)
		}
	}
	return false, ""
}

// freePort is want (or the first console port from 5554) whose pair is
// free and not listed by the adb server.
func (m *Manager) freePort(ctx context.Context, want int) (int, error) {
	devs, _ := m.ADB.Devices(ctx)
	listed := map[string]bool{}
	for _, d := range devs {
		listed[d.Serial] = true
	}
	free := func(p int) bool {
		if listed["emulator-"+strconv.Itoa(p)] {
			return false
		}
		for _, q := range []int{p, p + 1} {
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(q))
			if err != nil {
				return false
			}
			l.Close()
		}
		return true
	}
	if want != 0 {
		if want%2 != 0 || want < firstPort || want > lastPort || !free(want) {
			return 0, fmt.Errorf("emulator port %d: expected a free even port from %d to %d", want, firstPort, lastPort)
		}
		return want, nil
	}
	for p := firstPort; p <= lastPort; p += 2 {
		if free(p) {
			return p, nil
		}
	}
	return 0, fmt.Errorf("no free emulator port pair from %d to %d: stop an emulator first", firstPort, lastPort+1)
}

// Running is one emulator the adb server lists.
type Running struct {
	Serial, State, AVD string
	Booted             bool
}

// Status lists the running emulators with their AVD and boot state.
func (m *Manager) Status(ctx context.Context) ([]Running, error) {
	devs, err := m.ADB.Devices(ctx)
	if err != nil {
		return nil, err
	}
	var out []Running
	for _, d := range devs {
		port, ok := consolePort(d.Serial)
		if !ok {
			continue
		}
		r := Running{Serial: d.Serial, State: d.State}
		r.Booted, _ = m.booted(ctx, d.Serial)
		if name, err := console(ctx, port, "avd name"); err == nil {
			r.AVD = name
		}
		out = append(out, r)
	}
	return out, nil
}

// Find is the serial of the running emulator of AVD name ("" if none).
func (m *Manager) Find(ctx context.Context, name string) (string, error) {
	running, err := m.Status(ctx)
	if err != nil {
		return "", err
	}
	for _, r := range running {
		if r.AVD == name {
			return r.Serial, nil
		}
	}
	return "", nil
}

// Stop kills emulator serial ("" = the only one running) through its
// console, as `adb emu kill` does, and waits until the adb server drops
// it.
func (m *Manager) Stop(ctx context.Context, serial string) (string, error) {
	if serial == "" {
		running, err := m.Status(ctx)
		if err != nil {
			return "", err
		}
		switch len(running) {
		case 0:
			return "", fmt.Errorf("%w: the adb server lists no emulator-N device", ErrNotRunning)
		case 1:
			serial = running[0].Serial
		default:
			names := make([]string, len(running))
			for i, r := range running {
				names[i] = r.Serial
			}
			return "", fmt.Errorf("several emulators run (%s): name one, e.g. openpocket emulator stop %s", strings.Join(names, ", "), names[0])
		}
	}
	port, ok := consolePort(serial)
	if !ok {
		return "", fmt.Errorf("%q is not an emulator serial (emulator-N); a phone is detached with `adb disconnect`", serial)
	}
	if _, err := console(ctx, port, "kill"); err != nil {
		return "", fmt.Errorf("stop %s: its console on port %d: %w", serial, port, err)
	}
	for {
		devs, err := m.ADB.Devices(ctx)
		if err == nil && !slices.ContainsFunc(devs, func(d adb.DeviceInfo) bool { return d.Serial == serial }) {
			return serial, nil
		}
		select {
		case <-ctx.Done():
			return serial, fmt.Errorf("stop %s: the adb server still lists it: %w", serial, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func consolePort(serial string) (int, bool) {
	p, err := strconv.Atoi(strings.TrimPrefix(serial, "emulator-"))
	return p, err == nil && strings.HasPrefix(serial, "emulator-")
}

// console runs one console command on 127.0.0.1:port, authenticating with
// ~/.emulator_console_auth_token when the console asks, and returns the
// reply's text before its OK.
func console(ctx context.Context, port int, command string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return "", err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	r := bufio.NewReader(c)
	greeting, err := readReply(r)
	if err != nil {
		return "", err
	}
	if strings.Contains(greeting, "Authentication required") {
		home, _ := os.UserHomeDir()
		token, err := os.ReadFile(filepath.Join(home, ".emulator_console_auth_token"))
		if err != nil {
			return "", fmt.Errorf("the console asks for ~/.emulator_console_auth_token: %w", err)
		}
		fmt.Fprintf(c, "auth %s\r\n", strings.TrimSpace(string(token)))
		if _, err := readReply(r); err != nil {
			return "", err
		}
	}
	fmt.Fprintf(c, "%s\r\n", command)
	if command == "kill" {
		line, _ := r.ReadString('\n') // "OK: killing emulator, bye bye"
		if !strings.HasPrefix(line, "OK") {
			return "", fmt.Errorf("console answered %q", strings.TrimSpace(line))
		}
		return "", nil
	}
	reply, err := readReply(r)
	fmt.Fprint(c, "quit\r\n")
	return strings.TrimSpace(reply), err
}

// readReply reads console lines up to "OK" (or fails on "KO: …").
func readReply(r *bufio.Reader) (string, error) {
	var lines []string
	for {
		line, err := r.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "OK":
			return strings.Join(lines, "\n"), nil
		case strings.HasPrefix(line, "KO"):
			return "", errors.New(line)
		}
		if err != nil {
			return "", err
		}
		lines = append(lines, line)
	}
}

// capped keeps the first 64 KiB of the emulator's output for errors.
type capped struct{ b *bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := 64<<10 - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return "(no output)"
	}
	return strings.Join(lines, " | ")
}
