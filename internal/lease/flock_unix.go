//go:build unix

package lease

import (
	"errors"
	"os"
	"syscall"
)

// openLockFile opens (creating) a lease file, never through a symlink: the
// directory is shared by all users.
func openLockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o666)
	if err != nil {
		return nil, err
	}
	// Readable and lockable by every user of the adb server despite umask;
	// fails harmlessly on a file another user created.
	_ = f.Chmod(0o666)
	return f, nil
}

// tryLock takes an exclusive flock without blocking; false when another
// open file (another process, or this one through another open) holds it.
func tryLock(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case errors.Is(err, syscall.EINTR):
			continue
		default:
			return false, err
		}
	}
}

func unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
