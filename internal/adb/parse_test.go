package adb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseDevicesLong(t *testing.T) {
	// Lines as adb 29's host:devices-l prints them ("%-22s %s" then
	// key:value pairs), including transient and space-bearing states.
	list := "127.0.0.1:40001         device product:sdk_gphone model:Pixel_7 device:emu64a transport_id:3\n" +
		"127.0.0.1:40002         offline transport_id:4\n" +
		"emulator-5554          connecting transport_id:5\n" +
		"0123456789ABCDEF       no permissions (missing udev rules? user is in the plugdev group); see [http://developer.android.com/tools/device.html] usb:1-1 transport_id:6\n" +
		"(no serial number)     unauthorized usb:1-2 transport_id:7\n" +
		"\n"
	got := parseDevicesLong(list)
	want := []DeviceInfo{
		{Serial: "(no serial number)", State: "unauthorized"},
		{Serial: "0123456789ABCDEF", State: "no permissions (missing udev rules? user is in the plugdev group); see [http://developer.android.com/tools/device.html]"},
		{Serial: "127.0.0.1:40001", State: "device", Product: "sdk_gphone", Model: "Pixel_7", Device: "emu64a"},
		{Serial: "127.0.0.1:40002", State: "offline"},
		{Serial: "emulator-5554", State: "connecting"},
	}
	assert.Equal(t, want, got)
	// The short host:devices form (tab-separated) parses too.
	assert.Equal(t, []DeviceInfo{{Serial: "127.0.0.1:40002", State: "offline"}}, parseDevicesLong("127.0.0.1:40002\toffline\n"))
}

func shellPacket(id byte, data []byte) []byte {
	b := []byte{id, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(b[1:], uint32(len(data)))
	return append(b, data...)
}

func TestReadShellV2(t *testing.T) {
	var stream []byte
	stream = append(stream, shellPacket(idStdout, []byte("out"))...)
	stream = append(stream, shellPacket(idStderr, []byte("err"))...)
	stream = append(stream, shellPacket(idStdout, []byte("put"))...)
	stream = append(stream, shellPacket(idExit, []byte{7})...)
	res, err := readShellV2(bytes.NewReader(stream))
	require.NoError(t, err)
	assert.Equal(t, "output", string(res.Stdout))
	assert.Equal(t, "err", string(res.Stderr))
	assert.Equal(t, 7, res.ExitCode)

	_, err = readShellV2(bytes.NewReader(shellPacket(idStdout, []byte("cut"))))
	assert.True(t, errors.Is(err, io.ErrUnexpectedEOF), "a stream without an exit packet: %v", err)

	huge := []byte{idStdout, 0xff, 0xff, 0xff, 0xff}
	_, err = readShellV2(bytes.NewReader(huge))
	assert.ErrorContains(t, err, "expected at most", "a corrupt length is refused, not allocated")
}
