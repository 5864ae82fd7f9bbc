package policy

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"sync"
	"syscall"
	"time"
)

// The shell interpreter runs in the host process: a variable it builds
// (x=$x$x) or a file it writes through a redirection (echo "$x" >> f) is
// the host's memory and the host's write, out of reach of the sandbox's
// rlimits. These limits bound them as the Lua VM bounds its strings and
// heap.

// DefaultShellMemory is how far one script's interpreter may grow the host
// heap (variables, expansions, here-documents).
const DefaultShellMemory = 64 << 20

// MaxCallBytes bounds the expanded arguments of one command (builtins
// included), as the Lua VM's 16 MiB string limit bounds a string.
const MaxCallBytes = 16 << 20

// memoryPoll is how often the heap is sampled while scripts run (a var,
// guarded by watched.mu, only so a test can stop the poller and see the
// interpreter's own check).
var memoryPoll = 2 * time.Millisecond

// memoryCheckGap is the least time between the interpreter's own checks
// (a heap sample costs about a microsecond; a loop of builtins runs one
// command every few).
const memoryCheckGap = 50 * time.Microsecond

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}

var heapMu sync.Mutex

func heapBytes() int64 {
	heapMu.Lock()
	defer heapMu.Unlock()
	metrics.Read(heapSample)
	return int64(heapSample[0].Value.Uint64())
}

// shellWatch is one running script's memory watch.
type shellWatch struct {
	baseline, limit int64
	stop            context.CancelCauseFunc
}

var watched struct {
	mu      sync.Mutex
	runs    map[*shellWatch]struct{}
	running bool
}

// watchMemory cancels ctx with a *Violation when the heap grows past the
// sum of the limits of the scripts running (so runs that each stay within
// theirs never stop each other). The returned function ends the watch.
func watchMemory(ctx context.Context, limit int64) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	w := &shellWatch{baseline: heapBytes(), limit: limit, stop: cancel}
	watched.mu.Lock()
	if watched.runs == nil {
		watched.runs = map[*shellWatch]struct{}{}
	}
	watched.runs[w] = struct{}{}
	if !watched.running {
		watched.running = true
		go pollMemory(memoryPoll)
	}
	watched.mu.Unlock()
	return ctx, func() {
		watched.mu.Lock()
		delete(watched.runs, w)
		watched.mu.Unlock()
		cancel(nil)
	}
}

func pollMemory(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for range t.C {
		watched.mu.Lock()
		if len(watched.runs) == 0 {
			watched.running = false
			watched.mu.Unlock()
			return
		}
		watched.mu.Unlock()
		checkWatched()
	}
}

// checkWatched checks the running scripts' growth now. The interpreter
// calls it before every command besides the poller: on a loaded host the
// poller may not run for tens of milliseconds, or wait out its collection,
// while a loop keeps doubling a variable; a check on the interpreter's own
// goroutine stops the loop at its next command whatever the scheduling,
// and its collection runs while the script waits.
func checkWatched() {
	watched.mu.Lock()
	var budget int64
	ws := make([]*shellWatch, 0, len(watched.runs))
	for w := range watched.runs {
		ws = append(ws, w)
		budget += w.limit
	}
	watched.mu.Unlock()
	if len(ws) > 0 {
		checkMemory(ws, budget)
	}
}

// checkMemory stops the runs whose growth is over the budget. The sample
// counts garbage too; a collection decides before anything is stopped.
func checkMemory(ws []*shellWatch, budget int64) {
	heap := heapBytes()
	over := false
	for _, w := range ws {
		over = over || heap-w.baseline > budget
	}
	if !over {
		return
	}
	runtime.GC()
	heap = heapBytes()
	for _, w := range ws {
		if used := heap - w.baseline; used > budget {
			w.stop(&Violation{"limit:memory", fmt.Sprintf("memory limit exceeded: the script's shell grew the heap by %d MiB, the limit is %d MiB", used>>20, w.limit>>20)})
		}
	}
}

// checkCallSize refuses a command whose expanded arguments exceed
// MaxCallBytes.
func checkCallSize(args []string, line uint) *Violation {
	n := 0
	for _, a := range args {
		n += len(a)
	}
	if n > MaxCallBytes {
		return &Violation{"limit:size", fmt.Sprintf("command %q (line %d): its expanded arguments are %d bytes, the limit is %d bytes", args[0], line, n, MaxCallBytes)}
	}
	return nil
}

// cappedFile is a file opened for writing by a redirection: writes past
// the file size limit fail with EFBIG, as the kernel's RLIMIT_FSIZE fails a
// confined program's. The file is not embedded: *os.File's WriteString and
// ReadFrom, which io.WriteString and io.Copy prefer, would bypass Write.
// A program started with the redirection gets the *os.File itself (its
// own RLIMIT_FSIZE binds it), so the position is asked of the file on each
// write rather than counted here.
type cappedFile struct {
	f      *os.File
	append bool
	max    int64
}

var _ io.ReadWriteCloser = (*cappedFile)(nil)

func (f *cappedFile) Read(p []byte) (int, error) { return f.f.Read(p) }
func (f *cappedFile) Close() error               { return f.f.Close() }

func (f *cappedFile) offset() (int64, error) {
	if f.append {
		fi, err := f.f.Stat()
		if err != nil {
			return 0, err
		}
		return fi.Size(), nil
	}
	return f.f.Seek(0, io.SeekCurrent)
}

func (f *cappedFile) Write(p []byte) (int, error) {
	off, err := f.offset()
	if err != nil {
		return 0, err
	}
	room := f.max - off
	if room <= 0 {
		return 0, &os.PathError{Op: "write", Path: f.f.Name(), Err: syscall.EFBIG}
	}
	short := int64(len(p)) > room
	if short {
		p = p[:room]
	}
	n, err := f.f.Write(p)
	if err == nil && short {
		err = &os.PathError{Op: "write", Path: f.f.Name(), Err: syscall.EFBIG}
	}
	return n, err
}

// capWrites wraps a file opened with flag so its size stays within max.
func capWrites(f *os.File, flag int, max int64) io.ReadWriteCloser {
	if flag&(os.O_WRONLY|os.O_RDWR) == 0 {
		return f
	}
	return &cappedFile{f: f, append: flag&os.O_APPEND != 0, max: max}
}

// osFile hands a program the file behind a capped redirection, so its
// output goes to the file directly (bounded by its RLIMIT_FSIZE) rather
// than through the host.
func osFile(w io.Writer) io.Writer {
	if c, ok := w.(*cappedFile); ok {
		return c.f
	}
	return w
}
