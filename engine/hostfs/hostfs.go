// Package hostfs is the host's own file IO under a directory a model can
// write to (the workspace) or that holds the agent's state. A model that
// runs programs in the workspace can replace any file there with a
// symbolic link, a FIFO or a device; the host must then neither follow the
// link out (its appends would land in, say, ~/.bashrc), nor block on the
// FIFO, nor read without end. So every call here:
//
//   - resolves the path through an os.Root at the given root: no "..", no
//     absolute path and no symlink in a directory component leads out of
//     it, also when swapped in between a check and the use;
//   - refuses a symbolic link as the file itself (ErrLink), checked before
//     opening and again against the opened file's identity;
//   - opens non-blocking and refuses anything that is not a regular file
//     (ErrNotRegular), so a FIFO is an error at once, never a hang;
//   - caps what it reads (ErrTooLarge).
//
// Errors name the path and say what was expected.
package hostfs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// MaxRead is the default cap of ReadFile (maxBytes <= 0).
const MaxRead = 32 << 20

var (
	// ErrLink: the file is a symbolic link, which the host never follows.
	ErrLink = errors.New("is a symbolic link; the host never follows links here")
	// ErrNotRegular: the file is a FIFO, device, socket or directory.
	ErrNotRegular = errors.New("is not a regular file")
	// ErrTooLarge: the file is larger than the cap of the read.
	ErrTooLarge = errors.New("is larger than the limit")
	// ErrOutside: the path is not inside the root it must be under.
	ErrOutside = errors.New("is outside the directory it must be in")
)

// Error is a refused or failed operation on Path.
type Error struct {
	Op   string // "read", "append", "write", "create", …
	Path string // as given
	Root string
	Err  error
}

func (e *Error) Error() string {
	if errors.Is(e.Err, ErrLink) || errors.Is(e.Err, ErrOutside) {
		return fmt.Sprintf("%s %s: %v; expected a regular file inside %s", e.Op, e.Path, e.Err, e.Root)
	}
	return fmt.Sprintf("%s %s: %v", e.Op, e.Path, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// rel turns name (absolute, or relative to root) into a path relative to
// root; a lexical escape is ErrOutside (os.Root catches the rest).
func rel(root, name string) (string, error) {
	if !filepath.IsAbs(name) {
		name = filepath.Join(root, name)
	}
	r, err := filepath.Rel(filepath.Clean(root), filepath.Clean(name))
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", ErrOutside
	}
	return r, nil
}

// openRoot opens root and resolves name in it.
func openRoot(root, name string) (*os.Root, string, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, "", err
	}
	r, err := rel(root, name)
	if err != nil {
		return nil, "", err
	}
	rt, err := os.OpenRoot(root)
	if err != nil {
		return nil, "", err
	}
	return rt, r, nil
}

func wrap(op, root, name string, err error) error {
	if err == nil {
		return nil
	}
	var he *Error
	if errors.As(err, &he) {
		return err
	}
	if strings.Contains(err.Error(), "path escapes from parent") {
		err = fmt.Errorf("%w: %v", ErrOutside, err)
	}
	return &Error{Op: op, Path: name, Root: root, Err: err}
}

// kind describes a non-regular file's type for the error.
func kind(m fs.FileMode) error {
	switch {
	case m&fs.ModeSymlink != 0:
		return ErrLink
	case m&fs.ModeNamedPipe != 0:
		return fmt.Errorf("%w (a FIFO)", ErrNotRegular)
	case m&fs.ModeSocket != 0:
		return fmt.Errorf("%w (a socket)", ErrNotRegular)
	case m&fs.ModeDevice != 0:
		return fmt.Errorf("%w (a device)", ErrNotRegular)
	case m.IsDir():
		return fmt.Errorf("%w (a directory)", ErrNotRegular)
	case !m.IsRegular():
		return ErrNotRegular
	}
	return nil
}

// openIn opens rel in rt with flag: the name must be a regular file or
// (with O_CREATE) absent; a link or a non-regular file is refused, also
// one swapped in between the check and the open.
func openIn(rt *os.Root, r string, flag int, perm os.FileMode) (*os.File, error) {
	for attempt := 0; ; attempt++ {
		before, err := rt.Lstat(r)
		switch {
		case err == nil:
			if flag&os.O_EXCL != 0 {
				return nil, fs.ErrExist // whatever it is, even a link
			}
			if k := kind(before.Mode()); k != nil {
				return nil, k
			}
		case errors.Is(err, fs.ErrNotExist) && flag&os.O_CREATE != 0:
			// Created exclusively: O_EXCL never follows a link, so a link
			// planted meanwhile makes it fail and the loop look again.
			f, err := rt.OpenFile(r, flag|os.O_EXCL|syscall.O_NONBLOCK, perm)
			if errors.Is(err, fs.ErrExist) && flag&os.O_EXCL == 0 && attempt < 3 {
				continue
			}
			return f, err
		default:
			return nil, err
		}
		f, err := rt.OpenFile(r, (flag&^os.O_CREATE)|syscall.O_NONBLOCK|syscall.O_NOCTTY, perm)
		if err != nil {
			return nil, err
		}
		after, err := f.Stat()
		if err == nil {
			err = kind(after.Mode())
		}
		if err == nil && !os.SameFile(before, after) {
			err = ErrLink // swapped for a link (or another file) meanwhile
		}
		if err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	}
}

// Open opens name (absolute inside root, or relative to it) for reading.
func Open(root, name string) (*os.File, error) {
	rt, r, err := openRoot(root, name)
	if err != nil {
		return nil, wrap("open", root, name, err)
	}
	defer rt.Close()
	f, err := openIn(rt, r, os.O_RDONLY, 0)
	return f, wrap("open", root, name, err)
}

// ReadFile reads name (absolute inside root, or relative to it), at most
// maxBytes (MaxRead when <= 0); a larger file is ErrTooLarge.
func ReadFile(root, name string, maxBytes int64) ([]byte, error) {
	if maxBytes <= 0 {
		maxBytes = MaxRead
	}
	f, err := Open(root, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err != nil {
		return nil, wrap("read", root, name, err)
	}
	if int64(len(data)) > maxBytes {
		return nil, wrap("read", root, name, fmt.Errorf("%w of %d bytes", ErrTooLarge, maxBytes))
	}
	return data, nil
}

// OpenAppend opens name for appending, creating it (and its directories)
// when absent.
func OpenAppend(root, name string, perm os.FileMode) (*os.File, error) {
	return openWrite("append", root, name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, perm)
}

// CreateExcl creates name (and its directories) for appending; an
// existing file or link is fs.ErrExist.
func CreateExcl(root, name string, perm os.FileMode) (*os.File, error) {
	return openWrite("create", root, name, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, perm)
}

func openWrite(op, root, name string, flag int, perm os.FileMode) (*os.File, error) {
	rt, r, err := openRoot(root, name)
	if err != nil {
		return nil, wrap(op, root, name, err)
	}
	defer rt.Close()
	if err := mkdirParent(rt, r); err != nil {
		return nil, wrap(op, root, name, err)
	}
	f, err := openIn(rt, r, flag, perm)
	return f, wrap(op, root, name, err)
}

func mkdirParent(rt *os.Root, r string) error {
	if d := filepath.Dir(r); d != "." {
		return rt.MkdirAll(d, 0o755)
	}
	return nil
}

// MkdirAll creates the directory name and its parents inside root.
func MkdirAll(root, name string, perm os.FileMode) error {
	rt, r, err := openRoot(root, name)
	if err != nil {
		return wrap("mkdir", root, name, err)
	}
	defer rt.Close()
	if r == "." {
		return nil
	}
	return wrap("mkdir", root, name, rt.MkdirAll(r, perm))
}

// Remove removes the file name inside root (a link is removed itself,
// never its target).
func Remove(root, name string) error {
	rt, r, err := openRoot(root, name)
	if err != nil {
		return wrap("remove", root, name, err)
	}
	defer rt.Close()
	return wrap("remove", root, name, rt.Remove(r))
}

// Lstat describes name inside root without following a final link.
func Lstat(root, name string) (fs.FileInfo, error) {
	rt, r, err := openRoot(root, name)
	if err != nil {
		return nil, wrap("stat", root, name, err)
	}
	defer rt.Close()
	fi, err := rt.Lstat(r)
	return fi, wrap("stat", root, name, err)
}

// ReadDir lists the directory name inside root.
func ReadDir(root, name string) ([]fs.DirEntry, error) {
	rt, r, err := openRoot(root, name)
	if err != nil {
		return nil, wrap("list", root, name, err)
	}
	defer rt.Close()
	ents, err := fs.ReadDir(rt.FS(), filepath.ToSlash(r))
	return ents, wrap("list", root, name, err)
}

// WriteFile atomically replaces name with data: a temporary file in the
// same directory inside root, fsynced, renamed over it. An existing link
// or non-regular file at name is refused, not replaced.
func WriteFile(root, name string, data []byte, perm os.FileMode) error {
	return wrap("write", root, name, writeTemp(root, name, data, perm, false))
}

// WriteNew creates name with data only if nothing is there yet (the full
// content is linked into place, so readers never see a partial file);
// created is false, with no error, when something already was.
func WriteNew(root, name string, data []byte, perm os.FileMode) (created bool, err error) {
	err = writeTemp(root, name, data, perm, true)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	return err == nil, wrap("create", root, name, err)
}

func writeTemp(root, name string, data []byte, perm os.FileMode, onlyNew bool) (err error) {
	rt, r, err := openRoot(root, name)
	if err != nil {
		return err
	}
	defer rt.Close()
	if err := mkdirParent(rt, r); err != nil {
		return err
	}
	if fi, err := rt.Lstat(r); err == nil {
		if onlyNew {
			return fs.ErrExist
		}
		if k := kind(fi.Mode()); k != nil {
			return k
		}
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(filepath.Dir(r), "."+filepath.Base(r)+".tmp-"+hex.EncodeToString(rnd[:]))
	f, err := rt.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	defer rt.Remove(tmp) // a no-op once renamed or linked
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if onlyNew {
		return rt.Link(tmp, r)
	}
	return rt.Rename(tmp, r)
}

// ReadRegular reads a file at a place the user chose (a flag, the home's
// own skills): links are followed, but the file must be regular — opened
// non-blocking, so a FIFO is an error at once — and at most maxBytes
// (MaxRead when <= 0).
func ReadRegular(path string, maxBytes int64) ([]byte, error) {
	if maxBytes <= 0 {
		maxBytes = MaxRead
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err == nil {
		err = kind(fi.Mode())
	}
	if err == nil {
		var data []byte
		data, err = io.ReadAll(io.LimitReader(f, maxBytes+1))
		if err == nil && int64(len(data)) > maxBytes {
			err = fmt.Errorf("%w of %d bytes", ErrTooLarge, maxBytes)
		}
		if err == nil {
			return data, nil
		}
	}
	return nil, &Error{Op: "read", Path: path, Root: filepath.Dir(path), Err: err}
}

// Rename renames oldname to newname, both inside root (a link is moved
// itself, never followed).
func Rename(root, oldname, newname string) error {
	rt, r, err := openRoot(root, oldname)
	if err != nil {
		return wrap("rename", root, oldname, err)
	}
	defer rt.Close()
	n, err := rel(rt.Name(), newname)
	if err != nil {
		return wrap("rename", root, newname, err)
	}
	return wrap("rename", root, oldname, rt.Rename(r, n))
}

// Mkdir creates the directory name inside root; an existing one is
// fs.ErrExist.
func Mkdir(root, name string, perm os.FileMode) error {
	rt, r, err := openRoot(root, name)
	if err != nil {
		return wrap("mkdir", root, name, err)
	}
	defer rt.Close()
	return wrap("mkdir", root, name, rt.Mkdir(r, perm))
}
