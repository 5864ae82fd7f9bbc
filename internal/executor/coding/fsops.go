package coding

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// MaxFileBytes is the largest file read, edit and apply_patch load.
const MaxFileBytes = 32 << 20

// File operations go through an os.Root opened on the workspace when
// WorkspaceOnly is set: resolve's check names the problem, and the root
// enforces it at the moment of use, so a symlink swapped in between (or a
// ".." component) cannot lead outside. Without WorkspaceOnly they use the
// host paths.

// withRoot calls fn with the workspace root (nil when unconfined).
func (e *Executor) withRoot(fn func(root *os.Root) error) error {
	if !e.cfg.WorkspaceOnly {
		return fn(nil)
	}
	root, err := os.OpenRoot(e.workspace)
	if err != nil {
		return fmt.Errorf("open workspace: %w", err)
	}
	defer root.Close()
	return fn(root)
}

func (e *Executor) stat(t target) (fs.FileInfo, error) {
	var fi fs.FileInfo
	err := e.withRoot(func(root *os.Root) (err error) {
		if root == nil {
			fi, err = os.Stat(t.abs)
		} else {
			fi, err = root.Stat(t.name)
		}
		return err
	})
	return fi, err
}

// readFile reads a regular file of at most MaxFileBytes; FIFOs, devices and
// sockets are refused without blocking.
func (e *Executor) readFile(t target) ([]byte, error) {
	var data []byte
	err := e.withRoot(func(root *os.Root) error {
		var f *os.File
		var err error
		if root == nil {
			f, err = os.OpenFile(t.abs, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		} else {
			f, err = root.OpenFile(t.name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		}
		if err != nil {
			return err
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file (%s)", t.show, fi.Mode().Type())
		}
		if fi.Size() > MaxFileBytes {
			return fmt.Errorf("%s is %d bytes, more than the %d this tool loads", t.show, fi.Size(), MaxFileBytes)
		}
		data, err = io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
		if err == nil && len(data) > MaxFileBytes {
			return fmt.Errorf("%s grew past %d bytes while being read", t.show, MaxFileBytes)
		}
		return err
	})
	return data, err
}

// writeAtomic replaces the file with data (temp file + rename in the same
// directory), creating parent directories.
func (e *Executor) writeAtomic(t target, data []byte, mode os.FileMode) error {
	return e.withRoot(func(root *os.Root) error {
		name := t.abs
		if root != nil {
			name = t.name
		}
		dir := filepath.Dir(name)
		var b [6]byte
		rand.Read(b[:])
		tmp := filepath.Join(dir, "."+filepath.Base(name)+".tmp-"+hex.EncodeToString(b[:]))
		mkdirAll, openFile, rename, remove := os.MkdirAll, os.OpenFile, os.Rename, os.Remove
		if root != nil {
			mkdirAll, openFile, rename, remove = root.MkdirAll, root.OpenFile, root.Rename, root.Remove
		}
		if err := mkdirAll(dir, 0o755); err != nil {
			return err
		}
		f, err := openFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if err != nil {
			return err
		}
		_, werr := f.Write(data)
		serr := f.Sync()
		cerr := f.Close()
		if err := errors.Join(werr, serr, cerr); err != nil {
			remove(tmp)
			return err
		}
		if err := rename(tmp, name); err != nil {
			remove(tmp)
			return err
		}
		return nil
	})
}

func (e *Executor) appendFile(t target, data []byte) error {
	return e.withRoot(func(root *os.Root) error {
		var f *os.File
		var err error
		if root == nil {
			if err = os.MkdirAll(filepath.Dir(t.abs), 0o755); err == nil {
				f, err = os.OpenFile(t.abs, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK, 0o644)
			}
		} else if err = root.MkdirAll(filepath.Dir(t.name), 0o755); err == nil {
			f, err = root.OpenFile(t.name, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK, 0o644)
		}
		if err != nil {
			return err
		}
		if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
			f.Close()
			return fmt.Errorf("%s is not a regular file", t.show)
		}
		_, werr := f.Write(data)
		return errors.Join(werr, f.Close())
	})
}

func (e *Executor) remove(t target) error {
	err := e.withRoot(func(root *os.Root) error {
		if root == nil {
			return os.Remove(t.abs)
		}
		return root.Remove(t.name)
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
