package adbd

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"strconv"
	"strings"
	"time"
)

// Sync protocol ids: four ASCII letters read as a little-endian uint32.
const (
	syncSTAT uint32 = 0x54415453 // "STAT": lstat, v1 reply
	syncSTA2 uint32 = 0x32415453 // "STA2": stat, v2 reply
	syncLST2 uint32 = 0x3254534c // "LST2": lstat, v2 reply
	syncLIST uint32 = 0x5453494c // "LIST"
	syncSEND uint32 = 0x444e4553 // "SEND"
	syncRECV uint32 = 0x56434552 // "RECV"
	syncDENT uint32 = 0x544e4544 // "DENT"
	syncDONE uint32 = 0x454e4f44 // "DONE"
	syncDATA uint32 = 0x41544144 // "DATA"
	syncOKAY uint32 = 0x59414b4f // "OKAY"
	syncFAIL uint32 = 0x4c494146 // "FAIL"
	syncQUIT uint32 = 0x54495551 // "QUIT"
)

const (
	// syncDataMax is the largest DATA chunk either side may send.
	syncDataMax = 64 * 1024
	// syncPathMax is the longest path a request may carry.
	syncPathMax = 1024
	// syncDefaultMode applies when a SEND omits ",mode".
	syncDefaultMode = 0o644
)

// Linux errno values for STA2/LST2 replies: the host turns them into
// strerror() text, so they must be the device's numbering, not the host OS's.
const (
	errnoENOENT  = 2
	errnoEIO     = 5
	errnoEACCES  = 13
	errnoENOTDIR = 20
)

// Unix file type bits (st_mode) as the device reports them.
const (
	unixIFIFO  = 0o010000
	unixIFCHR  = 0o020000
	unixIFDIR  = 0o040000
	unixIFBLK  = 0o060000
	unixIFREG  = 0o100000
	unixIFLNK  = 0o120000
	unixIFSOCK = 0o140000
)

// syncSession is the state of one sync: stream. It runs on the connection's
// reader goroutine (see the package comment for why) and only ever queues
// its replies, so it never blocks there.
type syncSession struct {
	s     *stream
	files FileSystem

	buf []byte // received, not yet parsed
	off int    // parsed prefix of buf

	sending  bool // between SEND and DONE
	sendPath string
	sendMode fs.FileMode
	sendData []byte

	done bool // QUIT or a failure ended the session
}

func newSyncSession(s *stream, files FileSystem) *syncSession {
	return &syncSession{s: s, files: files}
}

// feed consumes one WRTE payload: requests may be split across packets or
// several may share one.
func (ss *syncSession) feed(data []byte) (ackNow bool) {
	if ss.done {
		return true
	}
	ss.buf = append(ss.buf, data...)
	for !ss.done && ss.step() {
	}
	// Keep only the incomplete tail, which is at most one DATA chunk.
	rest := copy(ss.buf, ss.buf[ss.off:])
	ss.buf, ss.off = ss.buf[:rest], 0
	if ss.done {
		ss.buf = nil
	}
	return true
}

// step handles one complete message and reports whether it found one.
func (ss *syncSession) step() bool {
	avail := ss.buf[ss.off:]
	if len(avail) < 8 {
		return false
	}
	id := binary.LittleEndian.Uint32(avail)
	arg := binary.LittleEndian.Uint32(avail[4:])
	if ss.sending {
		return ss.stepSend(id, arg, avail)
	}
	switch id {
	case syncQUIT:
		ss.off += 8
		ss.end()
		return false
	case syncSTAT, syncSTA2, syncLST2, syncLIST, syncSEND, syncRECV:
	default:
		ss.fail("unknown sync request " + strconv.Quote(string(avail[:4])))
		return false
	}
	if arg > syncPathMax {
		ss.fail("path too long")
		return false
	}
	if uint32(len(avail)-8) < arg {
		return false
	}
	path := string(avail[8 : 8+arg])
	ss.off += 8 + int(arg)
	switch id {
	case syncSTAT:
		ss.statV1(path)
	case syncSTA2, syncLST2:
		ss.statV2(id, path)
	case syncLIST:
		ss.list(path)
	case syncRECV:
		ss.recv(path)
	case syncSEND:
		ss.startSend(path)
	}
	return true
}

// stepSend handles the DATA chunks and the closing DONE of a SEND.
func (ss *syncSession) stepSend(id, arg uint32, avail []byte) bool {
	switch id {
	case syncDATA:
		if arg > syncDataMax {
			ss.fail("data chunk too large")
			return false
		}
		if uint32(len(avail)-8) < arg {
			return false
		}
		ss.sendData = append(ss.sendData, avail[8:8+arg]...)
		ss.off += 8 + int(arg)
		return true
	case syncDONE:
		ss.off += 8
		mtime := time.Unix(int64(arg), 0)
		if arg == 0 {
			mtime = time.Now()
		}
		err := ss.files.WriteFile(ss.sendPath, ss.sendData, ss.sendMode, mtime)
		ss.sending, ss.sendPath, ss.sendData = false, "", nil
		ss.s.conn.sendEnded(ss)
		if err != nil {
			ss.fail(failureText(err))
			return false
		}
		ss.reply(syncOKAY, 0)
		return true
	default:
		ss.fail("invalid data message " + strconv.Quote(string(avail[:4])))
		return false
	}
}

// startSend parses "path,mode" (the mode is decimal st_mode) and begins
// collecting DATA chunks.
func (ss *syncSession) startSend(spec string) {
	path, mode := spec, uint64(syncDefaultMode)
	if i := strings.LastIndexByte(spec, ','); i >= 0 {
		path = spec[:i]
		m, err := strconv.ParseUint(spec[i+1:], 10, 32)
		if err != nil {
			ss.fail("invalid file mode " + strconv.Quote(spec[i+1:]))
			return
		}
		mode = m
	}
	if path == "" {
		ss.fail("empty path")
		return
	}
	ss.sending, ss.sendPath, ss.sendMode = true, path, fs.FileMode(mode&0o777)
	ss.s.conn.sendBegan(ss)
}

func (ss *syncSession) statV1(path string) {
	var resp [16]byte
	binary.LittleEndian.PutUint32(resp[0:], syncSTAT)
	if fi, err := ss.files.Stat(path); err == nil {
		binary.LittleEndian.PutUint32(resp[4:], unixMode(fi.Mode))
		binary.LittleEndian.PutUint32(resp[8:], uint32(fi.Size))
		binary.LittleEndian.PutUint32(resp[12:], uint32(fi.ModTime.Unix()))
	} // a missing file is all zeros in v1
	ss.s.queue(resp[:])
}

func (ss *syncSession) statV2(id uint32, path string) {
	var resp [72]byte
	binary.LittleEndian.PutUint32(resp[0:], id)
	fi, err := ss.files.Stat(path)
	if err != nil {
		binary.LittleEndian.PutUint32(resp[4:], errnoOf(err))
		ss.s.queue(resp[:])
		return
	}
	// Layout: id, error, dev u64, ino u64, mode, nlink, uid, gid,
	// size u64, atime, mtime, ctime (i64 each).
	binary.LittleEndian.PutUint64(resp[16:], inodeOf(path))
	binary.LittleEndian.PutUint32(resp[24:], unixMode(fi.Mode))
	binary.LittleEndian.PutUint32(resp[28:], 1)
	binary.LittleEndian.PutUint64(resp[40:], uint64(fi.Size))
	t := uint64(fi.ModTime.Unix())
	binary.LittleEndian.PutUint64(resp[48:], t)
	binary.LittleEndian.PutUint64(resp[56:], t)
	binary.LittleEndian.PutUint64(resp[64:], t)
	ss.s.queue(resp[:])
}

// list replies DENT per entry, then DONE; a missing directory is just DONE,
// as on a real device.
func (ss *syncSession) list(path string) {
	entries, _ := ss.files.ReadDir(path)
	size := 20
	for _, e := range entries {
		size += 20 + len(e.Name)
	}
	resp := make([]byte, 0, size)
	for _, e := range entries {
		resp = binary.LittleEndian.AppendUint32(resp, syncDENT)
		resp = binary.LittleEndian.AppendUint32(resp, unixMode(e.Mode))
		resp = binary.LittleEndian.AppendUint32(resp, uint32(e.Size))
		resp = binary.LittleEndian.AppendUint32(resp, uint32(e.ModTime.Unix()))
		resp = binary.LittleEndian.AppendUint32(resp, uint32(len(e.Name)))
		resp = append(resp, e.Name...)
	}
	resp = binary.LittleEndian.AppendUint32(resp, syncDONE)
	resp = append(resp, make([]byte, 16)...)
	ss.s.queue(resp)
}

// recv replies the file as DATA chunks and DONE, or FAIL.
func (ss *syncSession) recv(path string) {
	data, err := ss.files.ReadFile(path)
	if err != nil {
		ss.fail(failureText(err))
		return
	}
	chunks := (len(data) + syncDataMax - 1) / syncDataMax
	headers := make([]byte, 8*(chunks+1))
	parts := make([][]byte, 0, 2*chunks+1)
	for i := range chunks {
		chunk := data[i*syncDataMax : min(len(data), (i+1)*syncDataMax)]
		h := headers[8*i : 8*i+8]
		binary.LittleEndian.PutUint32(h, syncDATA)
		binary.LittleEndian.PutUint32(h[4:], uint32(len(chunk)))
		parts = append(parts, h, chunk)
	}
	done := headers[8*chunks:]
	binary.LittleEndian.PutUint32(done, syncDONE)
	ss.s.queue(append(parts, done)...)
}

func (ss *syncSession) reply(id, arg uint32) {
	var resp [8]byte
	binary.LittleEndian.PutUint32(resp[0:], id)
	binary.LittleEndian.PutUint32(resp[4:], arg)
	ss.s.queue(resp[:])
}

// fail replies FAIL with msg and ends the session, as adbd does after any
// failure.
func (ss *syncSession) fail(msg string) {
	var head [8]byte
	binary.LittleEndian.PutUint32(head[0:], syncFAIL)
	binary.LittleEndian.PutUint32(head[4:], uint32(len(msg)))
	ss.s.queue(head[:], []byte(msg))
	ss.end()
}

func (ss *syncSession) end() {
	ss.done = true
	if ss.sending {
		ss.sending, ss.sendData = false, nil
		ss.s.conn.sendEnded(ss)
	}
	ss.s.finish()
}

// failureText is the FAIL message for err: strerror() wording for the
// common cases, which goadb matches on ("No such file or directory").
func failureText(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "No such file or directory"
	case errors.Is(err, fs.ErrPermission):
		return "Permission denied"
	}
	return err.Error()
}

func errnoOf(err error) uint32 {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errnoENOENT
	case errors.Is(err, fs.ErrPermission):
		return errnoEACCES
	case strings.Contains(err.Error(), "not a directory"):
		return errnoENOTDIR
	}
	return errnoEIO
}

// unixMode converts a Go file mode to st_mode bits.
func unixMode(m fs.FileMode) uint32 {
	mode := uint32(m.Perm())
	switch {
	case m.IsDir():
		mode |= unixIFDIR
	case m&fs.ModeSymlink != 0:
		mode |= unixIFLNK
	case m&fs.ModeCharDevice != 0:
		mode |= unixIFCHR
	case m&fs.ModeDevice != 0:
		mode |= unixIFBLK
	case m&fs.ModeNamedPipe != 0:
		mode |= unixIFIFO
	case m&fs.ModeSocket != 0:
		mode |= unixIFSOCK
	default:
		mode |= unixIFREG
	}
	return mode
}

// inodeOf gives each path a stable pseudo inode number (FNV-1a), since
// some clients compare inodes to detect identical files.
func inodeOf(path string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(path); i++ {
		h ^= uint64(path[i])
		h *= 1099511628211
	}
	return h
}
