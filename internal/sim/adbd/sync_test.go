package adbd

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncClient drives a sync: stream like adb push/pull do.
type syncClient struct {
	t       testing.TB
	s       *hostStream
	pending []byte // output received but not consumed
	split   int    // if > 0, requests are sent in WRTEs of this size
}

func openSync(t testing.TB, h *testHost) *syncClient {
	return &syncClient{t: t, s: h.open("sync:")}
}

func syncRequest(id uint32, arg uint32, body []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, id)
	b = binary.LittleEndian.AppendUint32(b, arg)
	return append(b, body...)
}

func (c *syncClient) send(b []byte) {
	step := len(b)
	if c.split > 0 {
		step = c.split
	}
	for len(b) > 0 {
		n := min(step, len(b), c.s.h.maxData)
		c.s.write(b[:n])
		b = b[n:]
	}
}

func (c *syncClient) read(n int) []byte {
	c.t.Helper()
	for len(c.pending) < n {
		select {
		case d := <-c.s.data:
			c.pending = append(c.pending, d...)
		case <-c.s.closed:
			for len(c.s.data) > 0 {
				c.pending = append(c.pending, <-c.s.data...)
			}
			if len(c.pending) < n {
				c.t.Fatalf("stream closed; wanted %d bytes, have %d", n, len(c.pending))
			}
		case <-time.After(10 * time.Second):
			c.t.Fatalf("timeout; wanted %d bytes, have %d", n, len(c.pending))
		}
	}
	out := c.pending[:n:n]
	c.pending = c.pending[n:]
	return out
}

func (c *syncClient) u32() uint32 { return binary.LittleEndian.Uint32(c.read(4)) }

// status reads an OKAY or a FAIL with its message.
func (c *syncClient) status() (ok bool, msg string) {
	id, n := c.u32(), c.u32()
	switch id {
	case syncOKAY:
		return true, ""
	case syncFAIL:
		return false, string(c.read(int(n)))
	}
	c.t.Fatalf("unexpected status %q", commandName(id))
	return false, ""
}

func (c *syncClient) push(path string, mode uint32, data []byte, mtime uint32) (bool, string) {
	var req []byte
	req = append(req, syncRequest(syncSEND, uint32(len(path)+len(",")+len(itoa(mode))), []byte(path+","+itoa(mode)))...)
	for off := 0; off < len(data); off += syncDataMax {
		chunk := data[off:min(len(data), off+syncDataMax)]
		req = append(req, syncRequest(syncDATA, uint32(len(chunk)), chunk)...)
	}
	req = append(req, syncRequest(syncDONE, mtime, nil)...)
	c.send(req)
	return c.status()
}

func itoa(v uint32) string {
	var b [10]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			return string(b[i:])
		}
	}
}

func (c *syncClient) pull(path string) ([]byte, bool, string) {
	c.send(syncRequest(syncRECV, uint32(len(path)), []byte(path)))
	var out []byte
	for {
		id, n := c.u32(), c.u32()
		switch id {
		case syncDATA:
			require.LessOrEqual(c.t, int(n), syncDataMax)
			out = append(out, c.read(int(n))...)
		case syncDONE:
			return out, true, ""
		case syncFAIL:
			return nil, false, string(c.read(int(n)))
		default:
			c.t.Fatalf("unexpected RECV reply %q", commandName(id))
		}
	}
}

func TestSyncPushThenPullIsByteIdentical(t *testing.T) {
	phone := newFakePhone()
	_, addr := startServer(t, phone)
	h := dialTestHost(t, addr, 1<<20)
	data := make([]byte, 5<<20+123)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	c := openSync(t, h)
	ok, msg := c.push("/sdcard/blob.bin", 0o100640, data, 1700000123)
	require.True(t, ok, msg)
	stored := phone.files.files["/sdcard/blob.bin"]
	assert.Equal(t, fs.FileMode(0o640), stored.mode)
	assert.Equal(t, int64(1700000123), stored.mtime.Unix())

	got, ok, msg := c.pull("/sdcard/blob.bin")
	require.True(t, ok, msg)
	assert.True(t, bytes.Equal(data, got), "pulled %d bytes differ from pushed %d", len(got), len(data))
}

func TestSyncRequestsSurviveAnySplit(t *testing.T) {
	phone := newFakePhone()
	_, addr := startServer(t, phone)
	h := dialTestHost(t, addr, 1<<20)
	for _, split := range []int{1, 5, 8, 9, 4093} {
		c := openSync(t, h)
		c.split = split
		// Byte-sized WRTEs cost a round trip each: keep those files small,
		// but cross a 64 KiB DATA chunk boundary with the largest split.
		data := patternBytes(min(70_000, 2000*split+100))
		ok, msg := c.push("/sdcard/split.bin", 0o644, data, 1)
		require.True(t, ok, "split %d: %s", split, msg)
		got, ok, _ := c.pull("/sdcard/split.bin")
		require.True(t, ok)
		assert.Equal(t, data, got, "split %d", split)
	}
}

func TestSyncSeveralRequestsInOneWRTE(t *testing.T) {
	phone := newFakePhone()
	phone.files.files["/sdcard/a"] = memFile{data: []byte("A"), mode: 0o644, mtime: time.Unix(5, 0)}
	_, addr := startServer(t, phone)
	h := dialTestHost(t, addr, 1<<20)
	c := openSync(t, h)
	batch := append(syncRequest(syncSTAT, 9, []byte("/sdcard/a")), syncRequest(syncRECV, 9, []byte("/sdcard/a"))...)
	c.send(batch)
	assert.Equal(t, syncSTAT, c.u32())
	assert.Equal(t, uint32(unixIFREG|0o644), c.u32())
	assert.Equal(t, uint32(1), c.u32())
	assert.Equal(t, uint32(5), c.u32())
	assert.Equal(t, syncDATA, c.u32())
	assert.Equal(t, uint32(1), c.u32())
	assert.Equal(t, "A", string(c.read(1)))
	assert.Equal(t, syncDONE, c.u32())
}

func TestSyncStatV1(t *testing.T) {
	phone := newFakePhone()
	phone.files.files["/sdcard/f.txt"] = memFile{data: []byte("hello"), mode: 0o600, mtime: time.Unix(1600000000, 0)}
	_, addr := startServer(t, phone)
	h := dialTestHost(t, addr, 1<<20)
	c := openSync(t, h)

	c.send(syncRequest(syncSTAT, 13, []byte("/sdcard/f.txt")))
	assert.Equal(t, []uint32{syncSTAT, unixIFREG | 0o600, 5, 1600000000}, []uint32{c.u32(), c.u32(), c.u32(), c.u32()})

	c.send(syncRequest(syncSTAT, 7, []byte("/sdcard")))
	assert.Equal(t, syncSTAT, c.u32())
	assert.Equal(t, uint32(unixIFDIR|0o771), c.u32())
	c.read(8)

	c.send(syncRequest(syncSTAT, 8, []byte("/missing")))
	assert.Equal(t, []uint32{syncSTAT, 0, 0, 0}, []uint32{c.u32(), c.u32(), c.u32(), c.u32()}, "v1 reports a missing file as zeros")
}

func TestSyncStatV2(t *testing.T) {
	phone := newFakePhone()
	phone.files.files["/sdcard/f.txt"] = memFile{data: []byte("hello"), mode: 0o644, mtime: time.Unix(1600000000, 0)}
	_, addr := startServer(t, phone)
	h := dialTestHost(t, addr, 1<<20)
	c := openSync(t, h)

	for _, id := range []uint32{syncSTA2, syncLST2} {
		c.send(syncRequest(id, 13, []byte("/sdcard/f.txt")))
		resp := c.read(72)
		le := binary.LittleEndian
		assert.Equal(t, id, le.Uint32(resp[0:]), "reply id echoes the request")
		assert.Equal(t, uint32(0), le.Uint32(resp[4:]), "error")
		assert.Equal(t, uint32(unixIFREG|0o644), le.Uint32(resp[24:]), "mode")
		assert.Equal(t, uint32(1), le.Uint32(resp[28:]), "nlink")
		assert.Equal(t, uint64(5), le.Uint64(resp[40:]), "size")
		assert.Equal(t, uint64(1600000000), le.Uint64(resp[56:]), "mtime")
	}
	c.send(syncRequest(syncSTA2, 8, []byte("/missing")))
	resp := c.read(72)
	assert.Equal(t, uint32(errnoENOENT), binary.LittleEndian.Uint32(resp[4:]))
}

func TestSyncList(t *testing.T) {
	phone := newFakePhone()
	phone.files.files["/sdcard/b.txt"] = memFile{data: []byte("bb"), mode: 0o644, mtime: time.Unix(2, 0)}
	phone.files.files["/sdcard/a.txt"] = memFile{data: []byte("a"), mode: 0o644, mtime: time.Unix(1, 0)}
	_, addr := startServer(t, phone)
	h := dialTestHost(t, addr, 1<<20)
	c := openSync(t, h)
	c.send(syncRequest(syncLIST, 7, []byte("/sdcard")))
	var names []string
	for {
		id, mode, size, mtime, n := c.u32(), c.u32(), c.u32(), c.u32(), c.u32()
		if id == syncDONE {
			assert.Zero(t, mode|size|mtime|n)
			break
		}
		require.Equal(t, syncDENT, id)
		name := string(c.read(int(n)))
		names = append(names, name)
		assert.Equal(t, uint32(unixIFREG|0o644), mode, name)
		assert.Equal(t, uint32(len(phone.files.files["/sdcard/"+name].data)), size, name)
	}
	assert.Equal(t, []string{"a.txt", "b.txt"}, names)

	c.send(syncRequest(syncLIST, 5, []byte("/nope")))
	assert.Equal(t, syncDONE, c.u32(), "a missing directory lists as empty")
}

func TestSyncFailuresReplyFAILAndEndTheSession(t *testing.T) {
	phone := newFakePhone()
	_, addr := startServer(t, phone)
	h := dialTestHost(t, addr, 1<<20)

	c := openSync(t, h)
	_, ok, msg := c.pull("/sdcard/none")
	assert.False(t, ok)
	assert.Equal(t, "No such file or directory", msg, "goadb matches this exact text")
	<-c.s.closed

	c = openSync(t, h)
	ok, msg = c.push("/no/such/dir/file", 0o644, []byte("x"), 1)
	assert.False(t, ok)
	assert.Equal(t, "No such file or directory", msg)

	c = openSync(t, h)
	c.send(syncRequest(wordOf("XXXX"), 0, nil))
	ok, msg = c.status()
	assert.False(t, ok)
	assert.Contains(t, msg, "unknown sync request")

	c = openSync(t, h)
	c.send(syncRequest(syncRECV, syncPathMax+1, nil))
	ok, msg = c.status()
	assert.False(t, ok)
	assert.Equal(t, "path too long", msg)

	c = openSync(t, h)
	c.send(append(syncRequest(syncSEND, 9, []byte("/sdcard/x")), syncRequest(syncDATA, syncDataMax+1, nil)...))
	ok, msg = c.status()
	assert.False(t, ok)
	assert.Equal(t, "data chunk too large", msg)
}

func TestSyncQuitClosesTheStream(t *testing.T) {
	_, addr := startServer(t, newFakePhone())
	h := dialTestHost(t, addr, 1<<20)
	c := openSync(t, h)
	c.send(syncRequest(syncQUIT, 0, nil))
	select {
	case <-c.s.closed:
	case <-time.After(10 * time.Second):
		t.Fatal("QUIT did not close the stream")
	}
}

func TestSyncPushIsVisibleToTheNextStreamImmediately(t *testing.T) {
	// goadb closes a push right after DONE without reading the OKAY and
	// then opens the next stream; the write must already have happened.
	phone := newFakePhone()
	_, addr := startServer(t, phone)
	h := dialTestHost(t, addr, 1<<20)
	for i := range 20 {
		c := openSync(t, h)
		content := []byte(itoa(uint32(i)))
		req := syncRequest(syncSEND, uint32(len("/sdcard/seq,420")), []byte("/sdcard/seq,420"))
		req = append(req, syncRequest(syncDATA, uint32(len(content)), content)...)
		req = append(req, syncRequest(syncDONE, 1, nil)...)
		h.writePacket(cmdWRTE, c.s.id, c.s.remote, req)
		c.s.close()
		got, ok, msg := openSync(t, h).pull("/sdcard/seq")
		require.True(t, ok, msg)
		require.Equal(t, string(content), string(got))
	}
}

func FuzzSyncSession(f *testing.F) {
	f.Add(syncRequest(syncSTAT, 7, []byte("/sdcard")))
	f.Add(append(syncRequest(syncSEND, 11, []byte("/sdcard/a,1")), syncRequest(syncDONE, 0, nil)...))
	f.Add(syncRequest(syncRECV, 3, []byte("/x/")))
	f.Add(syncRequest(syncLIST, 1, []byte("/")))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &conn{ctx: t.Context(), out: make(chan outPacket, 1), maxData: 4096, streams: map[uint32]*stream{}, sends: map[*syncSession]struct{}{}}
		s := newStream(c, 1, 1)
		ss := newSyncSession(s, newMemFS())
		for len(data) > 0 {
			n := min(len(data), 1+int(data[0])%64)
			ss.feed(data[:n])
			data = data[n:]
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if !ss.done {
			assert.LessOrEqual(t, len(ss.buf), 8+syncDataMax, "unparsed input must stay bounded")
		}
	})
}

// pushWithoutDone starts a push on a new sync stream and returns the bytes
// that would complete it.
func pushWithoutDone(t testing.TB, h *testHost, path string, content []byte) (*syncClient, []byte) {
	c := openSync(t, h)
	spec := path + ",420"
	req := syncRequest(syncSEND, uint32(len(spec)), []byte(spec))
	req = append(req, syncRequest(syncDATA, uint32(len(content)), content)...)
	c.send(req)
	return c, syncRequest(syncDONE, 1, nil)
}

// sendOpen sends OPEN without waiting for the answer.
func sendOpen(h *testHost, service string) *hostStream {
	h.mu.Lock()
	h.nextID++
	s := &hostStream{
		h: h, id: h.nextID,
		opened: make(chan struct{}), refused: make(chan struct{}), closed: make(chan struct{}),
		acks: make(chan struct{}, 16), data: make(chan []byte, 4096),
	}
	h.streams[s.id] = s
	h.mu.Unlock()
	h.writePacket(cmdOPEN, s.id, 0, append([]byte(service), 0))
	return s
}

func TestOpenDuringAPushWaitsForItsDone(t *testing.T) {
	phone := newFakePhone()
	_, addr := startServer(t, phone)
	h := dialTestHost(t, addr, 1<<20)
	echo := h.open("exec:cat") // opened before the push, so never held

	push, done := pushWithoutDone(t, h, "/sdcard/late", []byte("late data"))
	next := sendOpen(h, "sync:")
	// A round trip on the older stream shows the device is past the OPEN.
	echo.write([]byte("ping"))
	assert.Equal(t, "ping", string(echo.readN(4)))
	select {
	case <-next.opened:
		t.Fatal("a stream opened while a push was still between SEND and DONE")
	default:
	}

	push.send(done)
	ok, msg := push.status()
	require.True(t, ok, msg)
	select {
	case <-next.opened:
	case <-time.After(10 * time.Second):
		t.Fatal("held OPEN never answered")
	}
	got, ok, msg := (&syncClient{t: t, s: next}).pull("/sdcard/late")
	require.True(t, ok, msg)
	assert.Equal(t, "late data", string(got))
}

func TestStalledPushHoldsOpensOnlyForAWhile(t *testing.T) {
	defer func(old time.Duration) { maxOpenHold = old }(maxOpenHold)
	maxOpenHold = 50 * time.Millisecond
	_, addr := startServer(t, newFakePhone())
	h := dialTestHost(t, addr, 1<<20)
	pushWithoutDone(t, h, "/sdcard/stalled", []byte("x"))
	assert.Equal(t, "free\n", string(h.open("shell:echo free").readAll()))
}

func TestClosingAPushStreamReleasesHeldOpens(t *testing.T) {
	// With an hour-long hold, only the close can release the OPEN in time.
	defer func(old time.Duration) { maxOpenHold = old }(maxOpenHold)
	maxOpenHold = time.Hour
	_, addr := startServer(t, newFakePhone())
	h := dialTestHost(t, addr, 1<<20)
	push, _ := pushWithoutDone(t, h, "/sdcard/abandoned", []byte("x"))
	next := sendOpen(h, "shell:echo next")
	push.s.close()
	select {
	case <-next.opened:
	case <-time.After(10 * time.Second):
		t.Fatal("closing the push stream must release the held OPEN")
	}
	assert.Equal(t, "next\n", string(next.readAll()))
}
