package adbd

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHandshakeNegotiatesVersionMaxdataAndBanner(t *testing.T) {
	_, addr := startServer(t, newFakePhone())

	big := dialTestHost(t, addr, 1<<20)
	assert.Equal(t, ProtocolVersion, big.version)
	assert.Equal(t, MaxPayload, big.maxData, "maxdata is capped at 256 KiB")
	assert.Equal(t, fakeBanner, big.banner)

	small := dialTestHost(t, addr, 4096)
	assert.Equal(t, 4096, small.maxData, "a smaller host maxdata wins")
}

func TestUnknownServiceIsRefusedWithCLSE(t *testing.T) {
	_, addr := startServer(t, newFakePhone())
	h := dialTestHost(t, addr, 1<<20)
	for _, svc := range []string{"reverse:list-forward", "framebuffer:", "jdwp", ""} {
		_, ok := h.tryOpen(svc, false)
		assert.False(t, ok, svc)
	}
	// The connection survives refusals.
	assert.Equal(t, "ok\n", string(h.open("shell:echo ok").readAll()))
}

func TestShellV1MergesStreamsAndCloses(t *testing.T) {
	_, addr := startServer(t, newFakePhone())
	h := dialTestHost(t, addr, 1<<20)
	assert.Equal(t, "hello world\n", string(h.open("shell:echo hello world").readAll()))
	assert.Equal(t, "out\nerr\n", string(h.open("shell:mixed").readAll()))
}

func TestShellV2SeparatesStreamsAndReportsExit(t *testing.T) {
	_, addr := startServer(t, newFakePhone())
	h := dialTestHost(t, addr, 1<<20)
	for _, svc := range []string{"shell,v2,raw:mixed", "shell,v2,TERM=xterm-256color,raw:mixed", "shell,raw,v2:mixed"} {
		r := decodeShellV2(t, h.open(svc).readAll())
		assert.Equal(t, "out\n", string(r.stdout), svc)
		assert.Equal(t, "err\n", string(r.stderr), svc)
		assert.True(t, r.sawExit, svc)
		assert.Equal(t, 3, r.exit, svc)
	}
	r := decodeShellV2(t, h.open("shell,v2,raw:fail 42 boom").readAll())
	assert.Equal(t, 42, r.exit)
	assert.Equal(t, "boom\n", string(r.stderr))
	assert.Empty(t, r.stdout)
}

func TestShellV2StdinReachesTheCommand(t *testing.T) {
	_, addr := startServer(t, newFakePhone())
	h := dialTestHost(t, addr, 1<<20)
	s := h.open("shell,v2,raw:cat")
	packets := append(shellV2Packet(shellIDStdin, []byte("first line\n")), shellV2Packet(shellIDStdin, []byte("second"))...)
	packets = append(packets, shellV2Packet(shellIDWindowSize, []byte("24x80,0x0\x00"))...)
	packets = append(packets, shellV2Packet(shellIDCloseStdin, nil)...)
	// Split at awkward places: packets must survive WRTE boundaries.
	for len(packets) > 0 {
		n := min(len(packets), 3)
		s.write(packets[:n])
		packets = packets[n:]
	}
	r := decodeShellV2(t, s.readAll())
	assert.Equal(t, "first line\nsecond", string(r.stdout))
	assert.Equal(t, 0, r.exit)
}

func TestExecIsBinarySafeAndChunkedAtMaxdata(t *testing.T) {
	_, addr := startServer(t, newFakePhone())
	const hostMax = 4096
	h := dialTestHost(t, addr, hostMax)
	const n = 300_000
	s := h.open(fmt.Sprintf("exec:pattern %d", n))
	got := s.readAll()
	require.Equal(t, patternBytes(n), got)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, size := range s.wrteSizes {
		require.LessOrEqual(t, size, hostMax, "WRTE %d", i)
	}
	assert.Greater(t, len(s.wrteSizes), n/hostMax, "output must be split into many packets")
}

func TestExecDropsStderr(t *testing.T) {
	_, addr := startServer(t, newFakePhone())
	h := dialTestHost(t, addr, 1<<20)
	assert.Empty(t, h.open("exec:fail 1 noise").readAll())
}

func TestNoSecondWRTEBeforeOKAY(t *testing.T) {
	_, addr := startServer(t, newFakePhone())
	h := dialTestHost(t, addr, 4096)
	s, ok := h.tryOpen("exec:pattern 100000", true)
	require.True(t, ok)
	first := <-s.data
	require.Len(t, first, 4096)

	// A full round trip on another stream proves the device has been
	// running meanwhile; the unacknowledged stream must still be silent.
	assert.Equal(t, "ping\n", string(h.open("shell:echo ping").readAll()))
	assert.Empty(t, s.data, "device sent a WRTE before the previous one was acknowledged")

	// Acknowledging one at a time releases the rest.
	got := append([]byte(nil), first...)
	for len(got) < 100000 {
		s.ack()
		select {
		case d := <-s.data:
			got = append(got, d...)
		case <-time.After(10 * time.Second):
			t.Fatalf("stalled at %d bytes", len(got))
		}
	}
	assert.Equal(t, patternBytes(100000), got)
}

func TestSmallWritesCoalesceIntoFewPackets(t *testing.T) {
	_, addr := startServer(t, newFakePhone())
	h := dialTestHost(t, addr, 1<<20)
	const lines = 5000
	s := h.open(fmt.Sprintf("shell:lines %d", lines))
	out := s.readAll()
	assert.Equal(t, lines, bytes.Count(out, []byte("\n")))
	s.mu.Lock()
	defer s.mu.Unlock()
	assert.Less(t, len(s.wrteSizes), lines/10, "one WRTE per write would need a round trip per line")
}

func TestHostCLSECancelsTheCommand(t *testing.T) {
	phone := newFakePhone()
	_, addr := startServer(t, phone)
	h := dialTestHost(t, addr, 1<<20)
	s := h.open("shell,v2,raw:block")
	s.close()
	require.Eventually(t, func() bool { return phone.cancelledCount() == 1 }, 10*time.Second, 5*time.Millisecond)
}

func TestHandlerPanicFailsOnlyThatCommand(t *testing.T) {
	_, addr := startServer(t, newFakePhone())
	h := dialTestHost(t, addr, 1<<20)
	r := decodeShellV2(t, h.open("shell,v2,raw:panic").readAll())
	assert.Equal(t, shellCommandFailed, r.exit)
	assert.Contains(t, string(r.stderr), "internal error")
	assert.Equal(t, "alive\n", string(h.open("shell:echo alive").readAll()))
}

func TestInteractiveShellRunsLinesUntilExit(t *testing.T) {
	_, addr := startServer(t, newFakePhone())
	h := dialTestHost(t, addr, 1<<20)
	s := h.open("shell,v2,pty:")
	s.write(shellV2Packet(shellIDStdin, []byte("echo one\nfail 4 bad\nexit 9\n")))
	r := decodeShellV2(t, s.readAll())
	assert.Equal(t, interactivePrompt+"one\n"+interactivePrompt+interactivePrompt, string(r.stdout))
	assert.Equal(t, "bad\n", string(r.stderr))
	assert.Equal(t, 9, r.exit)
}

func TestManyConcurrentStreamsAndConnections(t *testing.T) {
	_, addr := startServer(t, newFakePhone())
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for c := range 4 {
		h := dialTestHost(t, addr, 8192)
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n := 20_000 + 1000*(c*8+i)
				got := h.open(fmt.Sprintf("exec:pattern %d", n)).readAll()
				if !bytes.Equal(got, patternBytes(n)) {
					errs <- fmt.Errorf("conn %d stream %d: got %d bytes, want pattern of %d", c, i, len(got), n)
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// lockedBuffer collects log output from server goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestBadPacketClosesOnlyThatConnectionWithALog(t *testing.T) {
	var logs lockedBuffer
	_, addr := startServerLogging(t, newFakePhone(), slog.New(slog.NewTextHandler(&logs, nil)))

	good := dialTestHost(t, addr, 1<<20)
	for name, garbage := range map[string][]byte{
		"bad magic":    func() []byte { var b [headerSize]byte; encodeHeader(&b, cmdOPEN, 1, 0, nil); b[23]++; return b[:] }(),
		"huge payload": func() []byte { var b [headerSize]byte; encodeHeader(&b, cmdWRTE, 1, 1, nil); b[14] = 0x7f; return b[:] }(),
		"zero maxdata": func() []byte { var b [headerSize]byte; encodeHeader(&b, cmdCNXN, ProtocolVersion, 0, nil); return b[:] }(),
	} {
		nc, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		_, err = nc.Write(garbage)
		require.NoError(t, err)
		require.NoError(t, nc.SetReadDeadline(time.Now().Add(10*time.Second)))
		_, err = io.ReadAll(nc)
		assert.NoError(t, err, "%s: the device must close the connection (EOF), not hang", name)
		_ = nc.Close()
	}
	require.Eventually(t, func() bool { return strings.Count(logs.String(), "closing connection") >= 3 }, 10*time.Second, 5*time.Millisecond, logs.String())
	assert.Equal(t, "still here\n", string(good.open("shell:echo still here").readAll()))
}

func TestCloseEndsConnectionsAndServe(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := NewServer(newFakePhone())
	srv.Logger = slog.New(slog.DiscardHandler)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(context.Background(), l) }()

	h := dialTestHost(t, l.Addr().String(), 1<<20)
	s := h.open("shell,v2,raw:block")
	require.NoError(t, srv.Close())
	select {
	case <-h.dead:
	case <-time.After(10 * time.Second):
		t.Fatal("connection still open after Close")
	}
	select {
	case <-s.closed:
		t.Fatal("a closed server cannot send CLSE")
	default:
	}
	assert.ErrorIs(t, <-served, ErrServerClosed)
	_, err = net.Dial("tcp", l.Addr().String())
	assert.Error(t, err, "listener must be closed")
}

func TestServeStopsWithContext(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := NewServer(newFakePhone())
	srv.Logger = slog.New(slog.DiscardHandler)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, l) }()
	h := dialTestHost(t, l.Addr().String(), 1<<20)
	cancel()
	assert.ErrorIs(t, <-served, context.Canceled)
	<-h.dead
	require.NoError(t, srv.Close())
}

func TestDropConnectionsResetsButKeepsListening(t *testing.T) {
	srv, addr := startServer(t, newFakePhone())
	h := dialTestHost(t, addr, 1<<20)
	s := h.open("shell,v2,raw:block")
	_ = s
	srv.DropConnections()
	select {
	case <-h.dead:
		var ne *net.OpError
		assert.True(t, errors.As(h.readErr, &ne) || errors.Is(h.readErr, io.EOF), "read error %v", h.readErr)
	case <-time.After(10 * time.Second):
		t.Fatal("connection survived DropConnections")
	}
	again := dialTestHost(t, addr, 1<<20)
	assert.Equal(t, "back\n", string(again.open("shell:echo back").readAll()))
}

func TestPacketsBeforeCNXNAreIgnored(t *testing.T) {
	_, addr := startServer(t, newFakePhone())
	nc, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer nc.Close()
	var b [headerSize]byte
	encodeHeader(&b, cmdOPEN, 1, 0, []byte("shell:echo x\x00"))
	_, err = nc.Write(append(b[:], "shell:echo x\x00"...))
	require.NoError(t, err)
	h := &testHost{t: t, nc: nc, streams: map[uint32]*hostStream{}, dead: make(chan struct{})}
	h.writePacket(cmdCNXN, ProtocolVersion, 1<<20, []byte("host::\x00"))
	hdr, _ := h.readPacket()
	assert.Equal(t, cmdCNXN, hdr.command, "the early OPEN must not have been answered")
}

func TestRandomExecPayloadRoundTripsThroughStdin(t *testing.T) {
	_, addr := startServer(t, newFakePhone())
	h := dialTestHost(t, addr, 1<<20)
	payload := make([]byte, 3*stdinHighWater)
	_, _ = rand.Read(payload)
	s := h.open("exec:cat")
	done := make(chan []byte)
	go func() { done <- s.readN(len(payload)) }()
	for off := 0; off < len(payload); off += 200_000 {
		s.write(payload[off:min(len(payload), off+200_000)])
	}
	assert.Equal(t, payload, <-done)
}

// TestNoGoroutineOutlivesItsConnection checks that streams of every kind,
// cut off by DropConnections or Close in mid-flight, leave nothing running.
func TestNoGoroutineOutlivesItsConnection(t *testing.T) {
	before := runtime.NumGoroutine()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := NewServer(newFakePhone())
	srv.Logger = slog.New(slog.DiscardHandler)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(context.Background(), l) }()

	openAll := func() *testHost {
		h := dialTestHost(t, l.Addr().String(), 1<<20)
		h.open("shell,v2,raw:block")
		h.open("shell:block")
		h.open("exec:block")
		h.open("shell:") // interactive, waiting for a line
		push := h.open("sync:")
		target := "/sdcard/half,420"
		push.write(syncRequest(syncSEND, uint32(len(target)), []byte(target)))
		push.write(syncRequest(syncDATA, 7, []byte("partial"))) // no DONE: mid-push
		return h
	}
	dropped := openAll()
	srv.DropConnections()
	<-dropped.dead
	closed := openAll()
	require.NoError(t, srv.Close())
	<-closed.dead
	require.ErrorIs(t, <-served, ErrServerClosed)

	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
