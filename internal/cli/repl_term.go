package cli

import (
	"fmt"
	"os"
	"sync"

	"github.com/ergochat/readline"
	"golang.org/x/term"
)

// openLineReader starts the REPL's line editor on cfg. Run and the paste
// benchmark both open it here, so the benchmark measures the input path
// the user gets.
func openLineReader(cfg *readline.Config) (*readline.Instance, error) {
	rl, err := readline.NewFromConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("repl: %w", err)
	}
	return rl, nil
}

// ttyConfig points readline at f instead of the process's terminal:
// readline hard-codes fds 0 and 1 for raw mode and the window size, so a
// test driving the REPL through a pty supplies those functions for f.
func ttyConfig(cfg *readline.Config, f *os.File) {
	fd := ttyFd(f)
	var (
		mu    sync.Mutex
		saved *term.State
	)
	cfg.Stdin = f
	cfg.Stdout = f
	cfg.FuncIsTerminal = func() bool { return term.IsTerminal(fd) }
	cfg.FuncMakeRaw = func() error {
		mu.Lock()
		defer mu.Unlock()
		st, err := term.MakeRaw(fd)
		if err == nil {
			saved = st
		}
		return err
	}
	cfg.FuncExitRaw = func() error {
		mu.Lock()
		defer mu.Unlock()
		if saved == nil {
			return nil
		}
		err := term.Restore(fd, saved)
		saved = nil
		return err
	}
	cfg.FuncGetSize = func() (int, int) {
		w, h, err := term.GetSize(fd)
		if err != nil {
			return -1, -1
		}
		return w, h
	}
}

// ttyFd is f's descriptor without f.Fd(), which would switch f to
// blocking mode so that closing it no longer wakes a pending Read.
func ttyFd(f *os.File) int {
	fd := -1
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(u uintptr) { fd = int(u) })
	}
	return fd
}
