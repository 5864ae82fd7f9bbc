// Package control is a running gateway's local control endpoint: HTTP over
// a unix socket in the agent's state directory (STATE/gateway/control.sock,
// the directory owner-only, the socket 0600, and every peer's uid checked
// against the gateway's), so `openpocket cron run` and the dashboards'
// "Run now" hand a job to the gateway that owns the agent's jobs, state and
// phone instead of racing it. The gateway serves (Serve over a Handler);
// front ends call (RunJob). Confinement is the operating system's: the
// directory's mode and the peer's credentials, never a token in a file.
package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/openpocket/openpocket/internal/peercred"
)

// ErrNoGateway means no gateway answers on the agent's control socket.
var ErrNoGateway = errors.New("no gateway answers on the control socket")

// JobResult is how a job run by the gateway ended.
type JobResult struct {
	Job string `json:"job"`
	// OK is true when the job succeeded; Busy when it was refused because
	// it (or its device) was already running.
	OK   bool `json:"ok"`
	Busy bool `json:"busy,omitempty"`
	// Message is the job's last message (its result or failure reason).
	Message string `json:"message"`
	// Error is the run's error text ("" when it ran, whatever its outcome).
	Error  string `json:"error,omitempty"`
	TookMs int64  `json:"tookMs"`
	// PID is the gateway's process.
	PID int `json:"pid"`
}

// Handler is what the gateway does on request.
type Handler interface {
	// RunJob runs job id now and reports how it ended.
	RunJob(ctx context.Context, id string) JobResult
}

// Dir is the owner-only directory of the control socket below stateDir.
func Dir(stateDir string) string { return filepath.Join(stateDir, "gateway") }

// SocketPath is the control socket of the agent whose state is stateDir.
func SocketPath(stateDir string) string { return filepath.Join(Dir(stateDir), "control.sock") }

// maxSunPath is below the kernel's sockaddr_un bound (108 on Linux, 104 on
// the BSDs) with room for the terminator.
const maxSunPath = 100

// Listen makes the owner-only directory (refusing one that is a symlink,
// another user's, or open to others), removes a socket no gateway answers
// on and listens there with mode 0600.
func Listen(stateDir string) (net.Listener, error) {
	dir := Dir(stateDir)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	if err := ownerOnly(dir); err != nil {
		return nil, err
	}
	path := SocketPath(stateDir)
	if c, err := dial(context.Background(), path); err == nil {
		c.Close()
		return nil, fmt.Errorf("control socket %s: another gateway answers on it", path)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("control socket: remove the stale %s: %w", path, err)
	}
	addr, done, err := shortPath(path)
	if err != nil {
		return nil, err
	}
	defer done()
	l, err := net.Listen("unix", addr)
	if err != nil {
		return nil, fmt.Errorf("control socket %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("control socket %s: %w", path, err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(true)
	return l, nil
}

// ownerOnly refuses dir unless it is a real directory of this user with
// no access for group or others.
func ownerOnly(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("control socket: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("control socket: %s is not a directory (a symlink?); remove it", dir)
	case ok && int(st.Uid) != os.Getuid():
		return fmt.Errorf("control socket: %s belongs to uid %d, not to you (uid %d)", dir, st.Uid, os.Getuid())
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("control socket: %s is open to others (mode %v); chmod 700 it", dir, fi.Mode().Perm())
	}
	return nil
}

// shortPath is path as bind and connect can take it: a path too long for
// a socket address is reached through /proc/self/fd of its directory.
func shortPath(path string) (string, func(), error) {
	if len(path) < maxSunPath {
		return path, func() {}, nil
	}
	fd, err := unix.Open(filepath.Dir(path), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", nil, fmt.Errorf("control socket %s: %w", path, err)
	}
	return "/proc/self/fd/" + strconv.Itoa(fd) + "/" + filepath.Base(path), func() { unix.Close(fd) }, nil
}

func dial(ctx context.Context, path string) (net.Conn, error) {
	addr, done, err := shortPath(path)
	if err != nil {
		return nil, err
	}
	defer done()
	var d net.Dialer
	return d.DialContext(ctx, "unix", addr)
}

// Serve answers control requests on l with h until ctx ends.
func Serve(ctx context.Context, l net.Listener, h Handler) error {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /jobs/{id}/run", func(w http.ResponseWriter, r *http.Request) {
		res := h.RunJob(ctx, r.PathValue("id"))
		res.PID = os.Getpid()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(res)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	srv.ConnState = func(c net.Conn, st http.ConnState) {
		if st == http.StateNew && !sameUser(c) {
			c.Close() // another local user reached the socket: nothing for them
		}
	}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	err := srv.Serve(l)
	if errors.Is(err, http.ErrServerClosed) || ctx.Err() != nil {
		return nil
	}
	return err
}

// sameUser reports whether the peer of c runs as this process's user.
func sameUser(c net.Conn) bool { return peercred.SameUser(c) == nil }

// RunJob asks the gateway of stateDir to run job id now and waits for how
// it ended. ErrNoGateway (wrapped) means nothing answers on the socket.
func RunJob(ctx context.Context, stateDir, id string) (JobResult, error) {
	path := SocketPath(stateDir)
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return dial(ctx, path) },
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://gateway/jobs/"+url.PathEscape(id)+"/run", nil)
	if err != nil {
		return JobResult{}, err
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return JobResult{}, ctx.Err()
		}
		return JobResult{}, fmt.Errorf("%w %s: %v", ErrNoGateway, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return JobResult{}, fmt.Errorf("gateway control %s: %s", path, resp.Status)
	}
	var res JobResult
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil {
		return JobResult{}, fmt.Errorf("gateway control %s: %w", path, err)
	}
	return res, nil
}
