package android

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/openpocket/openpocket/internal/sim/adbd"
)

// bootTime is the fixed modification time of files the phone creates itself,
// so `ls -l` output is the same on every run.
var bootTime = time.Date(2024, time.January, 1, 12, 0, 0, 0, time.UTC)

// memFS is the phone's in-memory file system, shared by the shell commands
// and the adbd sync: service. It has its own lock so file transfers never
// wait for UI work and vice versa.
type memFS struct {
	mu      sync.Mutex
	entries map[string]*memEntry // cleaned absolute path → entry
}

type memEntry struct {
	mode    fs.FileMode
	data    []byte
	modTime time.Time
}

var _ adbd.FileSystem = (*memFS)(nil)

// initialDirs are the directories of a freshly booted phone.
var initialDirs = []string{
	"/", "/data", "/data/local", "/data/local/tmp", "/dev", "/sdcard", "/sdcard/DCIM",
	"/sdcard/Download", "/sdcard/Pictures", "/storage", "/system", "/system/bin",
}

func newMemFS() *memFS {
	m := &memFS{}
	m.reset()
	return m
}

func (m *memFS) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.entries = make(map[string]*memEntry)
	for _, dir := range initialDirs {
		m.entries[dir] = &memEntry{mode: fs.ModeDir | 0o771, modTime: bootTime}
	}
	for _, name := range commandNames() {
		m.entries["/system/bin/"+name] = &memEntry{mode: 0o755, modTime: bootTime}
	}
	m.entries["/system/bin/sh"] = &memEntry{mode: 0o755, modTime: bootTime}
}

// cleanPath makes p absolute and canonical; relative paths are relative to
// "/", the working directory of an adb shell.
func cleanPath(p string) string {
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return path.Clean(p)
}

func notExist(op, p string) error {
	return &fs.PathError{Op: op, Path: p, Err: fs.ErrNotExist}
}

// Stat describes the file or directory at p.
func (m *memFS) Stat(p string) (adbd.FileInfo, error) {
	p = cleanPath(p)
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[p]
	if !ok {
		return adbd.FileInfo{}, notExist("stat", p)
	}
	return e.info(path.Base(p)), nil
}

func (e *memEntry) info(name string) adbd.FileInfo {
	return adbd.FileInfo{Name: name, Mode: e.mode, Size: int64(len(e.data)), ModTime: e.modTime}
}

// ReadDir lists the directory at p sorted by name.
func (m *memFS) ReadDir(p string) ([]adbd.FileInfo, error) {
	p = cleanPath(p)
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[p]
	if !ok {
		return nil, notExist("readdir", p)
	}
	if !e.mode.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: p, Err: fmt.Errorf("not a directory")}
	}
	var out []adbd.FileInfo
	for child, ce := range m.entries {
		if child != "/" && path.Dir(child) == p {
			out = append(out, ce.info(path.Base(child)))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// ReadFile returns a copy of the file's content.
func (m *memFS) ReadFile(p string) ([]byte, error) {
	p = cleanPath(p)
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[p]
	if !ok {
		return nil, notExist("open", p)
	}
	if e.mode.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: p, Err: fmt.Errorf("is a directory")}
	}
	return append([]byte(nil), e.data...), nil
}

// WriteFile creates or replaces the file at p, creating missing parent
// directories the way adbd does for a push.
func (m *memFS) WriteFile(p string, data []byte, mode fs.FileMode, mtime time.Time) error {
	p = cleanPath(p)
	if p == "/" {
		return &fs.PathError{Op: "write", Path: p, Err: fmt.Errorf("is a directory")}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.entries[p]; ok && e.mode.IsDir() {
		return &fs.PathError{Op: "write", Path: p, Err: fmt.Errorf("is a directory")}
	}
	if err := m.mkdirAllLocked(path.Dir(p)); err != nil {
		return err
	}
	m.entries[p] = &memEntry{mode: mode.Perm(), data: append([]byte(nil), data...), modTime: mtime}
	return nil
}

// truncate empties p or creates it; unlike WriteFile the parent directory
// must exist, as for a shell `>` redirect.
func (m *memFS) truncate(p string) error {
	p = cleanPath(p)
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.entries[p]; ok {
		if e.mode.IsDir() {
			return &fs.PathError{Op: "open", Path: p, Err: fmt.Errorf("is a directory")}
		}
		e.data = nil
		return nil
	}
	if e, ok := m.entries[path.Dir(p)]; !ok || !e.mode.IsDir() {
		return notExist("open", p)
	}
	m.entries[p] = &memEntry{mode: 0o660, modTime: bootTime}
	return nil
}

// writeNew replaces p with data the way a shell command opening p for
// writing does: the parent directory must already exist.
func (m *memFS) writeNew(p string, data []byte) error {
	if err := m.truncate(p); err != nil {
		return err
	}
	return m.appendFile(p, data)
}

// appendFile appends data to p, creating it if needed (the `>>` redirect).
func (m *memFS) appendFile(p string, data []byte) error {
	p = cleanPath(p)
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[p]
	if !ok {
		if _, ok := m.entries[path.Dir(p)]; !ok {
			return notExist("open", p)
		}
		m.entries[p] = &memEntry{mode: 0o660, data: append([]byte(nil), data...), modTime: bootTime}
		return nil
	}
	if e.mode.IsDir() {
		return &fs.PathError{Op: "write", Path: p, Err: fmt.Errorf("is a directory")}
	}
	e.data = append(e.data, data...)
	return nil
}

func (m *memFS) mkdirAllLocked(p string) error {
	var missing []string
	for dir := p; ; dir = path.Dir(dir) {
		e, ok := m.entries[dir]
		if ok {
			if !e.mode.IsDir() {
				return &fs.PathError{Op: "mkdir", Path: dir, Err: fmt.Errorf("not a directory")}
			}
			break
		}
		missing = append(missing, dir)
	}
	for _, dir := range missing {
		m.entries[dir] = &memEntry{mode: fs.ModeDir | 0o771, modTime: bootTime}
	}
	return nil
}

// mkdir creates one directory (parents=false) or a whole chain (parents=true).
func (m *memFS) mkdir(p string, parents bool) error {
	p = cleanPath(p)
	m.mu.Lock()
	defer m.mu.Unlock()
	if parents {
		return m.mkdirAllLocked(p)
	}
	if _, ok := m.entries[p]; ok {
		return &fs.PathError{Op: "mkdir", Path: p, Err: fs.ErrExist}
	}
	if e, ok := m.entries[path.Dir(p)]; !ok || !e.mode.IsDir() {
		return notExist("mkdir", p)
	}
	m.entries[p] = &memEntry{mode: fs.ModeDir | 0o771, modTime: bootTime}
	return nil
}

// remove deletes p; a directory needs recursive=true.
func (m *memFS) remove(p string, recursive bool) error {
	p = cleanPath(p)
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[p]
	if !ok {
		return notExist("remove", p)
	}
	if p == "/" {
		return &fs.PathError{Op: "remove", Path: p, Err: fs.ErrPermission}
	}
	if e.mode.IsDir() {
		if !recursive {
			return &fs.PathError{Op: "remove", Path: p, Err: fmt.Errorf("is a directory")}
		}
		prefix := p + "/"
		for child := range m.entries {
			if strings.HasPrefix(child, prefix) {
				delete(m.entries, child)
			}
		}
	}
	delete(m.entries, p)
	return nil
}
