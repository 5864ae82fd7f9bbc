package sim

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// hostRequest performs one request of the adb server's host protocol: the
// request is sent as four hex digits of length and the text; the answer is
// "OKAY" or "FAIL", each followed by a length-prefixed message. It is used
// for host:connect, host:disconnect and host:devices, which all answer
// with a message.
func hostRequest(ctx context.Context, addr, request string) (string, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", fmt.Errorf("adb server %s: %w", addr, err)
	}
	defer nc.Close()
	stop := context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	if _, err := fmt.Fprintf(nc, "%04x%s", len(request), request); err != nil {
		return "", fmt.Errorf("adb server %s: %s: %w", addr, request, err)
	}
	var status [4]byte
	if _, err := io.ReadFull(nc, status[:]); err != nil {
		return "", fmt.Errorf("adb server %s: %s: reading status: %w", addr, request, ctxOr(ctx, err))
	}
	msg, err := readHostMessage(nc)
	if err != nil {
		return "", fmt.Errorf("adb server %s: %s: %w", addr, request, ctxOr(ctx, err))
	}
	switch string(status[:]) {
	case "OKAY":
		return msg, nil
	case "FAIL":
		return "", fmt.Errorf("adb server %s: %s: %s", addr, request, msg)
	}
	return "", fmt.Errorf("adb server %s: %s: unexpected status %q", addr, request, status[:])
}

// readHostMessage reads a four-hex-digit length and that many bytes.
func readHostMessage(r io.Reader) (string, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return "", fmt.Errorf("reading length: %w", err)
	}
	n, err := strconv.ParseUint(string(size[:]), 16, 16)
	if err != nil {
		return "", fmt.Errorf("bad length %q", size[:])
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return "", fmt.Errorf("reading message: %w", err)
	}
	return string(buf), nil
}

// ctxOr prefers the context's error, which explains a deadline-induced I/O
// failure better than the I/O error itself.
func ctxOr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// deviceState looks serial up in the adb server's device list: "device",
// "offline", ..., or "" when it is not listed.
func deviceState(ctx context.Context, addr, serial string) (string, error) {
	list, err := hostRequest(ctx, addr, "host:devices")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(list, "\n") {
		if s, state, ok := strings.Cut(line, "\t"); ok && s == serial {
			return strings.TrimSpace(state), nil
		}
	}
	return "", nil
}
