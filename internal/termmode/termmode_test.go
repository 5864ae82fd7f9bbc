//go:build linux

package termmode

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pty (/dev/ptmx): %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

func TestModes(t *testing.T) {
	master, slave := openPTY(t)
	fd := int(slave.Fd())
	assert := func(cond bool, what string) {
		t.Helper()
		if !cond {
			t.Error(what)
		}
	}
	m, err := New(fd)
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := unix.IoctlGetTermios(fd, ioctlReadTermios)
	assert(orig.Lflag&unix.ICANON != 0, "a new pty starts canonical")

	if err := m.Raw(); err != nil {
		t.Fatal(err)
	}
	r, _ := unix.IoctlGetTermios(fd, ioctlReadTermios)
	assert(r.Lflag&(unix.ICANON|unix.ECHO|unix.ISIG) == 0 && r.Oflag&unix.OPOST == 0, "raw: no editing, echo, signals or output processing")

	if err := m.Between(); err != nil {
		t.Fatal(err)
	}
	b, _ := unix.IoctlGetTermios(fd, ioctlReadTermios)
	assert(b.Lflag&(unix.ICANON|unix.ECHO) == 0, "between: no line editing or echo")
	assert(b.Lflag&unix.ISIG != 0 && b.Oflag&unix.OPOST != 0, "between: Ctrl-C and \\n → \\r\\n as in the shell")

	// A line longer than the kernel's 4,095-byte line buffer, arriving
	// between lines, is kept whole (canonical mode would cut it).
	long := strings.Repeat("x", 6000) + "\n"
	go func() { _, _ = master.Write([]byte(long)) }()
	read := make(chan string, 1)
	go func() {
		got := make([]byte, 0, len(long))
		buf := make([]byte, 8192)
		for len(got) < len(long) {
			n, err := slave.Read(buf)
			got = append(got, buf[:n]...)
			if err != nil {
				break
			}
		}
		read <- string(got)
	}()
	select {
	case got := <-read:
		assert(got == long, fmt.Sprintf("read %d of %d bytes", len(got), len(long)))
	case <-time.After(5 * time.Second):
		t.Fatal("the long line did not arrive whole")
	}

	if err := m.Restore(); err != nil {
		t.Fatal(err)
	}
	back, _ := unix.IoctlGetTermios(fd, ioctlReadTermios)
	assert(*back == *orig, "Restore puts the original mode back")
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	assert(IsTerminal(fd) && !IsTerminal(int(pr.Fd())), "IsTerminal: the pty is, a pipe is not")
}

// After Restore the terminal is the shell's: an editor unwinding late on
// another goroutine (its exit-raw hook) must not switch it back.
func TestRestoreIsFinal(t *testing.T) {
	_, slave := openPTY(t)
	fd := int(slave.Fd())
	m, err := New(fd)
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := unix.IoctlGetTermios(fd, ioctlReadTermios)
	if err := m.Raw(); err != nil {
		t.Fatal(err)
	}
	if err := m.Restore(); err != nil {
		t.Fatal(err)
	}
	if err := m.Between(); err != nil {
		t.Fatal(err)
	}
	if err := m.Raw(); err != nil {
		t.Fatal(err)
	}
	after, _ := unix.IoctlGetTermios(fd, ioctlReadTermios)
	if after.Lflag != orig.Lflag || after.Iflag != orig.Iflag || after.Oflag != orig.Oflag {
		t.Errorf("modes after Restore: lflag %#x iflag %#x oflag %#x, want the original %#x %#x %#x",
			after.Lflag, after.Iflag, after.Oflag, orig.Lflag, orig.Iflag, orig.Oflag)
	}
}
