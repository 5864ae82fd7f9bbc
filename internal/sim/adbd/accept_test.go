package adbd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flakyListener fails its first Accept calls with the given errors, then
// hands out connections from the real listener it wraps.
type flakyListener struct {
	net.Listener
	fails chan error
}

func (l *flakyListener) Accept() (net.Conn, error) {
	select {
	case err := <-l.fails:
		return nil, err
	default:
		return l.Listener.Accept()
	}
}

// acceptErr is how net.TCPListener reports an accept(2) failure.
func acceptErr(errno syscall.Errno) error {
	return &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", errno)}
}

// TestServeBacksOffAfterTemporaryAcceptErrors: after EMFILE, ENFILE and
// ECONNABORTED from accept the server keeps accepting; the phone answers.
func TestServeBacksOffAfterTemporaryAcceptErrors(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	errs := []error{acceptErr(syscall.EMFILE), acceptErr(syscall.EMFILE), acceptErr(syscall.ENFILE), acceptErr(syscall.ECONNABORTED)}
	l := &flakyListener{Listener: inner, fails: make(chan error, len(errs))}
	for _, e := range errs {
		l.fails <- e
	}
	srv := NewServer(newFakePhone())
	srv.Logger = slog.New(slog.DiscardHandler)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		_ = srv.Close()
		<-served
	})

	h := dialTestHost(t, inner.Addr().String(), 1<<20)
	assert.Equal(t, "ok\n", string(h.open("shell:echo ok").readAll()))
	assert.Empty(t, l.fails, "every injected failure was seen")
	select {
	case err := <-served:
		t.Fatalf("Serve returned after temporary accept errors: %v", err)
	default:
	}
}

// TestServeStopsOnPermanentAcceptError: an error that is not temporary
// (here EBADF, a listener gone bad) ends Serve with that error instead of
// spinning.
func TestServeStopsOnPermanentAcceptError(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	l := &flakyListener{Listener: inner, fails: make(chan error, 1)}
	l.fails <- acceptErr(syscall.EBADF)
	srv := NewServer(newFakePhone())
	srv.Logger = slog.New(slog.DiscardHandler)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(context.Background(), l) }()
	select {
	case err := <-served:
		assert.True(t, errors.Is(err, syscall.EBADF), fmt.Sprint(err))
	case <-time.After(10 * time.Second):
		_ = srv.Close()
		t.Fatal("Serve did not return after a permanent accept error")
	}
}

func TestTemporaryAcceptErrorClassification(t *testing.T) {
	for errno, want := range map[syscall.Errno]bool{
		syscall.EMFILE: true, syscall.ENFILE: true, syscall.ECONNABORTED: true, syscall.ENOBUFS: true,
		syscall.EBADF: false, syscall.EINVAL: false,
	} {
		assert.Equal(t, want, temporaryAcceptError(acceptErr(errno)), errno.Error())
	}
	assert.False(t, temporaryAcceptError(net.ErrClosed))
}
