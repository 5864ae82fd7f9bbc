//go:build !unix

package lease

import "os"

// Without flock the lease only records its holder; it does not exclude.
func openLockFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
}

func tryLock(f *os.File) (bool, error) { return true, nil }

func unlock(f *os.File) error { return nil }
