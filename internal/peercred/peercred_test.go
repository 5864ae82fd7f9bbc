package peercred

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
)

// TestSameUserOverAUnixSocket: the peer of a unix socket connection made
// by this process is this process's user; a TCP connection is not a unix
// socket's and is refused.
func TestSameUserOverAUnixSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	client, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server := <-accepted
	defer server.Close()
	uid, err := UID(server)
	if err != nil || uid != os.Getuid() {
		t.Fatalf("UID = %d, %v; want %d", uid, err, os.Getuid())
	}
	if err := SameUser(server); err != nil {
		t.Fatal(err)
	}

	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	go func() {
		if c, err := tl.Accept(); err == nil {
			accepted <- c
		}
	}()
	tc, err := net.Dial("tcp", tl.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	ts := <-accepted
	defer ts.Close()
	if err := SameUser(ts); !errors.Is(err, ErrNotUnix) {
		t.Fatalf("SameUser over TCP = %v, want ErrNotUnix", err)
	}
}
