//go:build unix

package cron

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/openpocket/openpocket/engine/hostfs"
)

// processAlive reports whether a process with the pid exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// lockFile takes an exclusive flock on path (created if missing) and
// returns its release. The kernel drops the lock when the holder exits,
// so a crashed writer never leaves jobs.json locked.
func lockFile(root, path string) (unlock func(), err error) {
	// Beside the jobs file in the workspace: through hostfs, so neither a
	// link at the lock nor at its directory creates a file outside.
	f, err := hostfs.OpenAppend(root, path, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
