package adbd

import (
	"encoding/binary"
	"fmt"
)

// Command words of the adb transport protocol: the four ASCII letters read
// as a little-endian uint32.
const (
	cmdCNXN uint32 = 0x4e584e43 // "CNXN"
	cmdOPEN uint32 = 0x4e45504f // "OPEN"
	cmdOKAY uint32 = 0x59414b4f // "OKAY"
	cmdWRTE uint32 = 0x45545257 // "WRTE"
	cmdCLSE uint32 = 0x45534c43 // "CLSE"
	cmdAUTH uint32 = 0x48545541 // "AUTH"
	cmdSYNC uint32 = 0x434e5953 // "SYNC", obsolete, never sent by adb 29
)

const (
	// ProtocolVersion is the transport version this server announces:
	// checksums optional, no delayed acknowledgements, so every WRTE waits
	// for an OKAY.
	ProtocolVersion uint32 = 0x01000001
	// protocolVersionSkipChecksum is the first version whose peers may send
	// a zero checksum; packets from older hosts are still verified.
	protocolVersionSkipChecksum uint32 = 0x01000001
	// MaxPayload is the largest packet payload this server accepts and the
	// ceiling of the maxdata it negotiates. 256 KiB is what adbd uses for
	// TCP transports and keeps a 5 MB pull down to ~20 round trips.
	MaxPayload = 256 * 1024
	// headerSize is the fixed size of a packet header.
	headerSize = 24
)

// header is one decoded packet header.
type header struct {
	command  uint32
	arg0     uint32
	arg1     uint32
	length   uint32
	checksum uint32
	magic    uint32
}

// commandName renders a command word for logs ("WRTE", or hex when it is
// not printable).
func commandName(cmd uint32) string {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], cmd)
	for _, c := range b {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return fmt.Sprintf("0x%08x", cmd)
		}
	}
	return string(b[:])
}

// encodeHeader fills buf with the header of a packet carrying data.
func encodeHeader(buf *[headerSize]byte, command, arg0, arg1 uint32, data []byte) {
	binary.LittleEndian.PutUint32(buf[0:], command)
	binary.LittleEndian.PutUint32(buf[4:], arg0)
	binary.LittleEndian.PutUint32(buf[8:], arg1)
	binary.LittleEndian.PutUint32(buf[12:], uint32(len(data)))
	binary.LittleEndian.PutUint32(buf[16:], checksum(data))
	binary.LittleEndian.PutUint32(buf[20:], command^0xffffffff)
}

// decodeHeader parses and validates a header: the magic must mirror the
// command and the payload must fit the negotiated maximum.
func decodeHeader(buf *[headerSize]byte, maxPayload int) (header, error) {
	h := header{
		command:  binary.LittleEndian.Uint32(buf[0:]),
		arg0:     binary.LittleEndian.Uint32(buf[4:]),
		arg1:     binary.LittleEndian.Uint32(buf[8:]),
		length:   binary.LittleEndian.Uint32(buf[12:]),
		checksum: binary.LittleEndian.Uint32(buf[16:]),
		magic:    binary.LittleEndian.Uint32(buf[20:]),
	}
	if h.magic != h.command^0xffffffff {
		return h, fmt.Errorf("bad magic 0x%08x for command %s", h.magic, commandName(h.command))
	}
	if int64(h.length) > int64(maxPayload) {
		return h, fmt.Errorf("%s payload of %d bytes exceeds maximum %d", commandName(h.command), h.length, maxPayload)
	}
	return h, nil
}

// checksum is the legacy "crc32" of the protocol, which is really the sum of
// all payload bytes. It is summed eight bytes at a time: the byte lanes of a
// word are added pairwise into 16-bit lanes that cannot overflow for a
// MaxPayload-sized packet.
func checksum(data []byte) uint32 {
	const lowBytes = 0x00ff00ff00ff00ff
	var lanes uint64 // four 16-bit partial sums, folded into total periodically
	var total uint32
	i := 0
	for ; i+8 <= len(data); i += 8 {
		w := binary.LittleEndian.Uint64(data[i:])
		lanes += (w & lowBytes) + ((w >> 8) & lowBytes)
		// Each 16-bit lane grows by at most 510 per word; fold before
		// 128 words so no lane exceeds 65535.
		if i&(127*8) == 127*8 {
			total += foldLanes(lanes)
			lanes = 0
		}
	}
	total += foldLanes(lanes)
	for ; i < len(data); i++ {
		total += uint32(data[i])
	}
	return total
}

// foldLanes adds the four 16-bit lanes of v.
func foldLanes(v uint64) uint32 {
	return uint32(v&0xffff) + uint32(v>>16&0xffff) + uint32(v>>32&0xffff) + uint32(v>>48&0xffff)
}
