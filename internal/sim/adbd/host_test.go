package adbd

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// testHost plays the adb server's side of one transport connection, so the
// protocol can be tested packet by packet without a real adb server.
type testHost struct {
	t       testing.TB
	nc      net.Conn
	maxData int
	banner  string
	version uint32

	wmu sync.Mutex // serializes packet writes

	mu      sync.Mutex
	streams map[uint32]*hostStream
	nextID  uint32
	dead    chan struct{} // the reader saw the connection end
	readErr error
}

// hostStream is the host's end of one stream.
type hostStream struct {
	h         *testHost
	id        uint32
	remote    uint32
	manualAck bool

	opened  chan struct{} // OKAY to our OPEN
	refused chan struct{} // CLSE(0, id) to our OPEN
	acks    chan struct{} // OKAY to our WRTEs
	data    chan []byte   // WRTE payloads, in order
	closed  chan struct{} // CLSE after open

	mu        sync.Mutex
	isOpen    bool
	wrteSizes []int
}

// dialTestHost connects to addr and completes the CNXN handshake offering
// hostMaxData.
func dialTestHost(t testing.TB, addr string, hostMaxData uint32) *testHost {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	h := &testHost{t: t, nc: nc, streams: map[uint32]*hostStream{}, dead: make(chan struct{})}
	t.Cleanup(func() { _ = nc.Close() })
	h.writePacket(cmdCNXN, ProtocolVersion, hostMaxData, []byte("host::features=shell_v2,cmd,stat_v2\x00"))
	hdr, payload := h.readPacket()
	require.Equal(t, cmdCNXN, hdr.command, "first reply must be CNXN")
	h.version, h.maxData, h.banner = hdr.arg0, int(hdr.arg1), string(payload)
	go h.readLoop()
	return h
}

func (h *testHost) writePacket(cmd, arg0, arg1 uint32, data []byte) {
	var hdr [headerSize]byte
	encodeHeader(&hdr, cmd, arg0, arg1, data)
	h.writeRaw(append(hdr[:], data...))
}

func (h *testHost) writeRaw(b []byte) {
	h.wmu.Lock()
	defer h.wmu.Unlock()
	_ = h.nc.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_, _ = h.nc.Write(b)
}

func (h *testHost) readPacket() (header, []byte) {
	h.t.Helper()
	_ = h.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	var hb [headerSize]byte
	_, err := io.ReadFull(h.nc, hb[:])
	require.NoError(h.t, err)
	hdr, err := decodeHeader(&hb, 1<<20)
	require.NoError(h.t, err)
	payload := make([]byte, hdr.length)
	_, err = io.ReadFull(h.nc, payload)
	require.NoError(h.t, err)
	require.Equal(h.t, checksum(payload), hdr.checksum, "device checksums must be byte sums")
	return hdr, payload
}

func (h *testHost) readLoop() {
	defer close(h.dead)
	for {
		_ = h.nc.SetReadDeadline(time.Time{})
		var hb [headerSize]byte
		if _, err := io.ReadFull(h.nc, hb[:]); err != nil {
			h.readErr = err
			return
		}
		hdr, err := decodeHeader(&hb, 1<<20)
		if err != nil {
			h.readErr = err
			return
		}
		payload := make([]byte, hdr.length)
		if _, err := io.ReadFull(h.nc, payload); err != nil {
			h.readErr = err
			return
		}
		h.mu.Lock()
		s := h.streams[hdr.arg1]
		h.mu.Unlock()
		if s == nil {
			continue
		}
		switch hdr.command {
		case cmdOKAY:
			s.mu.Lock()
			wasOpen := s.isOpen
			s.isOpen, s.remote = true, hdr.arg0
			s.mu.Unlock()
			if wasOpen {
				s.acks <- struct{}{}
			} else {
				close(s.opened)
			}
		case cmdWRTE:
			s.mu.Lock()
			s.wrteSizes = append(s.wrteSizes, len(payload))
			s.mu.Unlock()
			s.data <- payload
			if !s.manualAck {
				s.ack()
			}
		case cmdCLSE:
			s.mu.Lock()
			wasOpen := s.isOpen
			s.mu.Unlock()
			if wasOpen {
				close(s.closed)
			} else {
				close(s.refused)
			}
			h.mu.Lock()
			delete(h.streams, s.id)
			h.mu.Unlock()
		}
	}
}

// open sends OPEN and waits for OKAY; refusal fails the test.
func (h *testHost) open(service string) *hostStream {
	h.t.Helper()
	s, ok := h.tryOpen(service, false)
	require.True(h.t, ok, "service %q refused", service)
	return s
}

// tryOpen reports whether the device accepted service.
func (h *testHost) tryOpen(service string, manualAck bool) (*hostStream, bool) {
	h.t.Helper()
	h.mu.Lock()
	h.nextID++
	s := &hostStream{
		h: h, id: h.nextID, manualAck: manualAck,
		opened: make(chan struct{}), refused: make(chan struct{}), closed: make(chan struct{}),
		acks: make(chan struct{}, 16), data: make(chan []byte, 4096),
	}
	h.streams[s.id] = s
	h.mu.Unlock()
	h.writePacket(cmdOPEN, s.id, 0, append([]byte(service), 0))
	select {
	case <-s.opened:
		return s, true
	case <-s.refused:
		return s, false
	case <-h.dead:
		h.t.Fatalf("connection died while opening %q: %v", service, h.readErr)
	case <-time.After(10 * time.Second):
		h.t.Fatalf("no answer to OPEN %q", service)
	}
	return nil, false
}

func (s *hostStream) ack() { s.h.writePacket(cmdOKAY, s.id, s.remote, nil) }

// write sends data as one WRTE and waits for the device's OKAY.
func (s *hostStream) write(data []byte) {
	s.h.t.Helper()
	s.h.writePacket(cmdWRTE, s.id, s.remote, data)
	select {
	case <-s.acks:
	case <-s.closed:
	case <-time.After(10 * time.Second):
		s.h.t.Fatalf("WRTE of %d bytes never acknowledged", len(data))
	}
}

func (s *hostStream) close() { s.h.writePacket(cmdCLSE, s.id, s.remote, nil) }

// readAll collects output until the device closes the stream.
func (s *hostStream) readAll() []byte {
	s.h.t.Helper()
	var out bytes.Buffer
	for {
		select {
		case d := <-s.data:
			out.Write(d)
		case <-s.closed:
			for {
				select {
				case d := <-s.data:
					out.Write(d)
				default:
					return out.Bytes()
				}
			}
		case <-time.After(10 * time.Second):
			s.h.t.Fatalf("stream not closed; got %d bytes so far", out.Len())
		}
	}
}

// drain discards output until the device closes the stream and returns
// how many bytes there were.
func (s *hostStream) drain() int {
	s.h.t.Helper()
	n := 0
	for {
		select {
		case d := <-s.data:
			n += len(d)
		case <-s.closed:
			for len(s.data) > 0 {
				n += len(<-s.data)
			}
			return n
		case <-time.After(10 * time.Second):
			s.h.t.Fatalf("stream not closed; got %d bytes so far", n)
		}
	}
}

// readN collects exactly n bytes of output.
func (s *hostStream) readN(n int) []byte {
	s.h.t.Helper()
	var out bytes.Buffer
	for out.Len() < n {
		select {
		case d := <-s.data:
			out.Write(d)
		case <-time.After(10 * time.Second):
			s.h.t.Fatalf("wanted %d bytes, got %d", n, out.Len())
		}
	}
	return out.Bytes()
}

// shellV2Result decodes shell protocol output.
type shellV2Result struct {
	stdout, stderr []byte
	exit           int
	sawExit        bool
}

func decodeShellV2(t testing.TB, raw []byte) shellV2Result {
	t.Helper()
	var r shellV2Result
	for len(raw) > 0 {
		require.GreaterOrEqual(t, len(raw), shellPacketHeader, "truncated shell packet header")
		id, n := raw[0], int(binary.LittleEndian.Uint32(raw[1:]))
		require.GreaterOrEqual(t, len(raw)-shellPacketHeader, n, "truncated shell packet")
		body := raw[shellPacketHeader : shellPacketHeader+n]
		switch id {
		case shellIDStdout:
			r.stdout = append(r.stdout, body...)
		case shellIDStderr:
			r.stderr = append(r.stderr, body...)
		case shellIDExit:
			require.Len(t, body, 1)
			r.exit, r.sawExit = int(body[0]), true
		default:
			t.Fatalf("unexpected shell packet id %d", id)
		}
		raw = raw[shellPacketHeader+n:]
	}
	return r
}

func shellV2Packet(id byte, data []byte) []byte {
	p := []byte{id, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(p[1:], uint32(len(data)))
	return append(p, data...)
}

// startServer serves h on a free loopback port until the test ends, logging
// nowhere.
func startServer(t testing.TB, h Handler) (*Server, string) {
	t.Helper()
	return startServerLogging(t, h, slog.New(slog.DiscardHandler))
}

// startServerLogging is startServer with the server's logger.
func startServerLogging(t testing.TB, h Handler, logger *slog.Logger) (*Server, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := NewServer(h)
	srv.Logger = logger
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		_ = srv.Close()
		<-served
	})
	return srv, l.Addr().String()
}
