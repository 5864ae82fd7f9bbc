package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"

	"github.com/ergochat/readline"

	"github.com/openpocket/openpocket/internal/termmode"
)

// lineReader is the REPL's line editor: readline reading through
// pasteInput; on a terminal, with bracketed paste on and the terminal in
// termmode's modes while it is open.
type lineReader struct {
	*readline.Instance
	out       io.Writer       // the terminal, to turn bracketed paste off again
	bracketed bool            // bracketed paste is on
	modes     *termmode.Modes // nil: not a terminal (or modes unsupported)
	closeOnce sync.Once
	closeErr  error
}

// openLineReader starts the REPL's line editor on cfg (and keeps using
// cfg: Run sets the completer on it later); fd is the terminal's input.
// Run and the paste benchmark both open it here, so the benchmark
// measures the input path the user gets.
func openLineReader(cfg *readline.Config, fd int) (*lineReader, error) {
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
	if cfg.FuncIsTerminal == nil {
		// readline's own rule: input from a terminal, output to one.
		cfg.FuncIsTerminal = func() bool {
			return termmode.IsTerminal(fd) && (termmode.IsTerminal(syscall.Stdout) || termmode.IsTerminal(syscall.Stderr))
		}
	}
	terminal := cfg.FuncIsTerminal()
	if terminal {
		// readline draws in raw mode, where the kernel no longer turns
		// \n into \r\n: the line after the input would start where the
		// input ended (a staircase). Every line break the REPL draws is
		// CR LF itself, in whatever mode the terminal is.
		cfg.Stdout = &crlfWriter{w: cfg.Stdout}
	}
	// readline leaves raw mode between lines, back to the shell's line
	// editing: the rest of a multi-line paste, arriving while a line is
	// evaluated, would be echoed and cut at 4,095 bytes a line. Between
	// lines the terminal is non-canonical instead (see termmode). The
	// modes are taken before readline starts: it goes raw at once (its
	// cursor query), and Close must restore the shell's modes, not those.
	var modes *termmode.Modes
	if terminal {
		if m, err := termmode.New(fd); err == nil {
			cfg.FuncMakeRaw, cfg.FuncExitRaw = m.Raw, m.Between
			modes = m
		}
	}
	rl, err := readline.NewFromConfig(cfg)
	if err != nil {
		if modes != nil {
			_ = modes.Restore()
		}
		return nil, fmt.Errorf("repl: %w", err)
	}
	lr := &lineReader{Instance: rl, out: cfg.Stdout, modes: modes}
	if !terminal {
		return lr, nil // a pipe: no modes, no bracketed paste (noise in the output)
	}
	_, _ = io.WriteString(lr.out, "\x1b[?2004h")
	lr.bracketed = true
	return lr, nil
}

// Close stops the editor and gives the terminal back as it was: its
// original mode, and pastes without brackets, as the shell expects them.
// It runs once, whoever calls it first (the REPL's end, or a signal).
func (lr *lineReader) Close() error {
	lr.closeOnce.Do(func() {
		lr.closeErr = lr.Instance.Close()
		if lr.modes != nil {
			_ = lr.modes.Restore()
		}
		if lr.bracketed {
			_, _ = io.WriteString(lr.out, "\x1b[?2004l")
		}
	})
	return lr.closeErr
}

// ttyFd is the terminal the REPL reads: standard input, or a test's pty.
func (c *ReplCmd) ttyFd() int {
	if c.tty != nil {
		return fdOf(c.tty)
	}
	return syscall.Stdin
}

// ttyConfig points readline at f instead of the process's terminal:
// readline hard-codes fds 0 and 1 for terminal checks and the window
// size, so a test driving the REPL through a pty supplies those for f
// (openLineReader sets the modes on f's descriptor).
func ttyConfig(cfg *readline.Config, f *os.File) {
	fd := fdOf(f)
	cfg.Stdin = f
	cfg.Stdout = f
	cfg.FuncIsTerminal = func() bool { return termmode.IsTerminal(fd) }
	cfg.FuncGetSize = func() (int, int) {
		w, h, err := termmode.Size(fd)
		if err != nil {
			return -1, -1
		}
		return w, h
	}
}

// fdOf is f's descriptor without f.Fd(), which would switch f to
// blocking mode so that closing it no longer wakes a pending Read.
func fdOf(f *os.File) int {
	fd := -1
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(u uintptr) { fd = int(u) })
	}
	return fd
}

// crlfWriter writes every \n not already preceded by \r as \r\n. In the
// modes with output processing on, the kernel's ONLCR then sends \r\r\n,
// which looks the same.
type crlfWriter struct {
	w      io.Writer
	mu     sync.Mutex
	lastCR bool // the previous write ended in \r
	buf    []byte
}

func (c *crlfWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf = c.buf[:0]
	prevCR := c.lastCR
	for _, b := range p {
		if b == '\n' && !prevCR {
			c.buf = append(c.buf, '\r')
		}
		c.buf = append(c.buf, b)
		prevCR = b == '\r'
	}
	if _, err := c.w.Write(c.buf); err != nil {
		return 0, err
	}
	c.lastCR = prevCR
	return len(p), nil
}
