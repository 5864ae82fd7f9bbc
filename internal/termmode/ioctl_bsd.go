//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package termmode

import "golang.org/x/sys/unix"

const (
	ioctlReadTermios  = unix.TIOCGETA
	ioctlWriteTermios = unix.TIOCSETA
)
