package adbd

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

const fakeBanner = "device::ro.product.name=fake;ro.product.model=Fake;ro.product.device=fake;features=shell_v2,cmd,stat_v2"

// fakePhone is a Handler with a handful of scripted commands and an
// in-memory file system, enough to exercise every protocol path.
type fakePhone struct {
	files *memFS

	mu        sync.Mutex
	cancelled int // commands that returned because their context ended
}

func newFakePhone() *fakePhone { return &fakePhone{files: newMemFS()} }

func (p *fakePhone) Banner() string    { return fakeBanner }
func (p *fakePhone) Files() FileSystem { return p.files }

func (p *fakePhone) cancelledCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cancelled
}

func (p *fakePhone) noteCancelled() {
	p.mu.Lock()
	p.cancelled++
	p.mu.Unlock()
}

// sharedPattern backs patternBytes so benchmarks do not measure its
// construction.
var sharedPattern = sync.OnceValue(func() []byte {
	b := make([]byte, 8<<20)
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	return b
})

// patternBytes is n deterministic, non-repeating-looking bytes (at most
// 8 MiB). The result is shared: callers must not modify it.
func patternBytes(n int) []byte { return sharedPattern()[:n:n] }

func writeString(w io.Writer, s string) { _, _ = io.WriteString(w, s) }

// Shell understands:
//
//	echo WORDS        WORDS and a newline on stdout
//	fail CODE MSG     MSG on stderr, exit CODE
//	mixed             "out" on stdout, "err" on stderr, exit 3
//	cat               stdin to stdout
//	pattern N         N deterministic bytes on stdout
//	lines N           N short lines, one write each
//	block             waits for cancellation
//	panic             panics
func (p *fakePhone) Shell(ctx context.Context, cmdline string, stdin io.Reader, stdout, stderr io.Writer) int {
	name, rest, _ := strings.Cut(cmdline, " ")
	switch name {
	case "echo":
		writeString(stdout, rest+"\n")
		return 0
	case "fail":
		codeText, msg, _ := strings.Cut(rest, " ")
		code, _ := strconv.Atoi(codeText)
		writeString(stderr, msg+"\n")
		return code
	case "mixed":
		writeString(stdout, "out\n")
		writeString(stderr, "err\n")
		return 3
	case "cat":
		if _, err := io.Copy(stdout, stdin); err != nil {
			return 1
		}
		return 0
	case "pattern":
		n, _ := strconv.Atoi(rest)
		if _, err := stdout.Write(patternBytes(n)); err != nil {
			return 1
		}
		return 0
	case "lines":
		n, _ := strconv.Atoi(rest)
		for i := range n {
			if _, err := fmt.Fprintf(stdout, "line %d\n", i); err != nil {
				return 1
			}
		}
		return 0
	case "block":
		<-ctx.Done()
		p.noteCancelled()
		return 130
	case "panic":
		panic("scripted panic")
	}
	writeString(stderr, "/system/bin/sh: "+name+": not found\n")
	return 127
}

// memFS is a flat in-memory FileSystem with implicit directories.
type memFS struct {
	mu    sync.Mutex
	files map[string]memFile
	dirs  map[string]bool
}

type memFile struct {
	data  []byte
	mode  fs.FileMode
	mtime time.Time
}

func newMemFS() *memFS {
	return &memFS{files: map[string]memFile{}, dirs: map[string]bool{"/": true, "/sdcard": true}}
}

func (m *memFS) Stat(p string) (FileInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if f, ok := m.files[p]; ok {
		return FileInfo{Name: path.Base(p), Mode: f.mode, Size: int64(len(f.data)), ModTime: f.mtime}, nil
	}
	if m.dirs[p] {
		return FileInfo{Name: path.Base(p), Mode: fs.ModeDir | 0o771, ModTime: time.Unix(1700000000, 0)}, nil
	}
	return FileInfo{}, &fs.PathError{Op: "stat", Path: p, Err: fs.ErrNotExist}
}

func (m *memFS) ReadDir(p string) ([]FileInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.dirs[p] {
		return nil, &fs.PathError{Op: "readdir", Path: p, Err: fs.ErrNotExist}
	}
	var out []FileInfo
	for name, f := range m.files {
		if path.Dir(name) == p {
			out = append(out, FileInfo{Name: path.Base(name), Mode: f.mode, Size: int64(len(f.data)), ModTime: f.mtime})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (m *memFS) ReadFile(p string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.files[p]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	return f.data, nil
}

func (m *memFS) WriteFile(p string, data []byte, mode fs.FileMode, mtime time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.dirs[path.Dir(p)] {
		return &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	m.files[p] = memFile{data: append([]byte(nil), data...), mode: mode, mtime: mtime}
	return nil
}
