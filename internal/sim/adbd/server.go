package adbd

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"syscall"
	"time"
)

// ErrServerClosed is returned by Serve after Close.
var ErrServerClosed = errors.New("adbd: server closed")

// Server accepts adb transport connections and runs their streams on a
// Handler. Its zero value is not usable; call NewServer.
type Server struct {
	// Logger receives protocol errors (bad packets close the connection
	// with a warning) and debug traces. Nil means slog.Default(). Set it
	// before Serve.
	Logger *slog.Logger

	handler Handler

	mu        sync.Mutex
	closed    bool
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	wg        sync.WaitGroup // connection goroutines
}

// NewServer returns a server whose streams are served by h.
func NewServer(h Handler) *Server {
	return &Server{
		handler:   h,
		listeners: make(map[net.Listener]struct{}),
		conns:     make(map[*conn]struct{}),
	}
}

func (s *Server) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

// Serve accepts connections on l until ctx is cancelled (it then returns
// ctx.Err()) or Close is called (ErrServerClosed). It closes l on return;
// connections accepted from l end with ctx.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = l.Close()
		return ErrServerClosed
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, l)
		s.mu.Unlock()
		_ = l.Close()
	}()
	stop := context.AfterFunc(ctx, func() { _ = l.Close() })
	defer stop()

	var backoff time.Duration
	for {
		nc, err := l.Accept()
		if err != nil {
			if s.isClosed() {
				return ErrServerClosed
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if !temporaryAcceptError(err) {
				return err
			}
			// Out of file descriptors, a connection aborted before it
			// was accepted: back off like net/http and go on, so the
			// phone keeps answering once descriptors free up.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.logger().Warn("adbd: accept failed; retrying", "err", err, "in", backoff)
			select {
			case <-time.After(backoff):
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		backoff = 0
		c := newConn(s, ctx, nc)
		if !s.track(c) {
			_ = nc.Close()
			return ErrServerClosed
		}
		go func() {
			defer s.wg.Done()
			defer s.untrack(c)
			c.serve()
		}()
	}
}

// temporaryAcceptError reports whether an Accept error is worth waiting
// out: descriptor exhaustion (EMFILE, ENFILE), kernel memory pressure
// (ENOBUFS, ENOMEM), a peer that gave up before its connection was
// accepted (ECONNABORTED, ECONNRESET), an interrupted call and timeouts.
// Anything else (a closed listener) ends Serve.
func temporaryAcceptError(err error) bool {
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM,
		syscall.ECONNABORTED, syscall.ECONNRESET, syscall.EINTR, syscall.EAGAIN} {
		if errors.Is(err, errno) {
			return true
		}
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

func (s *Server) track(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	return true
}

func (s *Server) untrack(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// Close stops accepting, closes every connection (the adb server sees the
// device go away) and waits for the connection goroutines to finish.
// Handler calls still running are cancelled through their context but not
// waited for.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	for l := range s.listeners {
		_ = l.Close()
	}
	for c := range s.conns {
		c.abort(false)
	}
	s.mu.Unlock()
	s.wg.Wait()
	return nil
}

// DropConnections abruptly resets every open connection, as if the phone
// fell off the network, but keeps accepting new ones so the adb server may
// reconnect.
func (s *Server) DropConnections() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.abort(true)
	}
}
