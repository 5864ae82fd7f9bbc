package stdlib

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// errLeavesRoot marks an artifact path that would leave its directory.
var errLeavesRoot = errors.New("leaves the artifacts directory")

// writeArtifact writes data to name inside dir through an os.Root, so no
// "..", absolute path or symlink (also one swapped in meanwhile) leads out;
// an absolute name is accepted only when it lies inside dir. The write is
// atomic (temp file + rename). It returns the absolute path written.
func writeArtifact(dir, name string, data []byte) (string, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	rel := filepath.Clean(name)
	if filepath.IsAbs(rel) {
		if rel, err = filepath.Rel(abs, rel); err != nil {
			return "", fmt.Errorf("path %q %w %s", name, errLeavesRoot, abs)
		}
	}
	if rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("path %q %w %s", name, errLeavesRoot, abs)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return "", err
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return "", err
	}
	defer root.Close()
	if err := root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		return "", rootErr(name, abs, err)
	}
	var b [6]byte
	rand.Read(b[:])
	tmp := filepath.Join(filepath.Dir(rel), "."+filepath.Base(rel)+".tmp-"+hex.EncodeToString(b[:]))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", rootErr(name, abs, err)
	}
	_, werr := f.Write(data)
	if err := errors.Join(werr, f.Close()); err != nil {
		root.Remove(tmp)
		return "", err
	}
	if err := root.Rename(tmp, rel); err != nil {
		root.Remove(tmp)
		return "", rootErr(name, abs, err)
	}
	return filepath.Join(abs, rel), nil
}

// rootErr names an os.Root escape refusal ("path escapes from parent") the
// way the other refusals read.
func rootErr(name, dir string, err error) error {
	if strings.Contains(err.Error(), "escapes") {
		return fmt.Errorf("path %q %w %s (through a symlink)", name, errLeavesRoot, dir)
	}
	return err
}
