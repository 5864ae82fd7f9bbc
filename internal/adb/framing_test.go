package adb

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeHostServer answers every connection's first request with OKAY and
// reply framed the way the adb server frames it ("%04x" then the bytes).
func fakeHostServer(t *testing.T, status, reply string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				var hdr [4]byte
				if _, err := c.Read(hdr[:]); err != nil {
					return
				}
				var n int
				fmt.Sscanf(string(hdr[:]), "%04x", &n)
				req := make([]byte, n)
				c.Read(req)
				fmt.Fprintf(c, "%s%04x%s", status, len(reply), reply)
			}()
		}
	}()
	return ln.Addr().String()
}

func devicesReply(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "127.0.0.1:%d         device product:sdk_gphone model:Pixel_7 device:emu64a transport_id:%d\n", 40000+i, i)
	}
	return b.String()
}

func TestHostRepliesAreReadInFull(t *testing.T) {
	for _, size := range []int{300, 64*1024 - 200} {
		reply := devicesReply(size)
		c := NewClient(fakeHostServer(t, "OKAY", reply))
		got, err := c.query(context.Background(), "host:devices-l")
		require.NoError(t, err, "size %d", size)
		assert.Equal(t, reply, got, "size %d", size)
		assert.Len(t, parseDevicesLong(got), strings.Count(reply, "\n"))
	}
}

func TestHostReplyLongerThanItsFramingFails(t *testing.T) {
	// A 1 MiB reply: "%04x" prints six hex digits, so the length read is
	// wrong and bytes remain after it. That must be an error, not a list cut
	// short.
	c := NewClient(fakeHostServer(t, "OKAY", devicesReply(1<<20)))
	_, err := c.query(context.Background(), "host:devices-l")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "longer than its")
}

func TestServerFailureMessageIsReadInFull(t *testing.T) {
	msg := "device '" + strings.Repeat("x", 400) + "' not found"
	c := NewClient(fakeHostServer(t, "FAIL", msg))
	_, err := c.query(context.Background(), "host:transport:xyz")
	var se *ServerError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, msg, se.Message)
}
