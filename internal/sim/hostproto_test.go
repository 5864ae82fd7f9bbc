package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeADBServer answers each host request with reply(request), which
// returns the status ("OKAY"/"FAIL") and the message.
func fakeADBServer(t *testing.T, reply func(req string) (string, string)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			nc, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer nc.Close()
				size := make([]byte, 4)
				if _, err := io.ReadFull(nc, size); err != nil {
					return
				}
				n, _ := strconv.ParseUint(string(size), 16, 16)
				req := make([]byte, n)
				if _, err := io.ReadFull(nc, req); err != nil {
					return
				}
				status, msg := reply(string(req))
				_, _ = fmt.Fprintf(nc, "%s%04x%s", status, len(msg), msg)
			}()
		}
	}()
	return l.Addr().String()
}

func TestHostRequestReturnsOKAYMessageAndFAILError(t *testing.T) {
	addr := fakeADBServer(t, func(req string) (string, string) {
		if req == "host:devices" {
			return "OKAY", "emulator-5554\tdevice\n127.0.0.1:1\toffline\n"
		}
		return "FAIL", "unknown host service"
	})
	ctx := context.Background()
	state, err := deviceState(ctx, addr, "127.0.0.1:1")
	require.NoError(t, err)
	assert.Equal(t, "offline", state)
	state, err = deviceState(ctx, addr, "127.0.0.1:2")
	require.NoError(t, err)
	assert.Empty(t, state)

	_, err = hostRequest(ctx, addr, "host:nonsense")
	assert.ErrorContains(t, err, "host:nonsense: unknown host service")
}

func TestHostRequestHonoursCancellation(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	go func() { // accept and never answer
		nc, err := l.Accept()
		if err == nil {
			defer nc.Close()
			_, _ = io.Copy(io.Discard, nc)
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err = hostRequest(ctx, l.Addr().String(), "host:devices")
	assert.ErrorIs(t, err, context.Canceled)
}

func TestAttachReportsAFailedConnect(t *testing.T) {
	addr := fakeADBServer(t, func(req string) (string, string) {
		if strings.HasPrefix(req, "host:connect:") {
			return "OKAY", "failed to connect to '" + strings.TrimPrefix(req, "host:connect:") + "': Connection refused"
		}
		return "OKAY", ""
	})
	_, err := Start(context.Background(), Options{Attach: true, ADBServer: addr})
	assert.ErrorContains(t, err, "failed to connect")
}

func TestAttachGivesUpWhenTheDeviceNeverComesOnline(t *testing.T) {
	addr := fakeADBServer(t, func(req string) (string, string) {
		if strings.HasPrefix(req, "host:connect:") {
			return "OKAY", "connected to " + strings.TrimPrefix(req, "host:connect:")
		}
		return "OKAY", "" // never listed
	})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := Start(ctx, Options{Attach: true, ADBServer: addr})
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "state: not listed")
}

func TestAttachReplacesAStaleTransportOfAnEarlierPhone(t *testing.T) {
	var mu sync.Mutex
	var requests []string
	stale, online := true, false // an earlier phone's transport, in reconnect
	serial := ""
	addr := fakeADBServer(t, func(req string) (string, string) {
		mu.Lock()
		defer mu.Unlock()
		op, arg, _ := strings.Cut(strings.TrimPrefix(req, "host:"), ":")
		requests = append(requests, op)
		switch op {
		case "connect":
			serial = arg
			if stale {
				return "OKAY", "already connected to " + arg
			}
			online = true
			return "OKAY", "connected to " + arg
		case "disconnect":
			stale = false
			return "OKAY", "disconnected " + arg
		case "devices":
			switch {
			case online:
				return "OKAY", serial + "\tdevice\n"
			case stale:
				return "OKAY", serial + "\toffline\n"
			}
		}
		return "OKAY", ""
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := Start(ctx, Options{Attach: true, ADBServer: addr})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"connect", "disconnect", "devices", "connect", "devices", "disconnect"}, requests,
		"the stale transport must be disconnected and the phone connected afresh")
}

func TestAttachSettlesForATransportThatKeepsComingBack(t *testing.T) {
	connects := 0
	var mu sync.Mutex
	addr := fakeADBServer(t, func(req string) (string, string) {
		mu.Lock()
		defer mu.Unlock()
		op, arg, _ := strings.Cut(strings.TrimPrefix(req, "host:"), ":")
		switch op {
		case "connect":
			connects++
			return "OKAY", "already connected to " + arg
		case "devices":
			return "OKAY", "" // gone after each disconnect
		}
		return "OKAY", "disconnected " + arg
	})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := Start(ctx, Options{Attach: true, ADBServer: addr})
	require.ErrorIs(t, err, context.DeadlineExceeded, "never listed as device")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, maxStaleDisconnects+1, connects, "connect retries are bounded")
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

func TestEnsureADBServerExplainsAMissingBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := EnsureADBServer(context.Background(), freeAddr(t))
	assert.True(t, errors.Is(err, ErrADBNotFound), "got %v", err)
	assert.EqualError(t, err, "adb not found: run `make setup` (apt-get install adb)")
}

func TestEnsureADBServerAcceptsARunningServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	t.Setenv("PATH", t.TempDir()) // proves nothing is spawned
	assert.NoError(t, EnsureADBServer(context.Background(), l.Addr().String()))
}
