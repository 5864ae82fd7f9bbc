package adbd

import (
	"context"
	"io"
	"sync"
)

// stdinHighWater is how much unread stdin a stream buffers before it stops
// acknowledging the host's WRTEs; the host then holds further input back.
const stdinHighWater = 1 << 20

// stdinPipe carries host input to a Handler's stdin reader. The connection's
// reader goroutine feeds it and must never block, so writes always succeed
// and backpressure is applied the adb way instead: a write that leaves the
// buffer above stdinHighWater withholds its OKAY until the command has read
// the buffer down (ackOwed/onDrain).
type stdinPipe struct {
	ctx context.Context

	mu       sync.Mutex
	buf      []byte
	eof      bool // the host closed stdin (v2 close-stdin, or the stream closed)
	closed   bool // the command finished: further input is discarded
	ackOwed  bool
	readable chan struct{} // capacity 1: data or EOF arrived
	onDrain  func()        // sends the withheld OKAY
}

func newStdinPipe(ctx context.Context, onDrain func()) *stdinPipe {
	return &stdinPipe{ctx: ctx, readable: make(chan struct{}, 1), onDrain: onDrain}
}

// feed appends host input and reports whether the host may be acknowledged
// now; if not, onDrain is called once the reader has caught up.
func (p *stdinPipe) feed(data []byte) (ackNow bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.eof {
		return true
	}
	p.buf = append(p.buf, data...)
	p.signal()
	if len(p.buf) > stdinHighWater {
		p.ackOwed = true
		return false
	}
	return true
}

// closeWrite marks the end of input: reads return io.EOF once drained.
func (p *stdinPipe) closeWrite() {
	p.mu.Lock()
	p.eof = true
	p.signal()
	p.mu.Unlock()
}

// closeRead discards buffered and future input once the command is done, and
// pays any withheld acknowledgement so the host is not left waiting.
func (p *stdinPipe) closeRead() {
	p.mu.Lock()
	p.closed = true
	p.buf = nil
	owed := p.ackOwed
	p.ackOwed = false
	p.mu.Unlock()
	if owed {
		p.onDrain()
	}
}

func (p *stdinPipe) signal() {
	select {
	case p.readable <- struct{}{}:
	default:
	}
}

// Read blocks until input, end of input, or cancellation of the stream.
func (p *stdinPipe) Read(b []byte) (int, error) {
	for {
		p.mu.Lock()
		if len(p.buf) > 0 {
			n := copy(b, p.buf)
			p.buf = p.buf[n:]
			if len(p.buf) == 0 {
				p.buf = nil // let the next feed start a fresh array
			}
			owed := p.ackOwed && len(p.buf) <= stdinHighWater/2
			if owed {
				p.ackOwed = false
			}
			p.mu.Unlock()
			if owed {
				p.onDrain()
			}
			return n, nil
		}
		if p.eof || p.closed {
			p.mu.Unlock()
			return 0, io.EOF
		}
		p.mu.Unlock()
		select {
		case <-p.readable:
		case <-p.ctx.Done():
			return 0, io.EOF
		}
	}
}
