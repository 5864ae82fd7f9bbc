package coding

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/action"
)

func newTestExecutor(t *testing.T, mutate ...func(*Config)) (*Executor, string) {
	t.Helper()
	ws := t.TempDir()
	cfg := DefaultConfig()
	for _, m := range mutate {
		m(&cfg)
	}
	e := New(ws, cfg)
	t.Cleanup(func() { e.Close() })
	return e, ws
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func act(typ string, kv ...any) action.Action {
	a := action.Action{Type: typ, Params: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		a.Params[kv[i].(string)] = kv[i+1]
	}
	return a
}

func TestPathEscapesRefused(t *testing.T) {
	e, ws := newTestExecutor(t)
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "secret.txt"), "top secret\n")
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(ws, "link.txt")))
	require.NoError(t, os.Symlink(outside, filepath.Join(ws, "linkdir")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "not-yet.txt"), filepath.Join(ws, "dangling.txt")))
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "a"), 0o755))

	for _, p := range []string{
		"../secret.txt",
		"a/../../secret.txt",
		filepath.Join(outside, "secret.txt"),
		"/etc/passwd",
		"link.txt",                // the file itself is a symlink out
		"linkdir/secret.txt",      // a parent is a symlink out
		"linkdir/new/file.txt",    // …also for files that do not exist yet
		"dangling.txt",            // a dangling symlink pointing out
		"a/../linkdir/secret.txt", // symlink after lexical cleaning
	} {
		t.Run(p, func(t *testing.T) {
			_, err := e.Read(p, 1, 10)
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrOutsideWorkspace), "read %q: %v", p, err)
			_, err = e.Write(p, "pwned\n", false)
			assert.True(t, errors.Is(err, ErrOutsideWorkspace), "write %q: %v", p, err)
			_, err = e.Edit(p, "top", "pwned", false)
			assert.True(t, errors.Is(err, ErrOutsideWorkspace), "edit %q: %v", p, err)

			out, err := e.Execute(context.Background(), act("read", "path", p, "from", 1, "lines", 10))
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(out, "read failed: path "), out)
			assert.Contains(t, out, "outside the workspace")
		})
	}
	data, err := os.ReadFile(filepath.Join(outside, "secret.txt"))
	require.NoError(t, err)
	assert.Equal(t, "top secret\n", string(data), "nothing outside may change")
	assert.NoFileExists(t, filepath.Join(outside, "not-yet.txt"))
	assert.NoDirExists(t, filepath.Join(outside, "new"))
}

func TestSymlinkInsideWorkspaceAllowed(t *testing.T) {
	e, ws := newTestExecutor(t)
	writeFile(t, filepath.Join(ws, "real", "f.txt"), "x\n")
	require.NoError(t, os.Symlink(filepath.Join(ws, "real"), filepath.Join(ws, "alias")))
	r, err := e.Read("alias/f.txt", 1, 10)
	require.NoError(t, err)
	assert.Equal(t, "real/f.txt", r.Path)
	// An absolute path inside the workspace is fine.
	_, err = e.Read(filepath.Join(ws, "real", "f.txt"), 1, 1)
	require.NoError(t, err)
}

func TestWorkspaceOnlyOff(t *testing.T) {
	e, _ := newTestExecutor(t, func(c *Config) { c.WorkspaceOnly = false })
	outside := filepath.Join(t.TempDir(), "o.txt")
	writeFile(t, outside, "ok\n")
	r, err := e.Read(outside, 1, 5)
	require.NoError(t, err)
	assert.Equal(t, "ok\n", r.Content)
	assert.Equal(t, outside, r.Path)
}

func TestRead(t *testing.T) {
	e, ws := newTestExecutor(t)
	var b strings.Builder
	for i := 1; i <= 1500; i++ {
		b.WriteString("line " + strings.Repeat("x", i%3) + "\n")
	}
	writeFile(t, filepath.Join(ws, "big.txt"), b.String())
	writeFile(t, filepath.Join(ws, "small.txt"), "one\ntwo\nthree")
	writeFile(t, filepath.Join(ws, "empty.txt"), "")

	out, err := e.Execute(context.Background(), act("read", "path", "small.txt", "from", 2, "lines", 200))
	require.NoError(t, err)
	assert.Equal(t, "read path=small.txt from=2 lines=2 totalLines=3\ntwo\nthree", out)

	r, err := e.Read("big.txt", 1, 5000)
	require.NoError(t, err)
	assert.Equal(t, 1000, r.Lines, "lines are capped at 1000")
	assert.Equal(t, 1500, r.TotalLines)

	r, err = e.Read("big.txt", 1, 0)
	require.NoError(t, err)
	assert.Equal(t, 200, r.Lines, "default 200 lines")

	out, _ = e.Execute(context.Background(), act("read", "path", "small.txt", "from", 9))
	assert.Equal(t, "read path=small.txt from=9 lines=0 totalLines=3\n(no lines: from=9 is past the end of the file)", out)
	out, _ = e.Execute(context.Background(), act("read", "path", "empty.txt"))
	assert.Equal(t, "read path=empty.txt from=1 lines=0 totalLines=0\n(empty file)", out)
	out, _ = e.Execute(context.Background(), act("read", "path", "missing.txt"))
	assert.Equal(t, "read failed: missing.txt does not exist", out)

	small, _ := newTestExecutor(t, func(c *Config) { c.MaxOutputChars = 5 })
	writeFile(t, filepath.Join(small.workspace, "f.txt"), "0123456789\n")
	r, err = small.Read("f.txt", 1, 10)
	require.NoError(t, err)
	assert.Equal(t, "01234...[truncated]", r.Content)
}

func TestWrite(t *testing.T) {
	e, ws := newTestExecutor(t)
	out, err := e.Execute(context.Background(), act("write", "path", "deep/dir/f.txt", "content", "a\n", "append", false))
	require.NoError(t, err)
	assert.Equal(t, "write path=deep/dir/f.txt bytes=2 append=false created=true", out)
	out, _ = e.Execute(context.Background(), act("write", "path", "deep/dir/f.txt", "content", "b\n", "append", true))
	assert.Equal(t, "write path=deep/dir/f.txt bytes=2 append=true", out)
	data, _ := os.ReadFile(filepath.Join(ws, "deep/dir/f.txt"))
	assert.Equal(t, "a\nb\n", string(data))

	_, err = e.Write("deep/dir/f.txt", "replaced", false)
	require.NoError(t, err)
	data, _ = os.ReadFile(filepath.Join(ws, "deep/dir/f.txt"))
	assert.Equal(t, "replaced", string(data))

	_, err = e.Write("new/appended.txt", "x", true)
	require.NoError(t, err, "append creates the file and its parents")

	out, _ = e.Execute(context.Background(), act("write", "path", "deep", "content", "x"))
	assert.Equal(t, "write failed: deep is a directory", out)
}

func TestEdit(t *testing.T) {
	e, ws := newTestExecutor(t)
	p := filepath.Join(ws, "f.txt")
	writeFile(t, p, "a b a b a\n")
	require.NoError(t, os.Chmod(p, 0o600))

	out, err := e.Execute(context.Background(), act("edit", "path", "f.txt", "find", "a", "replace", "X", "replaceAll", false))
	require.NoError(t, err)
	assert.Equal(t, "edit path=f.txt replacements=1", out)
	data, _ := os.ReadFile(p)
	assert.Equal(t, "X b a b a\n", string(data))

	r, err := e.Edit("f.txt", "a", "Y", true)
	require.NoError(t, err)
	assert.Equal(t, 2, r.Replacements)
	data, _ = os.ReadFile(p)
	assert.Equal(t, "X b Y b Y\n", string(data))
	fi, _ := os.Stat(p)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "mode kept")

	out, _ = e.Execute(context.Background(), act("edit", "path", "f.txt", "find", "zzz", "replace", "q"))
	assert.Equal(t, "edit failed: edit f.txt: find text not found (read the file and copy the text exactly)", out)
	out, _ = e.Execute(context.Background(), act("edit", "path", "f.txt", "find", "", "replace", "q"))
	assert.Equal(t, "edit failed: edit f.txt: find is empty", out)
	data, _ = os.ReadFile(p)
	assert.Equal(t, "X b Y b Y\n", string(data), "failed edits leave the file alone")
}
