package adb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func syncPacket(id string, payload []byte, length ...uint32) []byte {
	var b bytes.Buffer
	b.WriteString(id)
	n := uint32(len(payload))
	if len(length) > 0 {
		n = length[0]
	}
	binary.Write(&b, binary.LittleEndian, n)
	b.Write(payload)
	return b.Bytes()
}

// TestSyncFailMessagesAreReadInFull: a FAIL answer far over 255 bytes
// arrives whole, as a *SyncError.
func TestSyncFailMessagesAreReadInFull(t *testing.T) {
	msg := "remote open failed: " + strings.Repeat("x", 3000)
	_, _, _, err := readSyncPacket(bytes.NewReader(syncPacket("FAIL", []byte(msg))), "pull /sdcard/f")
	var se *SyncError
	require.True(t, errors.As(err, &se), "%v", err)
	assert.Equal(t, msg, se.Message)
	assert.Equal(t, "pull /sdcard/f: "+msg, err.Error())
}

func TestSyncPacketsData(t *testing.T) {
	chunk := bytes.Repeat([]byte{0xAB}, 64<<10)
	stream := append(syncPacket("DATA", chunk), syncPacket("DONE", nil)...)
	r := bytes.NewReader(stream)
	id, _, data, err := readSyncPacket(r, "pull")
	require.NoError(t, err)
	assert.Equal(t, "DATA", id)
	assert.Equal(t, chunk, data)
	id, _, _, err = readSyncPacket(r, "pull")
	require.NoError(t, err)
	assert.Equal(t, "DONE", id)
}

// TestSyncPacketsCorruptLengthsAndIDs: absurd lengths are refused without
// allocating, unknown ids and short streams are errors.
func TestSyncPacketsCorruptLengthsAndIDs(t *testing.T) {
	_, _, _, err := readSyncPacket(bytes.NewReader(syncPacket("DATA", nil, 0xFFFFFFFF)), "pull /x")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exceeds")
	_, _, _, err = readSyncPacket(bytes.NewReader(syncPacket("FAIL", nil, 1<<30)), "pull /x")
	assert.Contains(t, err.Error(), "exceeds")
	_, _, _, err = readSyncPacket(bytes.NewReader(syncPacket("WHAT", nil)), "pull /x")
	assert.Contains(t, err.Error(), `unexpected sync packet "WHAT"`)
	_, _, _, err = readSyncPacket(bytes.NewReader(syncPacket("DATA", []byte("abc"), 10)), "pull /x")
	assert.Contains(t, err.Error(), "reading a 10-byte DATA packet")
	_, _, _, err = readSyncPacket(bytes.NewReader([]byte("OK")), "pull /x")
	assert.Error(t, err)
}
