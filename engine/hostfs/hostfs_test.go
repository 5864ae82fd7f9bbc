package hostfs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// outsideFile stands for ~/.bashrc: a file outside the root that a link in
// the root points at.
func outsideFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), ".bashrc")
	if err := os.WriteFile(p, []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func assertUnchanged(t *testing.T, p string) {
	t.Helper()
	if b, err := os.ReadFile(p); err != nil || string(b) != "original\n" {
		t.Fatalf("file outside the root changed: %q, %v", b, err)
	}
}

func TestLinkAtTheFileIsRefusedForEveryOperation(t *testing.T) {
	root := t.TempDir()
	out := outsideFile(t)
	link := filepath.Join(root, "memory", "today.md")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, link); err != nil {
		t.Fatal(err)
	}
	ops := map[string]func() error{
		"append": func() error { f, err := OpenAppend(root, link, 0o644); closeIf(f); return err },
		"read":   func() error { _, err := ReadFile(root, link, 0); return err },
		"write":  func() error { return WriteFile(root, link, []byte("evil\n"), 0o644) },
		"create": func() error { f, err := CreateExcl(root, link, 0o644); closeIf(f); return err },
	}
	for name, op := range ops {
		err := op()
		if err == nil {
			t.Fatalf("%s through a link succeeded", name)
		}
		if name != "create" && !errors.Is(err, ErrLink) {
			t.Errorf("%s: %v, want ErrLink", name, err)
		}
		if !strings.Contains(err.Error(), link) {
			t.Errorf("%s: error %q does not name the file", name, err)
		}
		assertUnchanged(t, out)
	}
}

func closeIf(f *os.File) {
	if f != nil {
		f.Close()
	}
}

func TestLinkedDirectoryOutsideIsRefused(t *testing.T) {
	root := t.TempDir()
	outDir := t.TempDir()
	if err := os.Symlink(outDir, filepath.Join(root, "sessions")); err != nil {
		t.Fatal(err)
	}
	f, err := OpenAppend(root, filepath.Join(root, "sessions", "s.trace.jsonl"), 0o644)
	closeIf(f)
	if !errors.Is(err, ErrOutside) {
		t.Fatalf("append under a linked directory: %v, want ErrOutside", err)
	}
	if err := WriteFile(root, "sessions/x.json", []byte("{}"), 0o644); err == nil {
		t.Fatal("write under a linked directory succeeded")
	}
	if ents, _ := os.ReadDir(outDir); len(ents) != 0 {
		t.Fatalf("files appeared outside: %v", ents)
	}
	if _, err := ReadFile(root, "../x", 0); !errors.Is(err, ErrOutside) {
		t.Fatalf("read ../x: %v, want ErrOutside", err)
	}
}

func TestFIFOIsRefusedWithoutBlocking(t *testing.T) {
	root := t.TempDir()
	fifo := filepath.Join(root, "AGENTS.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 3)
	go func() {
		_, err := ReadFile(root, fifo, 0)
		done <- err
		f, err := OpenAppend(root, fifo, 0o644)
		closeIf(f)
		done <- err
		done <- WriteFile(root, fifo, []byte("x"), 0o644)
	}()
	for i := 0; i < 3; i++ {
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "FIFO") {
				t.Fatalf("op %d on a FIFO: %v, want ErrNotRegular naming a FIFO", i, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("an operation on a FIFO blocked")
		}
	}
}

func TestReadFileCapsTheSize(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "big"), make([]byte, 101), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(root, "big", 100); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("ReadFile over the cap: %v", err)
	}
	if b, err := ReadFile(root, "big", 101); err != nil || len(b) != 101 {
		t.Fatalf("ReadFile at the cap: %d, %v", len(b), err)
	}
}

func TestWritesAndAppendsWorkOnRegularFiles(t *testing.T) {
	root := t.TempDir()
	if err := WriteFile(root, "cron/jobs.json", []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(root, "cron/jobs.json", []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	if created, err := WriteNew(root, "cron/jobs.json", []byte("three"), 0o600); created || err != nil {
		t.Fatalf("WriteNew over an existing file = %v, %v", created, err)
	}
	if b, _ := ReadFile(root, "cron/jobs.json", 0); string(b) != "two" {
		t.Fatalf("content %q", b)
	}
	for i := 0; i < 2; i++ {
		f, err := OpenAppend(root, filepath.Join(root, "memory", "d.md"), 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("line\n")
		f.Close()
	}
	if b, _ := os.ReadFile(filepath.Join(root, "memory", "d.md")); string(b) != "line\nline\n" {
		t.Fatalf("appended %q", b)
	}
	ents, _ := os.ReadDir(filepath.Join(root, "cron"))
	if len(ents) != 1 {
		t.Fatalf("temporary files left: %v", ents)
	}
}

// TestSwappedLinkNeverLeaksOut swaps a regular file and a link to an
// outside file while appends run: nothing outside ever changes.
func TestSwappedLinkNeverLeaksOut(t *testing.T) {
	root := t.TempDir()
	out := outsideFile(t)
	p := filepath.Join(root, "today.md")
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-stop:
				return
			default:
			}
			os.Remove(p)
			os.Symlink(out, p)
			os.Remove(p)
			os.WriteFile(p, nil, 0o644)
		}
	}()
	for i := 0; i < 2000; i++ {
		if f, err := OpenAppend(root, p, 0o644); err == nil {
			f.WriteString("evil\n")
			f.Close()
		}
	}
	close(stop)
	<-stopped // before the temporary directory is removed: the swapper writes in it
	assertUnchanged(t, out)
}
