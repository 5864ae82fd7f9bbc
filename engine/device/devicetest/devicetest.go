// Package devicetest provides a scripted fake of the device.Transport port
// for unit tests of logic above the device: commands are answered by
// handlers registered by prefix, and every command is recorded.
package devicetest

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/openpocket/openpocket/engine/device"
)

// Handler answers one shell or exec command.
type Handler func(command string) (device.ShellResult, error)

// Fake is a device.Transport whose answers are scripted.
type Fake struct {
	SerialNo string

	mu       sync.Mutex
	handlers map[string]Handler
	files    map[string][]byte
	calls    []string
}

var _ device.Transport = (*Fake)(nil)

// New returns a fake with no handlers: every command fails with
// "/system/bin/sh: NAME: not found", exit 127, as on a real device.
func New() *Fake {
	return &Fake{SerialNo: "fake-1", handlers: map[string]Handler{}, files: map[string][]byte{}}
}

// On answers commands starting with prefix; the longest prefix wins.
func (f *Fake) On(prefix string, h Handler) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handlers[prefix] = h
	return f
}

// OnOutput answers commands starting with prefix with stdout and exit 0.
func (f *Fake) OnOutput(prefix, stdout string) *Fake {
	return f.On(prefix, func(string) (device.ShellResult, error) {
		return device.ShellResult{Stdout: []byte(stdout)}, nil
	})
}

// OnExit answers commands starting with prefix with the given result.
func (f *Fake) OnExit(prefix, stdout, stderr string, code int) *Fake {
	return f.On(prefix, func(string) (device.ShellResult, error) {
		return device.ShellResult{Stdout: []byte(stdout), Stderr: []byte(stderr), ExitCode: code}, nil
	})
}

// Calls returns every command run so far, in order.
func (f *Fake) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// CallsWithPrefix returns the commands that start with prefix.
func (f *Fake) CallsWithPrefix(prefix string) []string {
	var out []string
	for _, c := range f.Calls() {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	return out
}

func (f *Fake) answer(ctx context.Context, command string) (device.ShellResult, error) {
	if err := ctx.Err(); err != nil {
		return device.ShellResult{}, err
	}
	f.mu.Lock()
	f.calls = append(f.calls, command)
	prefixes := make([]string, 0, len(f.handlers))
	for p := range f.handlers {
		if strings.HasPrefix(command, p) {
			prefixes = append(prefixes, p)
		}
	}
	sort.Slice(prefixes, func(i, j int) bool { return len(prefixes[i]) > len(prefixes[j]) })
	var h Handler
	if len(prefixes) > 0 {
		h = f.handlers[prefixes[0]]
	}
	f.mu.Unlock()
	if h == nil {
		name := strings.Fields(command + " x")[0]
		return device.ShellResult{Stderr: []byte(fmt.Sprintf("/system/bin/sh: %s: not found\n", name)), ExitCode: 127}, nil
	}
	return h(command)
}

// Serial returns SerialNo.
func (f *Fake) Serial() string { return f.SerialNo }

// Shell answers through the handlers.
func (f *Fake) Shell(ctx context.Context, command string) (device.ShellResult, error) {
	return f.answer(ctx, command)
}

// ExecOut answers through the handlers and returns stdout.
func (f *Fake) ExecOut(ctx context.Context, command string) ([]byte, error) {
	res, err := f.answer(ctx, command)
	return res.Stdout, err
}

// Push stores a file.
func (f *Fake) Push(ctx context.Context, path string, data []byte, _ os.FileMode) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[path] = append([]byte(nil), data...)
	return nil
}

// Pull returns a stored file.
func (f *Fake) Pull(ctx context.Context, path string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.files[path]
	if !ok {
		return nil, fmt.Errorf("pull %s: no such file", path)
	}
	return b, nil
}
