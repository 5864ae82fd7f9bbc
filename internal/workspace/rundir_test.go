package workspace

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCreateRunDirSameNameIsExclusive: runs started in the same second
// (same name) each get their own directory, also when racing.
func TestCreateRunDirSameNameIsExclusive(t *testing.T) {
	root := filepath.Join(t.TempDir(), "runs")
	const n = 20
	dirs := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := CreateRunDir(root, "20260501-080000-demo")
			assert.NoError(t, err)
			dirs[i] = d
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, d := range dirs {
		require.NotEmpty(t, d)
		assert.False(t, seen[d], "directory %s handed out twice", d)
		seen[d] = true
		st, err := os.Stat(d)
		require.NoError(t, err)
		assert.True(t, st.IsDir())
	}
	assert.True(t, seen[filepath.Join(root, "20260501-080000-demo")])
	assert.True(t, seen[filepath.Join(root, "20260501-080000-demo-20")])
}

func TestRunDirErrorsSayWhy(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file.txt")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	_, err := CreateRunDir(filepath.Join(file, "runs"), "r")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a file is in the way")

	err = CheckWritableDir(filepath.Join(file, "out"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a file is in the way")

	ok := filepath.Join(t.TempDir(), "new", "out")
	require.NoError(t, CheckWritableDir(ok))
	entries, err := os.ReadDir(ok)
	require.NoError(t, err)
	assert.Empty(t, entries, "the probe file is removed")
}
