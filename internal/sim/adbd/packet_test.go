package adbd

import (
	"context"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func wordOf(s string) uint32 { return binary.LittleEndian.Uint32([]byte(s)) }

func TestCommandWordsSpellTheirNames(t *testing.T) {
	for name, got := range map[string]uint32{
		"CNXN": cmdCNXN, "OPEN": cmdOPEN, "OKAY": cmdOKAY, "WRTE": cmdWRTE,
		"CLSE": cmdCLSE, "AUTH": cmdAUTH, "SYNC": cmdSYNC,
		"STAT": syncSTAT, "STA2": syncSTA2, "LST2": syncLST2, "LIST": syncLIST,
		"SEND": syncSEND, "RECV": syncRECV, "DENT": syncDENT, "DONE": syncDONE,
		"DATA": syncDATA, "FAIL": syncFAIL, "QUIT": syncQUIT,
	} {
		assert.Equal(t, wordOf(name), got, name)
		assert.Equal(t, name, commandName(got))
	}
	assert.Equal(t, "0x00000001", commandName(1))
}

func naiveSum(b []byte) uint32 {
	var s uint32
	for _, c := range b {
		s += uint32(c)
	}
	return s
}

func TestChecksumIsByteSum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 8, 9, 1023, 1024, 4096 + 3, MaxPayload} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		assert.Equal(t, naiveSum(b), checksum(b), "random, %d bytes", n)
		for i := range b {
			b[i] = 0xff // worst case for the 16-bit lanes
		}
		assert.Equal(t, naiveSum(b), checksum(b), "all 0xff, %d bytes", n)
	}
}

func TestHeaderRoundTrip(t *testing.T) {
	var buf [headerSize]byte
	payload := []byte("shell:ls\x00")
	encodeHeader(&buf, cmdOPEN, 7, 0, payload)
	h, err := decodeHeader(&buf, MaxPayload)
	require.NoError(t, err)
	assert.Equal(t, header{cmdOPEN, 7, 0, uint32(len(payload)), naiveSum(payload), cmdOPEN ^ 0xffffffff}, h)
}

func TestHeaderRejectsBadMagicAndOversizedPayload(t *testing.T) {
	var buf [headerSize]byte
	encodeHeader(&buf, cmdWRTE, 1, 2, make([]byte, 10))
	buf[20] ^= 1
	_, err := decodeHeader(&buf, MaxPayload)
	assert.ErrorContains(t, err, "bad magic")

	encodeHeader(&buf, cmdWRTE, 1, 2, nil)
	binary.LittleEndian.PutUint32(buf[12:], MaxPayload+1)
	_, err = decodeHeader(&buf, MaxPayload)
	assert.ErrorContains(t, err, "exceeds maximum")
}

func BenchmarkChecksum(b *testing.B) {
	data := patternBytes(MaxPayload)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		checksum(data)
	}
}

// TestShellV2InputRefusesHugeDeclaredLengths: a packet header declaring a
// length far beyond any real adb packet ends stdin instead of buffering
// toward it, and later input is dropped.
func TestShellV2InputRefusesHugeDeclaredLengths(t *testing.T) {
	stdin := newStdinPipe(context.Background(), func() {})
	in := &shellV2Input{stdin: stdin}
	hdr := []byte{shellIDStdin, 0xff, 0xff, 0xff, 0x7f} // ~2 GiB
	if !in.feed(hdr) {
		t.Fatal("a malformed packet must still be acknowledged")
	}
	for i := 0; i < 100; i++ {
		in.feed(make([]byte, 64<<10))
	}
	if len(in.buf) != 0 {
		t.Fatalf("buffered %d bytes after a malformed packet", len(in.buf))
	}
	b, err := io.ReadAll(stdin)
	require.NoError(t, err, "stdin is closed, not failed")
	assert.Empty(t, b)
}
