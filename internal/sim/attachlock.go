package sim

import (
	"context"
	"os"
	"path/filepath"
	"time"
)

// The adb server of Debian's platform-tools (29.0.6) can crash (SIGSEGV)
// when two transports register at once: every process on the machine that
// attaches or detaches virtual phones — test binaries running side by
// side, several openpocket commands with --sim — takes one machine-wide
// lock first, so one attach's connect and handshake never overlap
// another's. Both crashes seen here followed two or more host:connect
// registrations in the same instant. One lock for every adb server: an
// attach takes a fraction of a second, and a lock file per server (private
// test servers on random ports) would litter the temporary directory.

// attachLockName is the lock file, in the temporary directory.
const attachLockName = "openpocket-adb-attach.lock"

// attachLockPoll is how often a waiting attach tries the lock again.
const attachLockPoll = 5 * time.Millisecond

// lockAttach takes the machine-wide attach lock, waiting for it until ctx
// ends; held says whether it got it. The lock is best effort:
// a lock file that cannot be opened (a read-only temporary directory) or a
// wait that ran out leaves the attach unlocked rather than failed.
func lockAttach(ctx context.Context) (unlock func(), held bool) {
	f, err := openLockFile(filepath.Join(os.TempDir(), attachLockName))
	if err != nil {
		return func() {}, false
	}
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return func() {}, false
		}
		if ok {
			return func() { f.Close() }, true // closing the file releases the lock
		}
		select {
		case <-ctx.Done():
			f.Close()
			return func() {}, false
		case <-time.After(attachLockPoll):
		}
	}
}
