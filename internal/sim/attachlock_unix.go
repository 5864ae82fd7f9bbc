//go:build unix

package sim

import (
	"errors"
	"os"
	"syscall"
)

// openLockFile opens (creating) the lock file read-only and without
// following a link: a file of another user's making locks as well.
func openLockFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|os.O_CREATE|syscall.O_NOFOLLOW, 0o644)
}

// tryLock takes f's exclusive flock without blocking; false when another
// process holds it.
func tryLock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}
