package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fullDisk writes half of each write, then fails like a full disk.
type fullDisk struct{ *os.File }

func (f fullDisk) Write(p []byte) (int, error) {
	n, _ := f.File.Write(p[:len(p)/2])
	return n, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
}

func TestAppendCutsATornRecordBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	require.NoError(t, AppendPath(path, []byte(`{"step":1}`+"\n"), 0o644))

	real := OpenForAppend
	OpenForAppend = func(p string, perm os.FileMode) (AppendFile, error) {
		f, err := real(p, perm)
		if err != nil {
			return nil, err
		}
		return fullDisk{f.(*os.File)}, nil
	}
	err := AppendPath(path, []byte(`{"step":2,"result":"a long enough line"}`+"\n"), 0o644)
	OpenForAppend = real
	require.Error(t, err)
	assert.True(t, errors.Is(err, syscall.ENOSPC), "%v", err)

	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, `{"step":1}`+"\n", string(got), "the earlier record is whole and nothing torn follows it")

	require.NoError(t, AppendPath(path, []byte(`{"step":3}`+"\n"), 0o644))
	got, _ = os.ReadFile(path)
	assert.Equal(t, `{"step":1}`+"\n"+`{"step":3}`+"\n", string(got))
}
