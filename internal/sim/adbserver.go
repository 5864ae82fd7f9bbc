package sim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// ErrADBNotFound reports that no adb binary is on PATH to start a server.
var ErrADBNotFound = errors.New("adb not found: run `make setup` (apt-get install adb)")

// startServerMu makes concurrent EnsureADBServer calls start one server,
// not race several `adb start-server` processes.
var startServerMu sync.Mutex

// EnsureADBServer makes sure an adb server listens on addr (default
// DefaultADBServer). If nothing does, it runs `adb -P PORT start-server`
// once: the only place the simulator spawns a process.
func EnsureADBServer(ctx context.Context, addr string) error {
	if addr == "" {
		addr = DefaultADBServer
	}
	if listening(ctx, addr) {
		return nil
	}
	startServerMu.Lock()
	defer startServerMu.Unlock()
	if listening(ctx, addr) { // another caller started it meanwhile
		return nil
	}
	adb, err := exec.LookPath("adb")
	if err != nil {
		return ErrADBNotFound
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("adb server address %q: %w", addr, err)
	}
	cmd := exec.CommandContext(ctx, adb, "-P", port, "start-server")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// The forked server may keep the output pipe open; do not wait on it.
	cmd.WaitDelay = 2 * time.Second
	runErr := cmd.Run()
	if listening(ctx, addr) {
		return nil
	}
	return fmt.Errorf("adb start-server did not bring up a server on %s: %v: %s",
		addr, runErr, strings.TrimSpace(out.String()))
}

// listening reports whether something accepts connections on addr.
func listening(ctx context.Context, addr string) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	_ = nc.Close()
	return true
}
