package adbd

import (
	"context"
	"io"
	"io/fs"
	"time"
)

// Handler is the simulated Android behind the protocol: the adbd server turns
// streams into calls on it. internal/sim/android implements it.
type Handler interface {
	// Banner is the CNXN payload, e.g.
	// "device::ro.product.name=sdk;ro.product.model=OpenPocket Virtual;ro.product.device=vphone;features=shell_v2,cmd,stat_v2".
	Banner() string
	// Shell runs one command line the way /system/bin/sh on the device would
	// and returns its exit code. stdin is empty for non-interactive services.
	Shell(ctx context.Context, cmdline string, stdin io.Reader, stdout, stderr io.Writer) int
	// Files is the device file system the sync: service reads and writes.
	Files() FileSystem
}

// FileSystem is the device file system as the sync: service needs it.
// Missing paths return errors wrapping fs.ErrNotExist.
type FileSystem interface {
	Stat(path string) (FileInfo, error)
	ReadDir(path string) ([]FileInfo, error)
	ReadFile(path string) ([]byte, error)
	WriteFile(path string, data []byte, mode fs.FileMode, mtime time.Time) error
}

// FileInfo describes one file; Mode carries fs.ModeDir for directories.
type FileInfo struct {
	Name    string
	Mode    fs.FileMode
	Size    int64
	ModTime time.Time
}
