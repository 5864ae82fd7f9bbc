// Package device turns a raw adb transport into a phone the runtime can use:
// the execution semantics of docs/actions.md for every device action (coordinate scaling
// and clamping, the type and launch_app fallback chains, shell tokenizing and
// truncation), the snapshot pipeline with its element cache and metrics, the
// state delta after UI actions and the settle wait. It knows adb's shell
// commands and their output formats, but not how bytes reach the device: that
// is the Transport port, implemented by internal/adb.
package device

import (
	"context"
	"errors"
	"os"
)

// ShellResult is the outcome of one shell command run with the shell v2
// protocol: separate streams and the exit code.
type ShellResult struct {
	Stdout   []byte
	Stderr   []byte
	ExitCode int
}

// Transport is the port to one attached device. Implementations must honour
// ctx cancellation in every call and wrap a vanished device as ErrDeviceLost.
type Transport interface {
	// Serial is the adb serial of the device ("emulator-5554", "127.0.0.1:5555").
	Serial() string
	// Shell runs command through `shell,v2,raw:` and returns both streams and
	// the exit code. A non-zero exit code is not an error.
	Shell(ctx context.Context, command string) (ShellResult, error)
	// ExecOut runs command through `exec:` and returns stdout byte for byte
	// (binary-safe: screencap PNGs).
	ExecOut(ctx context.Context, command string) ([]byte, error)
	// Push writes data to remotePath with the sync protocol.
	Push(ctx context.Context, remotePath string, data []byte, mode os.FileMode) error
	// Pull reads remotePath with the sync protocol.
	Pull(ctx context.Context, remotePath string) ([]byte, error)
}

// ErrDeviceLost reports that the device disappeared (detached, offline,
// connection reset) in the middle of an operation.
var ErrDeviceLost = errors.New("device lost")
