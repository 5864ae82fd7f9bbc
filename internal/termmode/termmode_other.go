//go:build !(aix || darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris || zos)

package termmode

type termios struct{}

func getTermios(int) (*termios, error) { return nil, ErrUnsupported }

func setTermios(int, *termios) error { return ErrUnsupported }

func raw(t termios) *termios { return &t }

func between(t termios) *termios { return &t }

// Size is the terminal's width and height in cells.
func Size(int) (width, height int, err error) { return 0, 0, ErrUnsupported }
