package atomicfile

import (
	"fmt"
	"io"
	"os"
)

// AppendFile is what Append needs of an append-only record file (an
// *os.File opened with O_APPEND).
type AppendFile interface {
	io.Writer
	Sync() error
	Truncate(size int64) error
	Stat() (os.FileInfo, error)
}

// OpenForAppend opens path for appending records, creating it. Tests
// replace it to inject write failures (a full disk) and restore it after.
var OpenForAppend = func(path string, perm os.FileMode) (AppendFile, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, perm)
}

// Append adds one record to a file that is itself the record (a trace, a
// session log, a memory file): the bytes are written and fsynced, and if
// either fails — a full disk mid-write — the file is cut back to its
// previous length, so what was written before stays whole and no torn
// record is left for the next append to follow.
func Append(f AppendFile, data []byte) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		return nil
	}
	if terr := f.Truncate(size); terr != nil {
		return fmt.Errorf("%w; and cutting the partial record back failed too: %v", err, terr)
	}
	_ = f.Sync()
	return err
}

// AppendPath opens path (creating it) with OpenForAppend, appends data
// with Append and closes it.
func AppendPath(path string, data []byte, perm os.FileMode) error {
	f, err := OpenForAppend(path, perm)
	if err != nil {
		return err
	}
	err = Append(f, data)
	if c, ok := f.(io.Closer); ok {
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	return err
}
