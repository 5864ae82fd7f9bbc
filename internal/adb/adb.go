// Package adb implements the engine's device port (device.Transport) over
// the real adb server with goadb. It never spawns an adb process per action:
// every call is one connection to the server, switched to the device's
// transport, then one service (`shell,v2,raw:`, `exec:`, `sync:`). The only
// process it may start is `adb start-server`, once, when no server listens.
//
// goadb's wire sender refuses requests over 255 bytes, which long `input
// text` or clipboard commands exceed, and its scanner clips every reply to
// 255 bytes, which truncated device lists and error messages. So requests
// and every reply are framed here (framing.go for host replies, sync.go
// for the sync service, each read in full under a sanity bound); goadb's
// sync sender only writes the sync requests.
package adb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"time"

	goadb "github.com/zach-klippenstein/goadb"
	"github.com/zach-klippenstein/goadb/wire"

	"github.com/openpocket/openpocket/engine/device"
)

// DefaultServer is the adb server address used when none is configured.
const DefaultServer = "127.0.0.1:5037"

// Errors the CLI maps to exit codes and advice. Each wraps the detail.
var (
	ErrNoServer         = errors.New("adb server not reachable")
	ErrNoDevice         = errors.New("no device attached")
	ErrMultipleDevices  = errors.New("several devices attached")
	ErrDeviceNotFound   = errors.New("device not found")
	ErrUnauthorized     = errors.New("device unauthorized")
	ErrOffline          = errors.New("device offline")
	ErrConnectionFailed = errors.New("could not connect to the device endpoint")
)

// Client talks to one adb server.
type Client struct {
	addr   string
	dialer net.Dialer
	// goadb drives server lifecycle queries (version, start-server).
	server *goadb.Adb
}

// NewClient returns a client for the adb server at addr ("" = ServerAddr's
// choice from the environment, as adb itself makes it).
func NewClient(addr string) *Client {
	addr = ServerAddr(addr)
	c := &Client{addr: addr, dialer: net.Dialer{Timeout: 3 * time.Second}}
	host, port, err := net.SplitHostPort(addr)
	if err == nil {
		var p int
		fmt.Sscanf(port, "%d", &p)
		c.server, _ = goadb.NewWithConfig(goadb.ServerConfig{Host: host, Port: p})
	}
	return c
}

// ServerAddr resolves the adb server address the way adb and its client
// libraries do: an explicit addr wins, then $ADB_SERVER_SOCKET in its
// tcp:HOST:PORT or tcp:PORT form, then $ANDROID_ADB_SERVER_PORT on
// localhost, then DefaultServer.
func ServerAddr(addr string) string {
	if addr != "" {
		return addr
	}
	if sock := strings.TrimSpace(os.Getenv("ADB_SERVER_SOCKET")); strings.HasPrefix(sock, "tcp:") {
		rest := strings.TrimPrefix(sock, "tcp:")
		if _, _, err := net.SplitHostPort(rest); err == nil {
			return rest
		}
		if rest != "" && !strings.Contains(rest, ":") {
			return "127.0.0.1:" + rest
		}
	}
	if port := strings.TrimSpace(os.Getenv("ANDROID_ADB_SERVER_PORT")); port != "" {
		return "127.0.0.1:" + port
	}
	return DefaultServer
}

// Addr is the adb server address.
func (c *Client) Addr() string { return c.addr }

// EnsureServer starts the adb server (one `adb start-server`) when nothing
// listens on its address.
func (c *Client) EnsureServer(ctx context.Context) error {
	conn, err := c.dialer.DialContext(ctx, "tcp", c.addr)
	if err == nil {
		return conn.Close()
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if _, lookErr := exec.LookPath("adb"); lookErr != nil {
		return fmt.Errorf("%w at %s and the adb binary is not installed: run `make setup` (apt-get install adb)", ErrNoServer, c.addr)
	}
	_, port, _ := net.SplitHostPort(c.addr)
	cmd := exec.CommandContext(ctx, "adb", "-P", port, "start-server")
	// The forked server may inherit the output pipe and keep it open;
	// without a bound, CombinedOutput would wait for the server to exit.
	cmd.WaitDelay = 2 * time.Second
	out, runErr := cmd.CombinedOutput()
	// Judge by the result, not the exit: a held pipe reports ErrWaitDelay
	// although the server is up.
	if conn, err := c.dialer.DialContext(ctx, "tcp", c.addr); err == nil {
		return conn.Close()
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("%w at %s: `adb start-server` did not bring it up: %v: %s", ErrNoServer, c.addr, runErr, strings.TrimSpace(string(out)))
}

// conn is one connection to the adb server speaking the smart-socket
// protocol: hex-length-framed requests, OKAY/FAIL statuses.
type conn struct {
	net.Conn
	scan wire.Scanner
	stop func() bool
}

// dial opens a server connection whose I/O is interrupted when ctx ends.
func (c *Client) dial(ctx context.Context) (*conn, error) {
	nc, err := c.dialer.DialContext(ctx, "tcp", c.addr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w at %s: %v (start it with `adb start-server`, or install it with `make setup`)", ErrNoServer, c.addr, err)
	}
	cn := &conn{Conn: nc, scan: wire.NewScanner(nc)}
	cn.stop = context.AfterFunc(ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
	return cn, nil
}

func (cn *conn) Close() error {
	cn.stop()
	return cn.Conn.Close()
}

// request sends one framed request and reads its status.
func (cn *conn) request(req string) error {
	if len(req) > 0xffff {
		return fmt.Errorf("adb request too long (%d bytes, at most 65535)", len(req))
	}
	if _, err := fmt.Fprintf(cn.Conn, "%04x%s", len(req), req); err != nil {
		return err
	}
	return readStatus(cn.Conn, req)
}

// ctxErr prefers the context's error over the I/O error it caused.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// query runs a host request that answers with one length-prefixed message.
func (c *Client) query(ctx context.Context, req string) (string, error) {
	cn, err := c.dial(ctx)
	if err != nil {
		return "", err
	}
	defer cn.Close()
	if err := cn.request(req); err != nil {
		return "", ctxErr(ctx, err)
	}
	msg, err := readHostMessage(cn.Conn)
	if err != nil {
		return "", ctxErr(ctx, err)
	}
	// One-shot host services close after their reply. Bytes past the framed
	// length mean the reply did not fit its framing: fail rather than hand
	// back a silently truncated list.
	var extra [1]byte
	if n, _ := io.ReadFull(cn.Conn, extra[:]); n > 0 {
		return "", fmt.Errorf("adb server reply to %s is longer than its %d-byte framing", req, len(msg))
	}
	return string(msg), nil
}

// Target says which device to use: an explicit serial, a TCP endpoint to
// connect first, or (both empty) the only attached device.
type Target struct {
	Serial   string
	Endpoint string
}

// Open selects the target device and checks it is usable.
func (c *Client) Open(ctx context.Context, t Target) (*Device, error) {
	if err := c.EnsureServer(ctx); err != nil {
		return nil, err
	}
	if t.Endpoint != "" {
		if err := c.Connect(ctx, t.Endpoint); err != nil {
			return nil, err
		}
		if t.Serial == "" {
			t.Serial = t.Endpoint
		}
	}
	devs, err := c.Devices(ctx)
	if err != nil {
		return nil, err
	}
	if t.Serial == "" {
		switch len(devs) {
		case 0:
			return nil, fmt.Errorf("%w: connect a phone with USB debugging on, start the virtual phone with `openpocket sim`, or pass --target host:port", ErrNoDevice)
		case 1:
			t.Serial = devs[0].Serial
		default:
			var names []string
			for _, d := range devs {
				names = append(names, d.Serial+" ("+d.State+")")
			}
			return nil, fmt.Errorf("%w: %s; pick one with --device SERIAL", ErrMultipleDevices, strings.Join(names, ", "))
		}
	}
	for _, d := range devs {
		if d.Serial != t.Serial {
			continue
		}
		if err := stateError(d.Serial, d.State); err != nil {
			return nil, err
		}
		return &Device{client: c, serial: d.Serial}, nil
	}
	return nil, fmt.Errorf("%w: %q is not attached to the adb server at %s (see `openpocket devices`)", ErrDeviceNotFound, t.Serial, c.addr)
}

func stateError(serial, state string) error {
	switch state {
	case "device":
		return nil
	case "unauthorized":
		return fmt.Errorf("%w: %s: accept the USB debugging prompt on the phone, then retry", ErrUnauthorized, serial)
	case "offline":
		return fmt.Errorf("%w: %s: reconnect the cable or run `adb reconnect`", ErrOffline, serial)
	default:
		return fmt.Errorf("%w: %s is %q", ErrOffline, serial, state)
	}
}

// Device is one device behind the adb server; it implements device.Transport.
type Device struct {
	client *Client
	serial string
}

var _ device.Transport = (*Device)(nil)

// Serial is the device's adb serial.
func (d *Device) Serial() string { return d.serial }

// ServerAddr is the address of the adb server the device is attached to
// (a confined script's adb gate connects there).
func (d *Device) ServerAddr() string { return d.client.addr }

// open dials the server, switches to the device's transport and opens service.
func (d *Device) open(ctx context.Context, service string) (*conn, error) {
	cn, err := d.client.dial(ctx)
	if err != nil {
		return nil, err
	}
	if err := cn.request("host:transport:" + d.serial); err != nil {
		cn.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, d.lost(err)
	}
	if err := cn.request(service); err != nil {
		cn.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// The transport can die between the switch and the service: the
		// server then answers "closed" or hangs up.
		return nil, fmt.Errorf("%s: %w", firstWord(service), d.lost(err))
	}
	return cn, nil
}

// lost classifies a transport failure: a device that vanished or went
// offline mid-run is device.ErrDeviceLost.
func (d *Device) lost(err error) error {
	msg := err.Error()
	var se *ServerError
	switch {
	case errors.As(err, &se) && se.Message == "closed":
		return fmt.Errorf("%w: %s: the adb server closed its transport: %v", device.ErrDeviceLost, d.serial, err)
	case strings.Contains(msg, "unauthorized"):
		return fmt.Errorf("%w: %s: accept the USB debugging prompt on the phone", ErrUnauthorized, d.serial)
	case strings.Contains(msg, "not found"), strings.Contains(msg, "offline"), errors.Is(err, io.EOF),
		errors.Is(err, io.ErrUnexpectedEOF), strings.Contains(msg, "connection reset"), strings.Contains(msg, "broken pipe"):
		return fmt.Errorf("%w: %s: %v", device.ErrDeviceLost, d.serial, err)
	}
	return fmt.Errorf("%s: %w", d.serial, err)
}

func firstWord(service string) string {
	if i := strings.IndexAny(service, ": "); i > 0 {
		return service[:i]
	}
	return service
}

// Shell runs command with the shell v2 protocol: stdout, stderr and the
// exit code arrive as separate packets. Its stdin is closed at once (we
// never send input), so a command that reads stdin (`cat`, `sh` with no
// script) sees end-of-input instead of waiting for ever, as `adb shell`
// with stdin from /dev/null behaves.
func (d *Device) Shell(ctx context.Context, command string) (device.ShellResult, error) {
	cn, err := d.open(ctx, "shell,v2,raw:"+command)
	if err != nil {
		return device.ShellResult{}, err
	}
	defer cn.Close()
	if _, err := cn.Conn.Write(closeStdinPacket[:]); err != nil {
		return device.ShellResult{}, ctxErr(ctx, d.lost(err))
	}
	res, err := readShellV2(cn.Conn)
	if err != nil {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		return res, d.lost(err)
	}
	return res, nil
}

// Shell v2 packet ids (adb's shell_protocol.h).
const (
	idStdout = 1
	idStderr = 2
	idExit   = 3
	// idCloseStdin tells adbd the host will send no more input.
	idCloseStdin = 4
)

// closeStdinPacket is an empty close-stdin packet.
var closeStdinPacket = [5]byte{idCloseStdin}

// maxShellPacket bounds one shell v2 packet; adbd sends at most its payload
// size (1 MiB), so a bigger length is a corrupt stream, not a reason to
// allocate gigabytes.
const maxShellPacket = 16 << 20

// readShellV2 reads [id:1][len:4 LE][data] packets until the exit packet.
func readShellV2(r io.Reader) (device.ShellResult, error) {
	var res device.ShellResult
	var hdr [5]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF // the stream ended without an exit packet
			}
			return res, err
		}
		n := int(uint32(hdr[1]) | uint32(hdr[2])<<8 | uint32(hdr[3])<<16 | uint32(hdr[4])<<24)
		if n > maxShellPacket {
			return res, fmt.Errorf("shell protocol: packet of %d bytes (id %d), expected at most %d", n, hdr[0], maxShellPacket)
		}
		data := make([]byte, n)
		if _, err := io.ReadFull(r, data); err != nil {
			return res, err
		}
		switch hdr[0] {
		case idStdout:
			res.Stdout = append(res.Stdout, data...)
		case idStderr:
			res.Stderr = append(res.Stderr, data...)
		case idExit:
			if n > 0 {
				res.ExitCode = int(data[0])
			}
			return res, nil
		}
	}
}

// ExecOut runs command through `exec:`, binary-safe.
func (d *Device) ExecOut(ctx context.Context, command string) ([]byte, error) {
	cn, err := d.open(ctx, "exec:"+command)
	if err != nil {
		return nil, err
	}
	defer cn.Close()
	out, err := io.ReadAll(cn.Conn)
	if err != nil {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		return out, d.lost(err)
	}
	return out, nil
}

// ExecOutSized is ExecOut reading into one buffer of about sizeHint bytes
// (a raw screenshot is megabytes: growing a buffer by doubling would copy it
// several times).
func (d *Device) ExecOutSized(ctx context.Context, command string, sizeHint int) ([]byte, error) {
	cn, err := d.open(ctx, "exec:"+command)
	if err != nil {
		return nil, err
	}
	defer cn.Close()
	buf := bytes.NewBuffer(make([]byte, 0, sizeHint+bytes.MinRead))
	if _, err := buf.ReadFrom(cn.Conn); err != nil {
		if ctx.Err() != nil {
			return buf.Bytes(), ctx.Err()
		}
		return buf.Bytes(), d.lost(err)
	}
	return buf.Bytes(), nil
}

var _ device.SizedExecOuter = (*Device)(nil)

// Push writes data to remotePath with the sync protocol.
func (d *Device) Push(ctx context.Context, remotePath string, data []byte, mode os.FileMode) error {
	cn, err := d.open(ctx, "sync:")
	if err != nil {
		return err
	}
	defer cn.Close()
	sc := wire.Conn{Scanner: cn.scan, Sender: wire.NewSender(cn.Conn)}
	sync := sc.NewSyncConn()
	fail := func(err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("push %s: %w", remotePath, d.lost(err))
	}
	if err := sync.SendOctetString("SEND"); err != nil {
		return fail(err)
	}
	if err := sync.SendBytes([]byte(fmt.Sprintf("%s,%d", remotePath, uint32(mode.Perm())))); err != nil {
		return fail(err)
	}
	for off := 0; off < len(data); off += wire.SyncMaxChunkSize {
		end := min(off+wire.SyncMaxChunkSize, len(data))
		if err := sync.SendOctetString(wire.StatusSyncData); err != nil {
			return fail(err)
		}
		if err := sync.SendBytes(data[off:end]); err != nil {
			return fail(err)
		}
	}
	if err := sync.SendOctetString(wire.StatusSyncDone); err != nil {
		return fail(err)
	}
	if err := sync.SendTime(time.Now()); err != nil {
		return fail(err)
	}
	if _, err := readSyncReply(cn.Conn, "push "+remotePath, "OKAY"); err != nil {
		return syncFail(ctx, err, fail)
	}
	return nil
}

// readSyncReply reads one sync packet that must be want (or FAIL).
func readSyncReply(r io.Reader, op, want string) ([]byte, error) {
	id, _, data, err := readSyncPacket(r, op)
	if err != nil {
		return nil, err
	}
	if id != want {
		return nil, fmt.Errorf("%s: unexpected sync answer %q, want %s", op, id, want)
	}
	return data, nil
}

// syncFail prefers the context's error, passes a device's FAIL answer
// through, and classifies transport errors with lost.
func syncFail(ctx context.Context, err error, lost func(error) error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var se *SyncError
	if errors.As(err, &se) {
		return err
	}
	return lost(err)
}

// Pull reads remotePath with the sync protocol.
func (d *Device) Pull(ctx context.Context, remotePath string) ([]byte, error) {
	cn, err := d.open(ctx, "sync:")
	if err != nil {
		return nil, err
	}
	defer cn.Close()
	sc := wire.Conn{Scanner: cn.scan, Sender: wire.NewSender(cn.Conn)}
	sync := sc.NewSyncConn()
	fail := func(err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("pull %s: %w", remotePath, d.lost(err))
	}
	if err := sync.SendOctetString("RECV"); err != nil {
		return nil, fail(err)
	}
	if err := sync.SendBytes([]byte(remotePath)); err != nil {
		return nil, fail(err)
	}
	var out []byte
	for {
		id, _, data, err := readSyncPacket(cn.Conn, "pull "+remotePath)
		if err != nil {
			return nil, syncFail(ctx, err, fail)
		}
		switch id {
		case "DATA":
			out = append(out, data...)
		case "DONE":
			return out, nil
		default:
			return nil, fmt.Errorf("pull %s: unexpected sync answer %q, want DATA or DONE", remotePath, id)
		}
	}
}
