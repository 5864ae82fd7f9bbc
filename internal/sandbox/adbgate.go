package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// GateDir is where a confined script finds the adb gate's socket; the
// script's environment points the adb client at it
// (ADB_SERVER_SOCKET=localfilesystem:/run/openpocket-adb/adb.sock).
const GateDir = "/run/openpocket-adb"

const gateSocket = "adb.sock"

// ADBGate is the only way a confined script reaches the adb server. The
// script runs in a private network namespace (nothing on the host's
// network, not even the adb port, is reachable); the gate listens on a
// unix socket in a private directory bound into the sandbox and speaks
// the adb server's protocol to the script's adb client. It serves the
// device list (the run's phone only), the server's version, and the
// run's phone's queries and services (shell, exec-out, push, pull,
// install); it answers FAIL to everything else: forward, reverse, connect,
// disconnect, kill-server, another device's serial or transport id. The
// real adb server sees only requests the gate built itself.
type ADBGate struct {
	dir    string
	ln     net.Listener
	server string
	device func() (GateDevice, error)

	once     sync.Once
	own      string
	ownErr   error
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    map[net.Conn]struct{}
	closeErr error
	closed   bool
}

// GateDevice is the run's phone: its serial and the adb server it is
// attached to ("" for the server ADBServerAddr picks).
type GateDevice struct {
	Serial string
	Server string
}

// NewADBGate starts a gate for the phone device names. device is called
// once, on the first request, so a script that never uses adb never opens
// the device; its error is shown to the script's adb client.
func NewADBGate(device func() (GateDevice, error)) (*ADBGate, error) {
	dir, err := os.MkdirTemp("", "openpocket-adb-")
	if err != nil {
		return nil, fmt.Errorf("adb gate: %w", err)
	}
	ln, err := net.Listen("unix", filepath.Join(dir, gateSocket))
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("adb gate: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	g := &ADBGate{dir: dir, ln: ln, device: device, ctx: ctx, cancel: cancel, conns: map[net.Conn]struct{}{}}
	g.wg.Add(1)
	go g.accept()
	return g, nil
}

// ADBServerAddr resolves the adb server address the way adb does: addr
// when set, else $ADB_SERVER_SOCKET (tcp:HOST:PORT or tcp:PORT), else
// 127.0.0.1:$ANDROID_ADB_SERVER_PORT, else 127.0.0.1:5037.
func ADBServerAddr(addr string) string {
	if addr != "" {
		return addr
	}
	if rest, ok := strings.CutPrefix(strings.TrimSpace(os.Getenv("ADB_SERVER_SOCKET")), "tcp:"); ok {
		if _, _, err := net.SplitHostPort(rest); err == nil {
			return rest
		}
		if _, err := strconv.Atoi(rest); err == nil {
			return "127.0.0.1:" + rest
		}
	}
	if port := strings.TrimSpace(os.Getenv("ANDROID_ADB_SERVER_PORT")); port != "" {
		return "127.0.0.1:" + port
	}
	return "127.0.0.1:5037"
}

// Dir is the host directory holding the socket (bound at GateDir).
func (g *ADBGate) Dir() string { return g.dir }

// Env is the environment entry that points an adb client at the gate from
// inside the sandbox.
func (g *ADBGate) Env() string {
	return "ADB_SERVER_SOCKET=localfilesystem:" + GateDir + "/" + gateSocket
}

// hostEnv points an unconfined adb client (scriptExecutor.sandbox "off")
// at the gate's socket on the host.
func (g *ADBGate) hostEnv() string {
	return "ADB_SERVER_SOCKET=localfilesystem:" + filepath.Join(g.dir, gateSocket)
}

// Close stops the gate, ends every connection through it and removes its
// directory.
func (g *ADBGate) Close() error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return g.closeErr
	}
	g.closed = true
	g.cancel()
	err := g.ln.Close()
	for c := range g.conns {
		c.Close()
	}
	g.mu.Unlock()
	g.wg.Wait()
	g.closeErr = errors.Join(err, os.RemoveAll(g.dir))
	return g.closeErr
}

func (g *ADBGate) accept() {
	defer g.wg.Done()
	for {
		c, err := g.ln.Accept()
		if err != nil {
			return
		}
		if !g.track(c) {
			c.Close()
			return
		}
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			defer g.untrack(c)
			g.serve(c)
		}()
	}
}

// track registers a connection so Close can end it; false once closed.
func (g *ADBGate) track(c net.Conn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.conns[c] = struct{}{}
	return true
}

func (g *ADBGate) untrack(c net.Conn) {
	g.mu.Lock()
	delete(g.conns, c)
	g.mu.Unlock()
	c.Close()
}

// phone resolves the run's phone once.
func (g *ADBGate) phone() string {
	g.once.Do(func() {
		var d GateDevice
		if g.device != nil {
			d, g.ownErr = g.device()
		}
		g.own, g.server = d.Serial, ADBServerAddr(d.Server)
		if g.own == "" && g.ownErr == nil {
			g.ownErr = errors.New("it runs outside a session bound to a device")
		}
	})
	return g.own
}

// serve answers one client connection.
func (g *ADBGate) serve(c net.Conn) {
	if err := sameUser(c); err != nil {
		writeFail(c, err.Error())
		return
	}
	req, err := readRequest(c)
	if err != nil {
		return
	}
	own := g.phone()
	r, err := classify(req, own)
	if errors.Is(err, errNoPhone) {
		err = fmt.Errorf("%w: %v", err, g.ownErr)
	}
	if err != nil {
		writeFail(c, err.Error())
		return
	}
	switch r.kind {
	case gateServer:
		g.splice(c, req)
	case gateDevices:
		g.devices(c, req, own)
	case gateQuery:
		g.splice(c, "host-serial:"+own+":"+r.query)
	case gateTransport:
		g.transport(c, r, own)
	}
}

// dial connects to the real adb server.
func (g *ADBGate) dial() (net.Conn, error) {
	d := net.Dialer{Timeout: 5 * time.Second}
	s, err := d.DialContext(g.ctx, "tcp", g.server)
	if err != nil {
		return nil, err
	}
	if !g.track(s) {
		s.Close()
		return nil, errors.New("adb gate closed")
	}
	return s, nil
}

// splice sends req to the server and relays both directions until either
// side ends.
func (g *ADBGate) splice(c net.Conn, req string) {
	s, err := g.dial()
	if err != nil {
		writeFail(c, "openpocket sandbox: adb server: "+err.Error())
		return
	}
	defer g.untrack(s)
	if err := writeRequest(s, req); err != nil {
		return
	}
	relay(c, s)
}

// devices answers the device list with the run's phone alone.
func (g *ADBGate) devices(c net.Conn, req, own string) {
	s, err := g.dial()
	if err != nil {
		writeFail(c, "openpocket sandbox: adb server: "+err.Error())
		return
	}
	defer g.untrack(s)
	if err := writeRequest(s, req); err != nil {
		return
	}
	status := make([]byte, 4)
	if _, err := io.ReadFull(s, status); err != nil || string(status) != "OKAY" {
		return
	}
	body, err := readRequest(s) // the reply has the request's framing
	if err != nil {
		return
	}
	list := filterDevices(body, own)
	fmt.Fprintf(c, "OKAY%04x%s", len(list), list)
}

// transport switches the server connection to the run's phone, then lets
// one allowed device service through.
func (g *ADBGate) transport(c net.Conn, r gateRequest, own string) {
	s, err := g.dial()
	if err != nil {
		writeFail(c, "openpocket sandbox: adb server: "+err.Error())
		return
	}
	defer g.untrack(s)
	req := "host:transport:" + own
	if r.tport {
		req = "host:tport:serial:" + own
	}
	if err := writeRequest(s, req); err != nil {
		return
	}
	status := make([]byte, 4)
	if _, err := io.ReadFull(s, status); err != nil {
		return
	}
	if string(status) != "OKAY" {
		c.Write(status)
		io.Copy(c, io.LimitReader(s, 1<<16))
		return
	}
	reply := status
	if r.tport {
		id := make([]byte, 8)
		if _, err := io.ReadFull(s, id); err != nil {
			return
		}
		reply = append(reply, id...)
	}
	if _, err := c.Write(reply); err != nil {
		return
	}
	service, err := readRequest(c)
	if err != nil {
		return
	}
	if err := serviceAllowed(service); err != nil {
		writeFail(c, err.Error())
		return
	}
	if err := writeRequest(s, service); err != nil {
		return
	}
	relay(c, s)
}

// relay copies both ways; when the server side ends, both close (adb
// services end with the server's close); when the client stops writing,
// the server sees end of input.
func relay(c, s net.Conn) {
	done := make(chan struct{})
	go func() {
		io.Copy(s, c)
		if w, ok := s.(interface{ CloseWrite() error }); ok {
			w.CloseWrite()
		}
		close(done)
	}()
	io.Copy(c, s)
	c.Close()
	s.Close()
	<-done
}

// maxRequest bounds one request (the protocol's 4 hex digits allow 64 KiB).
const maxRequest = 0xffff

// readRequest reads one length-prefixed protocol string.
func readRequest(r io.Reader) (string, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return "", err
	}
	size, err := strconv.ParseUint(string(n[:]), 16, 16)
	if err != nil {
		return "", fmt.Errorf("adb gate: bad length %q", n)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", err
	}
	return string(b), nil
}

func writeRequest(w io.Writer, req string) error {
	if len(req) > maxRequest {
		return errors.New("adb gate: request too long")
	}
	_, err := fmt.Fprintf(w, "%04x%s", len(req), req)
	return err
}

func writeFail(w io.Writer, msg string) {
	if len(msg) > maxRequest {
		msg = msg[:maxRequest]
	}
	fmt.Fprintf(w, "FAIL%04x%s", len(msg), msg)
}
