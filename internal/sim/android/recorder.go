package android

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// screenrecord: records until --time-limit (default and maximum 180 s, as
// on Android) or until interrupted (pkill -INT screenrecord, or the shell
// closing), then writes an MP4 whose header carries the elapsed duration
// and the screen size. The file has no frames — the virtual phone has no
// encoder — but it is a well-formed ISO BMFF container (ftyp, moov with
// mvhd/tkhd/mdhd durations, an empty sample table, mdat).

const maxRecordSeconds = 180

// recordings are the screenrecord processes running per phone.
var recordings sync.Map // *Phone → *recordSet

type recordSet struct {
	mu   sync.Mutex
	stop []chan struct{}
}

func (p *Phone) recordSet() *recordSet {
	v, _ := recordings.LoadOrStore(p, &recordSet{})
	return v.(*recordSet)
}

func cmdScreenrecord(ctx context.Context, p *Phone, c *cmdIO) int {
	limit := maxRecordSeconds
	var file string
	args := c.args[1:]
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "--time-limit":
			if i+1 >= len(args) {
				c.errorf("screenrecord: --time-limit needs a value")
				return 2
			}
			i++
			n, err := strconv.Atoi(args[i])
			if err != nil || n <= 0 || n > maxRecordSeconds {
				c.errorf("Time limit %s is out of range [1-%d]", args[i], maxRecordSeconds)
				return 2
			}
			limit = n
		case "--size", "--bit-rate", "--display-id", "--output-format":
			i++
		case "--verbose", "--bugreport", "--rotate":
		default:
			if strings.HasPrefix(a, "-") {
				c.errorf("Unknown option %s", a)
				return 2
			}
			file = a
		}
	}
	if file == "" {
		c.errorf("Must specify output file (see --help).")
		return 2
	}
	if !strings.HasSuffix(file, ".mp4") {
		c.errorf("screenrecord: only mp4 output is supported here, got %s", file)
		return 2
	}
	stop := make(chan struct{})
	set := p.recordSet()
	set.mu.Lock()
	set.stop = append(set.stop, stop)
	set.mu.Unlock()
	defer func() {
		set.mu.Lock()
		for i, s := range set.stop {
			if s == stop {
				set.stop = append(set.stop[:i], set.stop[i+1:]...)
				break
			}
		}
		set.mu.Unlock()
	}()
	start := time.Now()
	timer := time.NewTimer(time.Duration(limit) * time.Second)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-stop:
	case <-ctx.Done():
	}
	// The video holds at most the time limit, however late this goroutine
	// woke on a loaded machine: Android's encoder stops at the limit.
	elapsed := min(time.Since(start), time.Duration(limit)*time.Second)
	var w, h int
	p.locked(func() { w, h, _ = p.sizeLocked() })
	if err := p.fs.WriteFile(file, EncodeMP4(w, h, elapsed), 0o644, time.Now()); err != nil {
		c.errorf("screenrecord: %s: %v", file, errText(err))
		return 1
	}
	return 0
}

// cmdPkill supports `pkill [-INT|-2|-SIGINT] screenrecord`.
func cmdPkill(_ context.Context, p *Phone, c *cmdIO) int {
	rest := positional(c.args[1:])
	if len(rest) != 1 {
		c.errorf("usage: pkill [-SIGNAL] NAME")
		return 2
	}
	if rest[0] != "screenrecord" {
		return 1
	}
	set := p.recordSet()
	set.mu.Lock()
	defer set.mu.Unlock()
	if len(set.stop) == 0 {
		return 1 // no process matched
	}
	for _, s := range set.stop {
		close(s)
	}
	set.stop = nil
	return 0
}

// EncodeMP4 writes an MP4 container of the given size and duration with no
// samples: what the virtual phone's screenrecord produces.
func EncodeMP4(w, h int, d time.Duration) []byte {
	ms := uint32(d.Milliseconds())
	var out bytes.Buffer
	box(&out, "ftyp", []byte("isom"), u32(512), []byte("isomiso2avc1mp41"))
	matrix := cat(u32(0x00010000), u32(0), u32(0), u32(0), u32(0x00010000), u32(0), u32(0), u32(0), u32(0x40000000))
	mvhd := boxBytes("mvhd", u32(0), u32(0), u32(0), u32(1000), u32(ms), u32(0x00010000), u16(0x0100), make([]byte, 10), matrix, make([]byte, 24), u32(2))
	tkhd := boxBytes("tkhd", u32(3), u32(0), u32(0), u32(1), u32(0), u32(ms), make([]byte, 8), u16(0), u16(0), u16(0), u16(0), matrix, u32(uint32(w)<<16), u32(uint32(h)<<16))
	mdhd := boxBytes("mdhd", u32(0), u32(0), u32(0), u32(1000), u32(ms), u16(0x55c4), u16(0))
	hdlr := boxBytes("hdlr", u32(0), u32(0), []byte("vide"), make([]byte, 12), []byte("VideoHandle\x00"))
	vmhd := boxBytes("vmhd", u32(1), make([]byte, 8))
	dinf := boxBytes("dinf", boxBytes("dref", u32(0), u32(1), boxBytes("url ", u32(1))))
	stbl := boxBytes("stbl",
		boxBytes("stsd", u32(0), u32(0)), boxBytes("stts", u32(0), u32(0)), boxBytes("stsc", u32(0), u32(0)),
		boxBytes("stsz", u32(0), u32(0), u32(0)), boxBytes("stco", u32(0), u32(0)))
	trak := boxBytes("trak", tkhd, boxBytes("mdia", mdhd, hdlr, boxBytes("minf", vmhd, dinf, stbl)))
	box(&out, "moov", mvhd, trak)
	box(&out, "mdat")
	return out.Bytes()
}

func u32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }
func u16(v uint16) []byte { return binary.BigEndian.AppendUint16(nil, v) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func boxBytes(typ string, parts ...[]byte) []byte {
	var b bytes.Buffer
	box(&b, typ, parts...)
	return b.Bytes()
}

func box(b *bytes.Buffer, typ string, parts ...[]byte) {
	if len(typ) != 4 {
		panic(fmt.Sprintf("box type %q", typ))
	}
	body := cat(parts...)
	b.Write(u32(uint32(8 + len(body))))
	b.WriteString(typ)
	b.Write(body)
}
