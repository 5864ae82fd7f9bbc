package adb

import (
	"fmt"
	"io"
	"strconv"
)

// maxHostMessage bounds one host reply. The smart-socket framing allows
// 0xffff bytes; anything the server sends fits, and the bound keeps a
// corrupted length from allocating more.
const maxHostMessage = 0xffff

// ServerError is a FAIL status from the adb server with its message, read in
// full (goadb's wire scanner clips every message to 255 bytes, which both
// truncated device lists and error texts).
type ServerError struct {
	Request string
	Message string
}

func (e *ServerError) Error() string {
	return fmt.Sprintf("adb server refused %s: %s", e.Request, e.Message)
}

// readStatus reads a 4-byte status; on FAIL it reads the error message and
// returns it as a *ServerError.
func readStatus(r io.Reader, req string) error {
	var status [4]byte
	if _, err := io.ReadFull(r, status[:]); err != nil {
		return fmt.Errorf("reading the adb server's status for %s: %w", req, err)
	}
	switch string(status[:]) {
	case "OKAY":
		return nil
	case "FAIL":
		msg, err := readHostMessage(r)
		if err != nil {
			return fmt.Errorf("adb server refused %s, and its message could not be read: %w", req, err)
		}
		return &ServerError{Request: req, Message: string(msg)}
	default:
		return fmt.Errorf("adb server answered %s with status %q, want OKAY or FAIL", req, status[:])
	}
}

// readHostMessage reads one message framed by a 4-digit hex length, in full.
func readHostMessage(r io.Reader) ([]byte, error) {
	var hex [4]byte
	if _, err := io.ReadFull(r, hex[:]); err != nil {
		return nil, fmt.Errorf("reading a message length: %w", err)
	}
	n, err := strconv.ParseUint(string(hex[:]), 16, 32)
	if err != nil {
		return nil, fmt.Errorf("adb server sent a malformed message length %q", hex[:])
	}
	if n > maxHostMessage {
		return nil, fmt.Errorf("adb server message of %d bytes exceeds %d", n, maxHostMessage)
	}
	msg := make([]byte, n)
	if _, err := io.ReadFull(r, msg); err != nil {
		return nil, fmt.Errorf("reading a %d-byte message: %w", n, err)
	}
	return msg, nil
}
