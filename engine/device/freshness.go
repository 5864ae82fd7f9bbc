package device

import (
	"context"
	"os"
	"strings"
	"sync/atomic"
)

// The element cache may stand for the screen only when nothing acted on the
// device since its dump was taken. Rather than trusting every caller to
// report its actions, the Phone wraps its transport: every command that is
// not a known read (screenshots, dumps, dumpsys, wm size, getprop, …) counts
// as an action and moves the phone's action generation on. Unknown commands
// count as actions, so a new action path can only cost a dump, never serve
// a stale list. Actions that do not pass through this Phone (another
// process's adb, a person's finger) are caught by the exact frame test in
// resolveElements.

// actingTransport is the Phone's transport: it forwards every call and
// bumps gen before and after each call that may act on the device.
type actingTransport struct {
	inner Transport
	gen   *atomic.Uint64
}

var _ SizedExecOuter = (*actingTransport)(nil)

func (a *actingTransport) Serial() string { return a.inner.Serial() }

// around bumps the generation when command may change the device. It runs
// before the command (a capture that starts meanwhile must not cache) and
// after it (a dump that raced with it must not be reused).
func (a *actingTransport) around(command string) func() {
	if readOnlyCommand(command) {
		return func() {}
	}
	a.gen.Add(1)
	return func() { a.gen.Add(1) }
}

func (a *actingTransport) Shell(ctx context.Context, command string) (ShellResult, error) {
	defer a.around(command)()
	return a.inner.Shell(ctx, command)
}

func (a *actingTransport) ExecOut(ctx context.Context, command string) ([]byte, error) {
	defer a.around(command)()
	return a.inner.ExecOut(ctx, command)
}

// ExecOutSized reads with the inner transport's size hint when it has one.
func (a *actingTransport) ExecOutSized(ctx context.Context, command string, sizeHint int) ([]byte, error) {
	defer a.around(command)()
	if s, ok := a.inner.(SizedExecOuter); ok {
		return s.ExecOutSized(ctx, command, sizeHint)
	}
	return a.inner.ExecOut(ctx, command)
}

// Push may install or replace what an app shows (media, assets): an action.
func (a *actingTransport) Push(ctx context.Context, remotePath string, data []byte, mode os.FileMode) error {
	a.gen.Add(1)
	defer a.gen.Add(1)
	return a.inner.Push(ctx, remotePath, data, mode)
}

func (a *actingTransport) Pull(ctx context.Context, remotePath string) ([]byte, error) {
	return a.inner.Pull(ctx, remotePath)
}

// readCommands are the exact compound reads the Phone issues.
var readCommands = map[string]bool{
	powerStateCommand: true,
	"rm -f /data/local/tmp/openpocket-screencap.png": true,
}

// readPrefixes are single commands that only read the device (by their
// first words). A command with shell operators is never a read: `getprop;
// input tap 1 1` acts.
var readPrefixes = []string{
	"screencap", "uiautomator dump", "dumpsys ", "getprop",
	"pm query-activities ", "pm path ", "pm list ", "cmd package resolve-activity ",
	"cmd clipboard get", "settings get ", "cat /sdcard/window_dump.xml",
}

// readOnlyCommand reports whether command is known not to change what the
// device shows.
func readOnlyCommand(command string) bool {
	c := strings.TrimSpace(command)
	if readCommands[c] {
		return true
	}
	if strings.ContainsAny(c, ";&|`$()<>\n\\") {
		return false
	}
	if c == "wm size" || c == "wm density" {
		return true // bare queries only: `wm size 720x1280` resizes
	}
	for _, p := range readPrefixes {
		if c == strings.TrimSpace(p) || strings.HasPrefix(c, p) {
			return true
		}
	}
	return false
}

// Invalidate marks the cached element list stale, as if an action had run:
// for callers that change the device by a path the Phone does not see.
func (p *Phone) Invalidate() { p.actions.Add(1) }

// ActionGeneration counts actions on this Phone (two per action: before and
// after it). Captures compare it to decide whether a dump may be reused.
func (p *Phone) ActionGeneration() uint64 { return p.actions.Load() }
