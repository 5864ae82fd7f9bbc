package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
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

func TestWriteNewCreatesOnceAndKeepsTheFirst(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "config.json")
	created, err := WriteNew(path, []byte("first"), 0o600)
	if err != nil || !created {
		t.Fatalf("first WriteNew = %v, %v; want created", created, err)
	}
	created, err = WriteNew(path, []byte("second"), 0o600)
	if err != nil || created {
		t.Fatalf("second WriteNew = %v, %v; want kept, no error", created, err)
	}
	if b, _ := os.ReadFile(path); string(b) != "first" {
		t.Fatalf("content = %q; the existing file must never be overwritten", b)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode = %v", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

// TestWriteNewConcurrentCreatorsAgreeOnOneWinner: many processes racing to
// create the same file leave exactly one complete version.
func TestWriteNewConcurrentCreatorsAgreeOnOneWinner(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock.json")
	var wg sync.WaitGroup
	wins := make(chan string, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			body := strings.Repeat(string(rune('a'+i)), 4096)
			created, err := WriteNew(path, []byte(body), 0o644)
			if err != nil {
				t.Error(err)
			}
			if created {
				wins <- body
			}
		}(i)
	}
	wg.Wait()
	close(wins)
	var winners []string
	for w := range wins {
		winners = append(winners, w)
	}
	if len(winners) != 1 {
		t.Fatalf("%d creators won; want exactly 1", len(winners))
	}
	if b, _ := os.ReadFile(path); string(b) != winners[0] {
		t.Fatal("the file does not hold the winner's complete content")
	}
}
