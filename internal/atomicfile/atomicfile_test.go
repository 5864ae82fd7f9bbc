package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFileReplacesContentAndMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.json")
	if err := os.WriteFile(path, []byte("old content that is longer"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "new" {
		t.Fatalf("content = %q, want %q", got, "new")
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode = %v, want 0600", fi.Mode().Perm())
	}
	assertNoTempFiles(t, filepath.Dir(path))
}

func TestWriteFileCreatesParentDirectories(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "a", "b", "c.txt")
	if err := WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "x" {
		t.Fatalf("content = %q, want %q", got, "x")
	}
}

func TestWriteFileFailureKeepsOldContentAndCleansUp(t *testing.T) {
	dir := t.TempDir()
	// A non-empty directory at the target makes the final rename fail
	// (also as root, where permission tricks would not).
	path := filepath.Join(dir, "target")
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(path, "keep")
	if err := os.WriteFile(old, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(path, []byte("new"), 0o644)
	if err == nil {
		t.Fatal("WriteFile over a directory succeeded, want error")
	}
	if !strings.Contains(err.Error(), path) {
		t.Fatalf("error %q does not name the path %s", err, path)
	}
	got, rerr := os.ReadFile(old)
	if rerr != nil || string(got) != "old" {
		t.Fatalf("old content = %q, %v; want %q", got, rerr, "old")
	}
	assertNoTempFiles(t, dir)
}

func TestWriteFileParentIsFile(t *testing.T) {
	dir := t.TempDir()
	parent := filepath.Join(dir, "file")
	if err := os.WriteFile(parent, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(filepath.Join(parent, "child"), []byte("new"), 0o644); err == nil {
		t.Fatal("WriteFile under a regular file succeeded, want error")
	}
	got, err := os.ReadFile(parent)
	if err != nil || string(got) != "old" {
		t.Fatalf("parent content = %q, %v; want %q", got, err, "old")
	}
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}
