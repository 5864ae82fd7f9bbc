// Package termmode sets the modes of the terminal a line editor reads:
// raw while a line is edited, and "between lines" while the program works
// on the line it got. Between lines the terminal is non-canonical without
// echo, the shell's mode otherwise: keys and the rest of a paste that
// arrive then wait byte for byte until the editor reads again, instead of
// going through the kernel's line editing (which echoes them, turns
// Ctrl-D into an end of file, and cuts a line at 4,095 bytes), while
// Ctrl-C still raises SIGINT and output still gets \n → \r\n.
package termmode

import (
	"errors"
	"sync"
)

// ErrUnsupported is returned where this package cannot set terminal modes.
var ErrUnsupported = errors.New("termmode: not supported on this system")

// Modes switches one terminal between the modes; it remembers the mode
// the terminal had when New was called and puts it back on Restore.
type Modes struct {
	fd   int
	mu   sync.Mutex
	orig termios
	// done: Restore ran; the terminal is the shell's again, and a late
	// Raw or Between (an editor unwinding on another goroutine) is ignored.
	done bool
}

// New reads fd's current mode; it fails if fd is not a terminal.
func New(fd int) (*Modes, error) {
	t, err := getTermios(fd)
	if err != nil {
		return nil, err
	}
	return &Modes{fd: fd, orig: *t}, nil
}

// Raw is cfmakeraw's mode: every key as it is typed, no echo, no signals,
// no output processing.
func (m *Modes) Raw() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.done {
		return nil
	}
	return setTermios(m.fd, raw(m.orig))
}

// Between is the original mode without line editing and echo.
func (m *Modes) Between() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.done {
		return nil
	}
	return setTermios(m.fd, between(m.orig))
}

// Restore puts the original mode back, for good: Raw and Between do
// nothing afterwards.
func (m *Modes) Restore() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.done = true
	t := m.orig
	return setTermios(m.fd, &t)
}

// IsTerminal reports whether fd is a terminal.
func IsTerminal(fd int) bool {
	_, err := getTermios(fd)
	return err == nil
}
