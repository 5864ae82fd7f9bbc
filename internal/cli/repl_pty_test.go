//go:build linux

package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// openPTY opens a pseudo-terminal pair through /dev/ptmx, sized 80x24 like
// a default terminal window (a zero width makes readline redraw by
// backspacing over the whole line, which is not what users see).
func openPTY(t testing.TB) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pty (/dev/ptmx): %v", err)
	}
	var n int
	var ierr error
	rc, err := m.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Control(func(fd uintptr) {
		if ierr = unix.IoctlSetPointerInt(int(fd), unix.TIOCSPTLCK, 0); ierr == nil {
			n, ierr = unix.IoctlGetInt(int(fd), unix.TIOCGPTN)
		}
	}); err != nil || ierr != nil {
		t.Fatalf("pty: %v %v", err, ierr)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.IoctlSetWinsize(fdOf(s), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 80}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// fakeTerminal is the terminal emulator on the pty's master side: it
// answers readline's cursor-position query (readline waits for it before
// every prompt), remembers whether the program asked for bracketed paste,
// and pastes the way a terminal does: wrapped in \x1b[200~ … \x1b[201~
// when the program enabled it, as raw keys otherwise.
type fakeTerminal struct {
	master *os.File
	record bool // keep everything drawn (the test reads it; the benchmark only counts)
	// wmu serialises writes to the pty as a terminal's single writer
	// does: an answer to a cursor query never lands inside a paste.
	wmu sync.Mutex
	// prompted gets a value each time a cursor query is answered: readline
	// asks just before drawing a prompt, in raw mode, so a person's keys
	// or paste may follow. (Between lines readline leaves raw mode, and
	// the kernel's line discipline would edit what arrives then.)
	prompted chan struct{}

	mu        sync.Mutex
	drawn     bytes.Buffer
	nDrawn    int64
	bracketed bool
	tail      []byte
}

const (
	cprQuery       = "\x1b[6n"
	bracketedOn    = "\x1b[?2004h"
	bracketedOff   = "\x1b[?2004l"
	controlSeqTail = len(bracketedOn) - 1
)

func newFakeTerminal(master *os.File, record bool) *fakeTerminal {
	ft := &fakeTerminal{master: master, record: record, prompted: make(chan struct{}, 64)}
	go ft.loop()
	return ft
}

func (ft *fakeTerminal) loop() {
	buf := make([]byte, 64<<10)
	for {
		n, err := ft.master.Read(buf)
		if n > 0 {
			ft.saw(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// saw scans one chunk of output, with the previous chunk's tail so a
// control sequence split across reads is still seen once.
func (ft *fakeTerminal) saw(chunk []byte) {
	ft.mu.Lock()
	scan := append(ft.tail, chunk...)
	old := len(ft.tail)
	queries := 0
	for i := 0; ; {
		j := bytes.Index(scan[i:], []byte(cprQuery))
		if j < 0 {
			break
		}
		if i+j+len(cprQuery) > old {
			queries++
		}
		i += j + len(cprQuery)
	}
	on, off := bytes.LastIndex(scan, []byte(bracketedOn)), bytes.LastIndex(scan, []byte(bracketedOff))
	if on >= 0 || off >= 0 {
		ft.bracketed = on > off
	}
	ft.nDrawn += int64(len(chunk))
	if ft.record {
		ft.drawn.Write(chunk)
	}
	if len(scan) > controlSeqTail {
		scan = scan[len(scan)-controlSeqTail:]
	}
	ft.tail = append([]byte(nil), scan...)
	ft.mu.Unlock()
	if queries > 0 {
		// not from this goroutine: a paste being written holds the pty
		// until the program reads it, and the program's output must
		// keep flowing meanwhile.
		go func() {
			ft.write(strings.Repeat("\x1b[1;1R", queries))
			for range queries {
				select {
				case ft.prompted <- struct{}{}:
				default:
				}
			}
		}()
	}
}

func (ft *fakeTerminal) write(s string) {
	ft.wmu.Lock()
	defer ft.wmu.Unlock()
	_, _ = ft.master.Write([]byte(s))
}

// paste sends text as one write, the way a terminal delivers a paste.
func (ft *fakeTerminal) paste(text string) {
	ft.mu.Lock()
	if ft.bracketed {
		text = "\x1b[200~" + text + "\x1b[201~"
	}
	ft.mu.Unlock()
	ft.write(text)
}

// key sends keys as typed.
func (ft *fakeTerminal) key(s string) { ft.write(s) }

func (ft *fakeTerminal) drawnBytes() int64 {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	return ft.nDrawn
}

func (ft *fakeTerminal) isBracketed() bool {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	return ft.bracketed
}

// screenText is everything drawn so far, carriage returns dropped.
func (ft *fakeTerminal) screenText() string {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	return strings.ReplaceAll(ft.drawn.String(), "\r", "")
}

// waitFor waits until the drawn output contains want at least n times.
func (ft *fakeTerminal) waitFor(t testing.TB, want string, n int, timeout time.Duration) {
	t.Helper()
	ft.waitUntil(t, fmt.Sprintf("%q ×%d", want, n), timeout, func(s string) bool { return strings.Count(s, want) >= n })
}

// waitPromptAfter waits until want is drawn and a prompt is asked for
// after it: the REPL then reads keys in raw mode again.
func (ft *fakeTerminal) waitPromptAfter(t testing.TB, want string, timeout time.Duration) {
	t.Helper()
	ft.waitUntil(t, fmt.Sprintf("%q then a prompt", want), timeout, func(s string) bool {
		i := strings.Index(s, want)
		return i >= 0 && strings.Contains(s[i:], cprQuery)
	})
}

func (ft *fakeTerminal) waitUntil(t testing.TB, what string, timeout time.Duration, ok func(string) bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !ok(ft.screenText()) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; drawn (tail): %q", what, lastChars(ft.screenText(), 300))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func lastChars(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// A multi-line snippet with a 10,000-character line, pasted into the REPL
// through a real pty as a terminal pastes it, evaluates exactly: a
// function defined over several tab-indented lines (continuation; a tab
// must not trigger completion), then the long string, then its length and
// a hash computed in Lua, compared with Go's.
func TestReplPasteThroughPTY(t *testing.T) {
	s := simtest.Start(t)
	app, _, stderr := luaApp(t, t.Context(), s.Serial())
	master, slave := openPTY(t)
	ft := newFakeTerminal(master, true)
	cmd := &ReplCmd{NoHistory: true, tty: slave}
	done := make(chan error, 1)
	go func() { done <- cmd.Run(replDeps(t, app)) }()
	ft.waitFor(t, replPrompt, 1, 30*time.Second) // drawn after the cursor query: raw mode
	require.True(t, ft.isBracketed(), "the REPL asks a terminal for bracketed paste")

	long := longPasteLine(10000)
	snippet := "function h(s)\n" +
		"\tlocal v = 0\n" +
		"\tfor i = 1, #s do v = (v * 31 + s:byte(i)) % 2147483647 end\n" +
		"\treturn v\n" +
		"end\n" +
		`long = "` + long + "\"\n" +
		"=#long, h(long)\n"
	ft.paste(snippet)
	want := fmt.Sprintf("%d\t%d\n", len(long), luaHash(long))
	ft.waitPromptAfter(t, want, 20*time.Second)
	assert.NotContains(t, ft.screenText(), "error:")

	ft.key("\x04") // Ctrl-D leaves
	select {
	case err := <-done:
		require.NoError(t, err, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("the REPL did not exit on Ctrl-D")
	}
	ft.waitFor(t, bracketedOff, 1, 5*time.Second)
}

// longPasteLine is n characters for a Lua short string: ASCII, tabs and
// two-byte and three-byte runes, no quote, backslash or newline.
func longPasteLine(n int) string {
	parts := []rune("abc XYZ 0123 \t=+-*/ (){}[] é 中 ~!@#$%^&_ ,.;:")
	rs := make([]rune, n)
	for i := range rs {
		rs[i] = parts[(i*13+i/97)%len(parts)]
	}
	return string(rs)
}

// luaHash is h(s) from the snippet: over bytes, as Lua's s:byte sees them.
func luaHash(s string) int64 {
	var v int64
	for i := 0; i < len(s); i++ {
		v = (v*31 + int64(s[i])) % 2147483647
	}
	return v
}

// SIGTERM at the prompt ends the REPL with exit 130 and gives the terminal
// back as it was (echo and line editing on, bracketed paste off) instead of
// dying in the editor's modes.
func TestReplSIGTERMRestoresTheTerminal(t *testing.T) {
	s := simtest.Start(t)
	app, _, stderr := luaApp(t, t.Context(), s.Serial())
	master, slave := openPTY(t)
	before, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
	require.NoError(t, err)
	ft := newFakeTerminal(master, true)
	cmd := &ReplCmd{NoHistory: true, tty: slave}
	done := make(chan error, 1)
	go func() { done <- cmd.Run(replDeps(t, app)) }()
	ft.waitFor(t, replPrompt, 1, 30*time.Second) // the REPL's signal handler is in place
	during, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
	require.NoError(t, err)
	require.Zero(t, during.Lflag&unix.ECHO, "the editor turned echo off")

	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGTERM))
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled, stderr.String())
		assert.Equal(t, ExitCanceled, ExitCode(err))
	case <-time.After(30 * time.Second):
		t.Fatal("the REPL did not end on SIGTERM")
	}
	ft.waitFor(t, bracketedOff, 1, 5*time.Second)
	after, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
	require.NoError(t, err)
	assert.Equal(t, before.Lflag, after.Lflag, "local modes (echo, canonical input) restored")
	assert.Equal(t, before.Iflag, after.Iflag, "input modes restored")
}

// TestReplLinesEndCRLFOnAPTY: while the REPL owns the terminal, every line
// break it draws is CR LF, whatever mode the terminal is in at that moment
// (readline's raw mode turns the kernel's \n → \r\n off): output after the
// input line, printed values, errors and multi-line input do not
// staircase in a real terminal.
func TestReplLinesEndCRLFOnAPTY(t *testing.T) {
	s := simtest.Start(t)
	app, _, stderr := luaApp(t, t.Context(), s.Serial())
	master, slave := openPTY(t)
	ft := newFakeTerminal(master, true)
	cmd := &ReplCmd{NoHistory: true, tty: slave}
	done := make(chan error, 1)
	go func() { done <- cmd.Run(replDeps(t, app)) }()
	ft.waitFor(t, replPrompt, 1, 30*time.Second)
	for _, line := range []string{`print("one"); print("two")`, "=1+1, 'x'", "if true then", "print('in block')", "end", "error('boom')", "local t = {"} {
		ft.key(line + "\r")
		ft.waitPromptAfter(t, line+"\n", 20*time.Second)
	}
	ft.key("\x03") // Ctrl-C clears the pending input
	ft.key("\x04")
	select {
	case err := <-done:
		require.NoError(t, err, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("the REPL did not exit on Ctrl-D")
	}
	ft.waitFor(t, bracketedOff, 1, 5*time.Second)
	ft.mu.Lock()
	drawn := ft.drawn.String()
	ft.mu.Unlock()
	for _, want := range []string{"one\ntwo\n", "2\tx\n", "in block\n", "error: boom\n"} {
		assert.Contains(t, ft.screenText(), want)
	}
	for i := 0; i < len(drawn); i++ {
		if drawn[i] == '\n' && (i == 0 || drawn[i-1] != '\r') {
			t.Errorf("bare LF at byte %d: …%q", i, drawn[max(0, i-40):i+1])
		}
	}
}
