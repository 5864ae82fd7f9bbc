//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package agent

import (
	"syscall"
	"unsafe"
)

// isatty reads fd's terminal attributes (TIOCGETA); only a terminal has them.
func isatty(fd uintptr) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCGETA, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
