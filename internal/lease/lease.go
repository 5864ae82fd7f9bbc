// Package lease gives one process at a time the right to drive a device:
// a lock file per device serial, shared by every OpenPocket process on the
// machine whatever its OPENPOCKET_HOME, held with flock(2) so the kernel
// releases it when the holder exits or dies (a lease is never left stale),
// and holding the holder's pid, command and start time so a refused driver
// can say who has the phone.
//
// The files live in Dir(): $OPENPOCKET_LEASE_DIR when set, else a
// directory private to the user ($XDG_RUNTIME_DIR/openpocket-leases, or
// /tmp/openpocket-leases-<uid>). A directory another user owns or could
// swap (a link, a world-writable directory without the sticky bit) is
// refused.
package lease

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DirEnv overrides the lease directory (tests, or machines whose temp
// directory is not shared by every user of the adb server).
const DirEnv = "OPENPOCKET_LEASE_DIR"

// ErrBusy is wrapped by the error Acquire returns when another process
// holds the device (see *BusyError for who).
var ErrBusy = errors.New("device in use")

// Holder describes the process holding a lease.
type Holder struct {
	Serial  string    `json:"serial"`
	PID     int       `json:"pid"`
	Command string    `json:"command,omitempty"`
	Host    string    `json:"host,omitempty"`
	Since   time.Time `json:"since"`
}

// String names the holder for an error message.
func (h Holder) String() string {
	if h.PID == 0 {
		return "another process"
	}
	s := fmt.Sprintf("pid %d", h.PID)
	if h.Command != "" {
		s += fmt.Sprintf(" (%s)", h.Command)
	}
	if !h.Since.IsZero() {
		s += " since " + h.Since.Local().Format("2006-01-02 15:04:05")
	}
	return s
}

// BusyError is Acquire's refusal: the device, who holds it, and how long
// this process waited.
type BusyError struct {
	Serial string
	Holder Holder
	Waited time.Duration
}

func (e *BusyError) Error() string {
	if e.Waited > 0 {
		return fmt.Sprintf("device %s is still in use by %s after waiting %s", e.Serial, e.Holder, e.Waited.Round(time.Millisecond))
	}
	return fmt.Sprintf("device %s is in use by %s", e.Serial, e.Holder)
}

func (e *BusyError) Unwrap() error { return ErrBusy }

// Options tune Acquire.
type Options struct {
	// Dir holds the lease files; "" means Dir().
	Dir string
	// Wait is how long to wait for a busy device; 0 refuses at once.
	Wait time.Duration
	// Command describes this holder to others (no secrets: it is
	// readable by every user of the machine).
	Command string
	// Poll is the interval between attempts while waiting (default 100ms).
	Poll time.Duration
	// OnWait, when set, is called once when the device is found busy and
	// Acquire starts waiting for it.
	OnWait func(Holder)
}

// Lease is a held device lease; Release it when the device is no longer
// driven (process exit releases it too).
type Lease struct {
	serial string
	path   string
	f      *os.File
}

// Dir is the lease directory: $OPENPOCKET_LEASE_DIR when set, else a
// private directory of this user — $XDG_RUNTIME_DIR/openpocket-leases, or
// os.TempDir()/openpocket-leases-<uid> without a runtime directory. Users
// who share one adb server and must exclude each other set
// OPENPOCKET_LEASE_DIR to a directory root created for them (mode 1777).
func Dir() string {
	if d := os.Getenv(DirEnv); d != "" {
		return d
	}
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" && filepath.IsAbs(rt) {
		return filepath.Join(rt, "openpocket-leases")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("openpocket-leases-%d", os.Geteuid()))
}

// Path is the lock file of serial in dir: the serial made file-name safe,
// plus a hash of it so two serials never share a file.
func Path(dir, serial string) string {
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, serial)
	if len(safe) > 64 {
		safe = safe[:64]
	}
	sum := sha256.Sum256([]byte(serial))
	return filepath.Join(dir, safe+"-"+hex.EncodeToString(sum[:4])+".lock")
}

// Acquire takes the lease of serial, waiting up to o.Wait (and no longer
// than ctx) while another process holds it. A refusal is a *BusyError
// naming the holder.
func Acquire(ctx context.Context, serial string, o Options) (*Lease, error) {
	if serial == "" {
		return nil, errors.New("lease: empty device serial")
	}
	dir := o.Dir
	if dir == "" {
		dir = Dir()
	}
	if err := ensureDir(dir); err != nil {
		return nil, fmt.Errorf("device lease for %s: %w%s", serial, err, permissionHint(err))
	}
	path := Path(dir, serial)
	f, err := openLockFile(path)
	if err != nil {
		return nil, fmt.Errorf("device lease for %s: %w%s", serial, err, permissionHint(err))
	}
	poll := o.Poll
	if poll <= 0 {
		poll = 100 * time.Millisecond
	}
	start := time.Now()
	notified := false
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("device lease for %s: lock %s: %w", serial, path, err)
		}
		if ok {
			break
		}
		waited := time.Since(start)
		if waited >= o.Wait {
			f.Close()
			h, _ := ReadHolder(dir, serial)
			h.Serial = serial
			return nil, &BusyError{Serial: serial, Holder: h, Waited: min(waited, o.Wait)}
		}
		if !notified && o.OnWait != nil {
			h, _ := ReadHolder(dir, serial)
			h.Serial = serial
			o.OnWait(h)
		}
		notified = true
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(min(poll, o.Wait-waited)):
		}
	}
	l := &Lease{serial: serial, path: path, f: f}
	if err := l.writeHolder(o.Command); err != nil {
		l.Release()
		return nil, fmt.Errorf("device lease for %s: %w", serial, err)
	}
	return l, nil
}

// writeHolder records who holds the lease. It overwrites in place, then
// trims: a reader never sees an empty file once a holder was recorded.
func (l *Lease) writeHolder(command string) error {
	host, _ := os.Hostname()
	data, err := json.Marshal(Holder{Serial: l.serial, PID: os.Getpid(), Command: command, Host: host, Since: time.Now().UTC()})
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if _, err := l.f.WriteAt(data, 0); err != nil {
		return fmt.Errorf("write %s: %w", l.path, err)
	}
	return l.f.Truncate(int64(len(data)))
}

// Serial is the leased device.
func (l *Lease) Serial() string { return l.serial }

// Release gives the device up. It is safe to call more than once.
func (l *Lease) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	// The holder line stays: a lock file without a lock is free, and
	// removing it could race with a new holder's open.
	err := unlock(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}

// ReadHolder reads who last took serial's lease: the current holder while
// the lease is held, the last one after it was released.
func ReadHolder(dir, serial string) (Holder, error) {
	if dir == "" {
		dir = Dir()
	}
	var h Holder
	data, err := os.ReadFile(Path(dir, serial))
	if err != nil {
		return h, err
	}
	if err := json.Unmarshal(data, &h); err != nil {
		return Holder{}, fmt.Errorf("%s: %w", Path(dir, serial), err)
	}
	return h, nil
}

// permissionHint says what to do when the lease directory or a lease
// file belongs to another user who did not leave it writable.
func permissionHint(err error) string {
	if errors.Is(err, fs.ErrPermission) {
		return " (a lease directory shared by several users must be made by root with mode 1777; or set " + DirEnv + " to a directory of your own)"
	}
	return ""
}

// ensureDir creates the lease directory (private to this user when it has
// to make it) and refuses one another user could tamper with (checkDir).
func ensureDir(dir string) error {
	if st, err := os.Lstat(dir); err == nil && !st.IsDir() && st.Mode()&fs.ModeSymlink == 0 {
		return fmt.Errorf("%s is not a directory", dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return checkDir(dir)
}
