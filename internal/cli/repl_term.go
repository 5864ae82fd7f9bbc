package cli

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/ergochat/readline"
	"golang.org/x/term"
)

// lineReader is the REPL's line editor: readline reading through
// pasteInput, with bracketed paste on while it is open on a terminal.
type lineReader struct {
	*readline.Instance
	out       io.Writer // the terminal, to turn bracketed paste off again
	bracketed bool
}

// openLineReader starts the REPL's line editor on cfg (and keeps using
// cfg: Run sets the completer on it later). Run and the paste benchmark
// both open it here, so the benchmark measures the input path the user
// gets.
func openLineReader(cfg *readline.Config) (*lineReader, error) {
	if cfg.Stdin == nil {
		cfg.Stdin = os.Stdin
	}
	if cfg.Stdout == nil {
		cfg.Stdout = os.Stdout
	}
	in := newPasteInput(cfg.Stdin)
	cfg.Stdin = in
	cfg.Listener = in.listen
	cfg.Painter = paint
	rl, err := readline.NewFromConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("repl: %w", err)
	}
	lr := &lineReader{Instance: rl, out: cfg.Stdout}
	// Only a terminal is asked for bracketed paste: on a pipe the
	// sequence would be noise in the output.
	if cfg.FuncIsTerminal() {
		_, _ = io.WriteString(lr.out, "\x1b[?2004h")
		lr.bracketed = true
	}
	return lr, nil
}

// Close stops the editor and gives the terminal back without bracketed
// paste, so the shell after us gets pastes as it expects them.
func (lr *lineReader) Close() error {
	err := lr.Instance.Close()
	if lr.bracketed {
		_, _ = io.WriteString(lr.out, "\x1b[?2004l")
		lr.bracketed = false
	}
	return err
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
