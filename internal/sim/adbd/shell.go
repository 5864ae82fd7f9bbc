package adbd

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
)

// Shell protocol (shell_v2) packet ids: a packet is one id byte, a
// little-endian uint32 length and the data.
const (
	shellIDStdin       = 0
	shellIDStdout      = 1
	shellIDStderr      = 2
	shellIDExit        = 3
	shellIDCloseStdin  = 4
	shellIDWindowSize  = 5
	shellPacketHeader  = 5
	shellCommandFailed = 255 // exit code when the handler panics
)

// service resolves an OPEN destination to a function that starts it,
// after installing the stream's inbound consumer. Unknown services return
// nil and are refused with CLSE.
func (c *conn) service(s *stream, name string) (start func()) {
	switch {
	case name == "sync:":
		ss := newSyncSession(s, c.handler.Files())
		s.inbound = ss.feed
		s.onRemove = func() { c.sendEnded(ss) }
		return func() {}
	case strings.HasPrefix(name, "exec:"):
		return c.commandService(s, strings.TrimPrefix(name, "exec:"), commandExec)
	case strings.HasPrefix(name, "shell:"), strings.HasPrefix(name, "shell,"):
		opts, cmd, _ := strings.Cut(strings.TrimPrefix(name, "shell"), ":")
		kind := commandShellV1
		for _, opt := range strings.Split(opts, ",") {
			if opt == "v2" {
				kind = commandShellV2
			}
		}
		return c.commandService(s, cmd, kind)
	}
	return nil
}

// commandKind selects how a command's streams map onto the adb stream.
type commandKind int

const (
	commandShellV1 commandKind = iota // stdout and stderr merged, no exit code
	commandShellV2                    // shell protocol framing with exit code
	commandExec                       // stdout only, bytes untouched
)

// commandService runs cmdline on the handler with the stream as its stdio.
func (c *conn) commandService(s *stream, cmdline string, kind commandKind) func() {
	stdin := newStdinPipe(s.ctx, s.ack)
	var stdout, stderr io.Writer
	switch kind {
	case commandShellV2:
		s.inbound = (&shellV2Input{stdin: stdin}).feed
		stdout = shellV2Writer{s, shellIDStdout}
		stderr = shellV2Writer{s, shellIDStderr}
	case commandExec:
		s.inbound = stdin.feed
		stdout, stderr = rawWriter{s}, io.Discard
	default:
		s.inbound = stdin.feed
		stdout = rawWriter{s}
		stderr = stdout
	}
	return func() {
		go func() {
			code := c.runHandler(s.ctx, cmdline, stdin, stdout, stderr)
			stdin.closeRead()
			if kind == commandShellV2 {
				var exit [shellPacketHeader + 1]byte
				exit[0] = shellIDExit
				binary.LittleEndian.PutUint32(exit[1:], 1)
				exit[5] = byte(code)
				_ = s.writeFrame(exit[:], nil)
			}
			s.finish()
		}()
	}
}

// runHandler calls the handler, turning a panic into a failed command so a
// buggy simulated command cannot take the whole server down.
func (c *conn) runHandler(ctx context.Context, cmdline string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("adbd: shell handler panicked", "cmdline", cmdline, "panic", r)
			_, _ = fmt.Fprintf(stderr, "%s: internal error\n", cmdline)
			code = shellCommandFailed
		}
	}()
	if cmdline == "" {
		return interactiveShell(ctx, c.handler, stdin, stdout, stderr)
	}
	return c.handler.Shell(ctx, cmdline, stdin, stdout, stderr)
}

// rawWriter sends bytes as they are, in packets of at most maxData.
type rawWriter struct{ s *stream }

func (w rawWriter) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		n := min(len(p), w.s.maxData)
		if err := w.s.writeFrame(nil, p[:n]); err != nil {
			return written, err
		}
		written += n
		p = p[n:]
	}
	return written, nil
}

// shellV2Writer frames writes as shell protocol packets of one id.
type shellV2Writer struct {
	s  *stream
	id byte
}

func (w shellV2Writer) Write(p []byte) (int, error) {
	written := 0
	var head [shellPacketHeader]byte
	head[0] = w.id
	for len(p) > 0 {
		n := min(len(p), w.s.maxData-shellPacketHeader)
		binary.LittleEndian.PutUint32(head[1:], uint32(n))
		if err := w.s.writeFrame(head[:], p[:n]); err != nil {
			return written, err
		}
		written += n
		p = p[n:]
	}
	return written, nil
}

// shellV2Input parses the host's shell protocol packets, which may span
// WRTE boundaries, and feeds stdin.
type shellV2Input struct {
	stdin *stdinPipe
	buf   []byte
	// broken is set after a malformed packet: the rest of the stream's
	// input is discarded instead of buffered.
	broken bool
}

// maxShellPacket bounds one shell v2 input packet; adb's own packets are
// far smaller (one WRTE). A larger declared length is a malformed stream.
const maxShellPacket = stdinHighWater

func (in *shellV2Input) feed(data []byte) (ackNow bool) {
	if in.broken {
		return true
	}
	in.buf = append(in.buf, data...)
	ackNow = true
	for len(in.buf) >= shellPacketHeader {
		n := binary.LittleEndian.Uint32(in.buf[1:])
		if n > maxShellPacket {
			// Buffering toward a length this large would let one bad
			// packet grow memory without bound: end stdin, drop the rest.
			in.broken, in.buf = true, nil
			in.stdin.closeWrite()
			return true
		}
		if uint64(len(in.buf)-shellPacketHeader) < uint64(n) {
			break
		}
		body := in.buf[shellPacketHeader : shellPacketHeader+int(n)]
		switch in.buf[0] {
		case shellIDStdin:
			if !in.stdin.feed(body) {
				ackNow = false
			}
		case shellIDCloseStdin:
			in.stdin.closeWrite()
		case shellIDWindowSize:
			// The simulated shell has no terminal to resize.
		}
		in.buf = in.buf[shellPacketHeader+int(n):]
	}
	if len(in.buf) == 0 {
		in.buf = nil
	}
	return ackNow
}
