package agent

import (
	"bufio"
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fakeConsole speaks the emulator console protocol and records commands.
func fakeConsole(t *testing.T, reply func(cmd string) string) (int, <-chan []string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan []string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		c.Write([]byte("Android Console: type 'help' for a list of commands\r\nOK\r\n"))
		var cmds []string
		r := bufio.NewReader(c)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				break
			}
			cmd := strings.TrimSpace(line)
			cmds = append(cmds, cmd)
			if cmd == "quit" {
				break
			}
			c.Write([]byte(reply(cmd) + "\r\n"))
		}
		got <- cmds
	}()
	return ln.Addr().(*net.TCPAddr).Port, got
}

func TestEmulatorGeoFixAuthenticatesAndSendsLonLat(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.WriteFile(filepath.Join(home, ".emulator_console_auth_token"), []byte("s3cr3t\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	port, got := fakeConsole(t, func(string) string { return "OK" })
	if err := emulatorGeoFix(context.Background(), port, 37.7749, -122.4194); err != nil {
		t.Fatal(err)
	}
	cmds := <-got
	want := []string{"auth s3cr3t", "geo fix -122.4194 37.7749", "quit"}
	if strings.Join(cmds, "|") != strings.Join(want, "|") {
		t.Fatalf("console got %q, want %q", cmds, want)
	}
}

func TestEmulatorGeoFixReportsKO(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	port, _ := fakeConsole(t, func(string) string { return "KO: bad coordinates" })
	err := emulatorGeoFix(context.Background(), port, 1, 2)
	if err == nil || !strings.Contains(err.Error(), "KO: bad coordinates") {
		t.Fatalf("err = %v", err)
	}
}

func TestEmulatorConsolePort(t *testing.T) {
	for serial, want := range map[string]int{"emulator-5554": 5554, "127.0.0.1:5555": 0, "emulator-x": 0, "R58M123": 0} {
		got, ok := emulatorConsolePort(serial)
		if ok != (want != 0) || got != want {
			t.Errorf("%s: %d %t, want %s", serial, got, ok, strconv.Itoa(want))
		}
	}
}
