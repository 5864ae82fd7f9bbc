package adbd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"
)

// outPacket is a packet queued for the connection's writer goroutine. data
// is read, not copied: its owner keeps it unchanged until written is
// signalled (when set) or the stream dies. The host's OKAY is not enough:
// it arrives through the socket, which orders nothing between goroutines,
// and a host that acknowledges early must not see a recycled buffer.
type outPacket struct {
	command, arg0, arg1 uint32
	data                []byte
	written             chan<- struct{} // capacity ≥ 1; nil: nobody waits
}

// conn is one transport connection from an adb server.
type conn struct {
	nc      net.Conn
	handler Handler
	log     *slog.Logger

	ctx    context.Context
	cancel context.CancelCauseFunc
	out    chan outPacket

	// Set by CNXN on the reader goroutine before any stream exists.
	connected   bool
	hostVersion uint32
	maxData     int

	mu          sync.Mutex
	streams     map[uint32]*stream
	nextLocalID uint32

	// Pushes in progress hold back new streams; see holdOpen.
	openMu    sync.Mutex
	sends     map[*syncSession]struct{} // between SEND and DONE
	heldOpens []heldOpen
	holdTimer *time.Timer
}

// heldOpen is an OPEN waiting for pushes in progress to complete.
type heldOpen struct {
	hostID uint32
	name   string
}

// maxOpenHold bounds how long a stalled push can hold back new streams. A
// variable so tests can shorten it.
var maxOpenHold = 2 * time.Second

func newConn(srv *Server, ctx context.Context, nc net.Conn) *conn {
	ctx, cancel := context.WithCancelCause(ctx)
	return &conn{
		nc:      nc,
		handler: srv.handler,
		log:     srv.logger().With("remote", nc.RemoteAddr().String()),
		ctx:     ctx,
		cancel:  cancel,
		out:     make(chan outPacket, 64),
		streams: make(map[uint32]*stream),
		sends:   make(map[*syncSession]struct{}),
	}
}

// serve runs the connection until the peer leaves, a protocol error, or
// cancellation; it returns after both its goroutines have stopped.
func (c *conn) serve() {
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		c.writeLoop()
	}()
	stop := context.AfterFunc(c.ctx, func() { _ = c.nc.Close() })
	defer stop()

	err := c.readLoop()
	switch {
	case err == nil, errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed), c.ctx.Err() != nil:
		c.log.Debug("adbd: connection closed", "err", err)
	default:
		c.log.Warn("adbd: closing connection", "err", err)
	}
	c.cancel(err)
	_ = c.nc.Close()
	c.dropHeldOpens()
	<-writerDone
}

// send queues a packet for the writer goroutine.
func (c *conn) send(command, arg0, arg1 uint32, data []byte) error {
	return c.sendNotify(command, arg0, arg1, data, nil)
}

// sendNotify is send that signals written once the writer no longer reads
// data.
func (c *conn) sendNotify(command, arg0, arg1 uint32, data []byte, written chan<- struct{}) error {
	select {
	case c.out <- outPacket{command, arg0, arg1, data, written}:
		return nil
	case <-c.ctx.Done():
		return errStreamClosed
	}
}

// writeLoop serializes queued packets onto the socket, flushing only when
// the queue runs dry so bursts of small packets share a syscall.
func (c *conn) writeLoop() {
	bw := bufio.NewWriterSize(c.nc, 64*1024)
	var hdr [headerSize]byte
	for {
		var p outPacket
		select {
		case p = <-c.out:
		case <-c.ctx.Done():
			return
		}
		encodeHeader(&hdr, p.command, p.arg0, p.arg1, p.data)
		_, err := bw.Write(hdr[:])
		if err == nil && len(p.data) > 0 {
			_, err = bw.Write(p.data) // copied or written: data is free again
		}
		if p.written != nil {
			p.written <- struct{}{}
		}
		if err == nil && len(c.out) == 0 {
			err = bw.Flush()
		}
		if err != nil {
			c.cancel(fmt.Errorf("write: %w", err))
			return
		}
	}
}

// readLoop reads and dispatches packets until an error.
func (c *conn) readLoop() error {
	br := bufio.NewReaderSize(c.nc, 64*1024)
	var hdrBuf [headerSize]byte
	payload := make([]byte, MaxPayload)
	for {
		if _, err := io.ReadFull(br, hdrBuf[:]); err != nil {
			return err
		}
		h, err := decodeHeader(&hdrBuf, MaxPayload)
		if err != nil {
			return err
		}
		data := payload[:h.length]
		if _, err := io.ReadFull(br, data); err != nil {
			return fmt.Errorf("reading %s payload: %w", commandName(h.command), err)
		}
		if c.verifiesChecksums() && h.checksum != checksum(data) {
			return fmt.Errorf("%s checksum mismatch", commandName(h.command))
		}
		if err := c.dispatch(h, data); err != nil {
			return err
		}
	}
}

// verifiesChecksums: hosts from 0x01000001 on may send a zero checksum, so
// only older (or not yet introduced) peers are held to it.
func (c *conn) verifiesChecksums() bool {
	return c.connected && c.hostVersion < protocolVersionSkipChecksum
}

// dispatch handles one packet on the reader goroutine. data is only valid
// during the call.
func (c *conn) dispatch(h header, data []byte) error {
	if h.command == cmdCNXN {
		return c.handleConnect(h, data)
	}
	if !c.connected {
		c.log.Debug("adbd: ignoring packet before CNXN", "command", commandName(h.command))
		return nil
	}
	switch h.command {
	case cmdOPEN:
		return c.handleOpen(h.arg0, data)
	case cmdOKAY:
		if s := c.stream(h.arg1); s != nil {
			notify(s.acks)
		}
	case cmdWRTE:
		s := c.stream(h.arg1)
		if s == nil {
			// The stream already ended on our side; its CLSE is on the way.
			return nil
		}
		if s.inbound(data) {
			s.ack()
		}
	case cmdCLSE:
		if s := c.stream(h.arg1); s != nil {
			c.removeStream(s)
		}
	default:
		c.log.Debug("adbd: ignoring packet", "command", commandName(h.command))
	}
	return nil
}

// handleConnect answers the host's CNXN. A repeated CNXN restarts the
// session, so the streams of the previous one are dropped.
func (c *conn) handleConnect(h header, data []byte) error {
	if h.arg1 == 0 {
		return errors.New("CNXN with zero maxdata")
	}
	c.mu.Lock()
	old := c.streams
	c.streams = make(map[uint32]*stream)
	c.mu.Unlock()
	c.dropHeldOpens() // they belong to the previous session
	for _, s := range old {
		c.removeStream(s)
	}
	c.connected = true
	c.hostVersion = h.arg0
	c.maxData = int(min(h.arg1, MaxPayload))
	c.log.Debug("adbd: host connected", "version", fmt.Sprintf("0x%08x", h.arg0), "maxdata", c.maxData, "banner", string(data))
	return c.send(cmdCNXN, ProtocolVersion, uint32(c.maxData), []byte(c.handler.Banner()))
}

// handleOpen starts a service, or refuses it with CLSE(0, hostID), unless
// holdOpen defers it.
func (c *conn) handleOpen(hostID uint32, data []byte) error {
	if hostID == 0 {
		return errors.New("OPEN with zero local-id")
	}
	name := string(trimNUL(data))
	if c.holdOpen(hostID, name) {
		return nil
	}
	return c.openStream(hostID, name)
}

// openStream creates the stream, installs its service and answers OKAY.
func (c *conn) openStream(hostID uint32, name string) error {
	c.mu.Lock()
	c.nextLocalID++
	if c.nextLocalID == 0 { // wrapped: 0 means "no stream" on the wire
		c.nextLocalID = 1
	}
	s := newStream(c, c.nextLocalID, hostID)
	c.mu.Unlock()

	start := c.service(s, name)
	if start == nil {
		c.log.Debug("adbd: refusing service", "service", name)
		s.cancel()
		return c.send(cmdCLSE, 0, hostID, nil)
	}
	// Registered only now, after the service set s.inbound: the reader
	// finds the stream through c.mu, which orders the two.
	c.mu.Lock()
	c.streams[s.localID] = s
	c.mu.Unlock()
	if err := c.send(cmdOKAY, s.localID, hostID, nil); err != nil {
		return err
	}
	go s.pump()
	start()
	return nil
}

// holdOpen defers an OPEN while a push on this connection is between SEND
// and DONE, and reports whether it did. The adb server forwards each client
// socket independently, so when a client (goadb) closes a push without
// waiting for its OKAY and immediately opens the next stream, that OPEN can
// overtake the push's last WRTE. Holding it until the DONE is processed
// makes every push visible to the streams opened after it, as a client
// expects; maxOpenHold keeps a stalled push from blocking others for long.
func (c *conn) holdOpen(hostID uint32, name string) bool {
	c.openMu.Lock()
	defer c.openMu.Unlock()
	if len(c.sends) == 0 && len(c.heldOpens) == 0 {
		return false
	}
	c.heldOpens = append(c.heldOpens, heldOpen{hostID, name})
	if c.holdTimer == nil {
		c.holdTimer = time.AfterFunc(maxOpenHold, c.expireSends)
	}
	return true
}

// sendBegan and sendEnded bracket a push; sendEnded may be called more
// than once and from any goroutine.
func (c *conn) sendBegan(ss *syncSession) {
	c.openMu.Lock()
	c.sends[ss] = struct{}{}
	c.openMu.Unlock()
}

func (c *conn) sendEnded(ss *syncSession) {
	c.openMu.Lock()
	defer c.openMu.Unlock()
	if _, ok := c.sends[ss]; !ok {
		return
	}
	delete(c.sends, ss)
	if len(c.sends) == 0 {
		c.releaseHeldLocked()
	}
}

// dropHeldOpens forgets deferred OPENs without answering them.
func (c *conn) dropHeldOpens() {
	c.openMu.Lock()
	defer c.openMu.Unlock()
	if c.holdTimer != nil {
		c.holdTimer.Stop()
		c.holdTimer = nil
	}
	c.heldOpens = nil
	clear(c.sends)
}

// expireSends stops waiting for pushes that took longer than maxOpenHold.
func (c *conn) expireSends() {
	c.openMu.Lock()
	defer c.openMu.Unlock()
	clear(c.sends)
	c.releaseHeldLocked()
}

// releaseHeldLocked opens the held streams in arrival order. It runs with
// openMu held so a concurrent OPEN queues behind them rather than
// overtaking them.
func (c *conn) releaseHeldLocked() {
	if c.holdTimer != nil {
		c.holdTimer.Stop()
		c.holdTimer = nil
	}
	held := c.heldOpens
	c.heldOpens = nil
	for _, h := range held {
		if err := c.openStream(h.hostID, h.name); err != nil {
			return // the connection is gone
		}
	}
}

func trimNUL(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	return b
}

func (c *conn) stream(localID uint32) *stream {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.streams[localID]
}

// removeStream forgets s and cancels everything running for it.
func (c *conn) removeStream(s *stream) {
	c.mu.Lock()
	if c.streams[s.localID] == s {
		delete(c.streams, s.localID)
	}
	c.mu.Unlock()
	s.cancel()
	if s.onRemove != nil {
		s.onRemove()
	}
}

// abort closes the socket immediately; with abortive set the kernel sends
// a reset instead of a FIN, as when a phone vanishes from the network.
func (c *conn) abort(abortive bool) {
	if tc, ok := c.nc.(*net.TCPConn); ok && abortive {
		_ = tc.SetLinger(0)
	}
	c.cancel(net.ErrClosed)
	_ = c.nc.Close()
}
