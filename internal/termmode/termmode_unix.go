//go:build aix || darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris || zos

package termmode

import "golang.org/x/sys/unix"

type termios = unix.Termios

func getTermios(fd int) (*termios, error) { return unix.IoctlGetTermios(fd, ioctlReadTermios) }

func setTermios(fd int, t *termios) error { return unix.IoctlSetTermios(fd, ioctlWriteTermios, t) }

// raw follows cfmakeraw(3), as golang.org/x/term's MakeRaw does.
func raw(orig termios) *termios {
	t := orig
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	t.Oflag &^= unix.OPOST
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB
	t.Cflag |= unix.CS8
	t.Cc[unix.VMIN] = 1
	t.Cc[unix.VTIME] = 0
	return &t
}

// between keeps the original input and output processing and signals,
// and turns off line editing and echo: reads return bytes as they come.
func between(orig termios) *termios {
	t := orig
	t.Lflag &^= unix.ICANON | unix.ECHO | unix.ECHONL
	t.Cc[unix.VMIN] = 1
	t.Cc[unix.VTIME] = 0
	return &t
}

// Size is the terminal's width and height in cells.
func Size(fd int) (width, height int, err error) {
	ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ)
	if err != nil {
		return 0, 0, err
	}
	return int(ws.Col), int(ws.Row), nil
}
