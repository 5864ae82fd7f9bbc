package adb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Sync protocol limits: adbd sends file data in chunks of at most
// SYNC_DATA_MAX (64 KiB); a FAIL message is a short text. The bounds keep
// a corrupt length from allocating gigabytes (or panicking on a negative
// one), and anything under them is read in full.
const (
	maxSyncData    = 1 << 20
	maxSyncMessage = 1 << 16
)

// SyncError is a FAIL answer of the sync service, with its full message.
type SyncError struct {
	Op      string // "push /sdcard/x", "pull /sdcard/x"
	Message string
}

func (e *SyncError) Error() string { return fmt.Sprintf("%s: %s", e.Op, e.Message) }

// readSyncPacket reads one sync packet: a 4-byte id and a little-endian
// 32-bit length, followed (for DATA and FAIL) by that many bytes. For
// OKAY and DONE the length carries no payload and is returned as is.
func readSyncPacket(r io.Reader, op string) (id string, length uint32, data []byte, err error) {
	var hdr [8]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return "", 0, nil, err
	}
	id, length = string(hdr[:4]), binary.LittleEndian.Uint32(hdr[4:])
	var limit uint32
	switch id {
	case "OKAY", "DONE":
		return id, length, nil, nil
	case "DATA":
		limit = maxSyncData
	case "FAIL":
		limit = maxSyncMessage
	default:
		return "", 0, nil, fmt.Errorf("%s: unexpected sync packet %q", op, id)
	}
	if length > limit {
		return "", 0, nil, fmt.Errorf("%s: sync %s packet of %d bytes exceeds %d", op, id, length, limit)
	}
	data = make([]byte, length)
	if _, err := io.ReadFull(r, data); err != nil {
		return "", 0, nil, fmt.Errorf("%s: reading a %d-byte %s packet: %w", op, length, id, err)
	}
	if id == "FAIL" {
		return id, length, nil, &SyncError{Op: op, Message: string(data)}
	}
	return id, length, data, nil
}
