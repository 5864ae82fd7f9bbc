package sim

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
)

// An Android emulator is a device on a port pair: its console on an even
// port N (5554 by default) and its adbd on N+1. It announces itself to the
// adb server with the host service host:emulator:N+1, and the server names
// it emulator-N; `adb connect` would name it 127.0.0.1:N+1 instead. So
// StartEmulator serves the virtual phone the same way, for the stand-in
// `emulator` of the emulator manager's tests.

// EmulatorOptions configure StartEmulator.
type EmulatorOptions struct {
	Options
	// ConsolePort is N: the console listens there, adbd on N+1.
	ConsolePort int
	// AVD is what the console's `avd name` answers.
	AVD string
	// NeverBoots keeps sys.boot_completed at 0.
	NeverBoots bool
}

// Emulator is a virtual phone served as an emulator.
type Emulator struct {
	*Sim
	console net.Listener
	avd     string
	killed  chan struct{}
	once    sync.Once
	kill    sync.Once
}

// StartEmulator serves a phone on o's port pair and registers it with the
// adb server, which lists it as emulator-N.
func StartEmulator(ctx context.Context, o EmulatorOptions) (*Emulator, error) {
	if o.ConsolePort <= 0 || o.ConsolePort%2 != 0 {
		return nil, fmt.Errorf("virtual emulator: console port %d: expected an even port such as 5554", o.ConsolePort)
	}
	console, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(o.ConsolePort)))
	if err != nil {
		return nil, fmt.Errorf("virtual emulator console: %w", err)
	}
	so := o.Options
	so.Port, so.Attach = o.ConsolePort+1, false
	s, err := Start(ctx, so)
	if err != nil {
		console.Close()
		return nil, err
	}
	s.phone.SetBooting(o.NeverBoots)
	e := &Emulator{Sim: s, console: console, avd: o.AVD, killed: make(chan struct{})}
	go e.serveConsole()
	if s.adbServer == "" {
		s.adbServer = DefaultADBServer
	}
	if err := EnsureADBServer(ctx, s.adbServer); err != nil {
		e.Close()
		return nil, err
	}
	if err := announce(ctx, s.adbServer, o.ConsolePort+1); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// announce sends host:emulator:PORT, as the emulator does; the server
// does not reply.
func announce(ctx context.Context, server string, adbPort int) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", server)
	if err != nil {
		return fmt.Errorf("virtual emulator: adb server %s: %w", server, err)
	}
	defer c.Close()
	req := "host:emulator:" + strconv.Itoa(adbPort)
	_, err = fmt.Fprintf(c, "%04x%s", len(req), req)
	return err
}

// EmulatorSerial is the adb server's name for the emulator.
func (e *Emulator) EmulatorSerial() string {
	return "emulator-" + strconv.Itoa(e.console.Addr().(*net.TCPAddr).Port)
}

// Killed is closed once the console's `kill` stopped the emulator.
func (e *Emulator) Killed() <-chan struct{} { return e.killed }

// Close stops the console and the phone; the adb server drops the device
// when its connection closes.
func (e *Emulator) Close() error {
	e.once.Do(func() { e.console.Close() })
	return e.Sim.Close()
}

// serveConsole answers the emulator console's commands the manager uses:
// `avd name`, `kill`, `auth`, `quit`.
func (e *Emulator) serveConsole() {
	for {
		c, err := e.console.Accept()
		if err != nil {
			return
		}
		go e.consoleConn(c)
	}
}

func (e *Emulator) consoleConn(c net.Conn) {
	defer c.Close()
	fmt.Fprint(c, "Android Console: type 'help' for a list of commands\r\nOK\r\n")
	lines := bufio.NewScanner(c)
	for lines.Scan() {
		switch cmd := strings.TrimSpace(lines.Text()); {
		case cmd == "avd name":
			fmt.Fprintf(c, "%s\r\nOK\r\n", e.avd)
		case strings.HasPrefix(cmd, "auth "):
			fmt.Fprint(c, "OK\r\n")
		case cmd == "kill":
			fmt.Fprint(c, "OK: killing emulator, bye bye\r\n")
			c.Close()
			e.Close()
			e.kill.Do(func() { close(e.killed) })
			return
		case cmd == "quit" || cmd == "exit":
			return
		default:
			fmt.Fprint(c, "KO: unknown command, try 'help'\r\n")
		}
	}
}
