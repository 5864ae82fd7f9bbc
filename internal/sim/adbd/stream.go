package adbd

import (
	"context"
	"errors"
	"sync"
)

// errStreamClosed is returned by writes to a stream the host closed, or whose
// connection is gone.
var errStreamClosed = errors.New("adbd: stream closed")

// stream is one OPENed service on a connection. Output is appended to
// pending by the service and sent by pump, one WRTE at a time: adb 29 hosts
// speak protocol 0x01000001, where a WRTE may only follow the OKAY of the
// previous one. While a packet is in flight the service keeps filling the
// other buffer, so small writes coalesce into large packets without delay.
type stream struct {
	conn     *conn
	localID  uint32
	remoteID uint32
	maxData  int

	ctx    context.Context
	cancel context.CancelFunc

	acks  chan struct{} // capacity 1: the host's OKAY for the WRTE in flight
	wake  chan struct{} // capacity 1: pending gained data or the service finished
	space chan struct{} // capacity 1: pump took pending, blocked writers may retry
	// written (capacity 1): the writer goroutine is done reading the WRTE
	// in flight, so its buffer may be recycled.
	written chan struct{}

	// inbound consumes one host WRTE payload on the connection's reader
	// goroutine and reports whether to acknowledge it immediately; a false
	// return obliges the service to call ack later.
	inbound func(data []byte) (ackNow bool)
	// onRemove, if set by the service, runs when the stream is forgotten
	// (from any goroutine, possibly more than once).
	onRemove func()

	mu        sync.Mutex
	pending   []byte // queued output, owned by writers
	spare     []byte // the drained in-flight buffer, recycled as pending
	finishing bool   // the service is done: flush pending, then CLSE
}

func newStream(c *conn, localID, remoteID uint32) *stream {
	ctx, cancel := context.WithCancel(c.ctx)
	return &stream{
		conn:     c,
		localID:  localID,
		remoteID: remoteID,
		maxData:  c.maxData,
		ctx:      ctx,
		cancel:   cancel,
		acks:     make(chan struct{}, 1),
		wake:     make(chan struct{}, 1),
		space:    make(chan struct{}, 1),
		written:  make(chan struct{}, 1),
		inbound:  func([]byte) bool { return true },
	}
}

// outboundLimit bounds the output a service may queue ahead of the host
// before its writes block: enough for the next packet while one is in flight.
func (s *stream) outboundLimit() int { return 2 * s.maxData }

func notify(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// writeFrame appends head and body as one unit (so concurrent stdout and
// stderr frames never interleave), blocking while the queue is full.
// len(head)+len(body) must not exceed outboundLimit.
func (s *stream) writeFrame(head, body []byte) error {
	need := len(head) + len(body)
	for {
		s.mu.Lock()
		if s.ctx.Err() != nil || s.finishing {
			s.mu.Unlock()
			return errStreamClosed
		}
		if len(s.pending) == 0 || len(s.pending)+need <= s.outboundLimit() {
			s.appendLocked(head, body)
			s.mu.Unlock()
			notify(s.wake)
			return nil
		}
		s.mu.Unlock()
		select {
		case <-s.space:
		case <-s.ctx.Done():
			return errStreamClosed
		}
	}
}

// queue appends output without blocking. It is for responses produced on the
// reader goroutine (sync:), whose size the host bounds by what it asks for.
func (s *stream) queue(parts ...[]byte) {
	s.mu.Lock()
	if s.ctx.Err() == nil && !s.finishing {
		for _, p := range parts {
			s.appendLocked(p, nil)
		}
	}
	s.mu.Unlock()
	notify(s.wake)
}

func (s *stream) appendLocked(head, body []byte) {
	if s.pending == nil && s.spare != nil {
		s.pending, s.spare = s.spare[:0], nil
	}
	s.pending = append(s.pending, head...)
	s.pending = append(s.pending, body...)
}

// finish ends the service's side: queued output is still delivered, then
// the stream is closed with CLSE.
func (s *stream) finish() {
	s.mu.Lock()
	s.finishing = true
	s.mu.Unlock()
	notify(s.wake)
}

// ack sends the OKAY that lets the host send its next WRTE.
func (s *stream) ack() {
	_ = s.conn.send(cmdOKAY, s.localID, s.remoteID, nil)
}

// pump sends pending output in maxData-sized WRTEs, each after the previous
// one was acknowledged, and closes the stream once the service finished and
// everything was delivered.
func (s *stream) pump() {
	for {
		s.mu.Lock()
		for len(s.pending) == 0 && !s.finishing {
			s.mu.Unlock()
			select {
			case <-s.wake:
			case <-s.ctx.Done():
				return
			}
			s.mu.Lock()
		}
		if len(s.pending) == 0 { // finishing and fully delivered
			s.mu.Unlock()
			_ = s.conn.send(cmdCLSE, s.localID, s.remoteID, nil)
			s.conn.removeStream(s)
			return
		}
		inflight := s.pending
		s.pending = nil
		s.mu.Unlock()
		notify(s.space)

		for off := 0; off < len(inflight); {
			n := min(len(inflight)-off, s.maxData)
			// The writer goroutine reads inflight[off:off+n] until it
			// signals written; on cancellation the buffer is abandoned
			// rather than recycled, so nothing writes to it while the
			// writer may still read it.
			if err := s.conn.sendNotify(cmdWRTE, s.localID, s.remoteID, inflight[off:off+n], s.written); err != nil {
				return
			}
			for _, ch := range [...]chan struct{}{s.written, s.acks} {
				select {
				case <-ch:
				case <-s.ctx.Done():
					return
				}
			}
			off += n
		}
		s.mu.Lock()
		s.spare = inflight[:0]
		s.mu.Unlock()
	}
}
