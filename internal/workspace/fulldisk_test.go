package workspace

import (
	"errors"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/atomicfile"
)

// halfWriter writes half of each write, then fails like a full disk.
type halfWriter struct{ *os.File }

func (f halfWriter) Write(p []byte) (int, error) {
	n, _ := f.File.Write(p[:len(p)/2])
	return n, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
}

// TestDailyMemoryOnAFullDiskReportsAndKeepsWholeLines: the failed line is
// reported, the lines before it stay whole, and the next line follows
// them cleanly.
func TestDailyMemoryOnAFullDiskReportsAndKeepsWholeLines(t *testing.T) {
	h := openTestHome(t)
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	require.NoError(t, h.AppendDailyMemory(at, true, "p", "first task", "done"))
	before := readFile(t, h.DailyMemoryPath(at))

	real := openAppend
	openAppend = func(root, p string, perm os.FileMode) (atomicfile.AppendFile, error) {
		f, err := real(root, p, perm)
		if err != nil {
			return nil, err
		}
		return halfWriter{f.(*os.File)}, nil
	}
	err := h.AppendDailyMemory(at.Add(time.Minute), false, "p", "second task", "a result long enough to be torn")
	openAppend = real
	require.Error(t, err)
	assert.True(t, errors.Is(err, syscall.ENOSPC))
	assert.Contains(t, err.Error(), "daily memory line not saved to "+h.DailyMemoryPath(at))
	assert.Equal(t, before, readFile(t, h.DailyMemoryPath(at)), "a torn line was left behind")

	require.NoError(t, h.AppendDailyMemory(at.Add(2*time.Minute), true, "p", "third task", "ok"))
	assert.Equal(t, before+"- [09:02:00] [OK] [p] task: third task | result: ok\n", readFile(t, h.DailyMemoryPath(at)))
}
