package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// maxRunDirAttempts bounds the suffixes CreateRunDir tries.
const maxRunDirAttempts = 10000

// CreateRunDir creates a new directory root/name, or root/name-2,
// root/name-3, ... when that name is taken, each with an exclusive mkdir:
// two runs started in the same second (in one process or several) never
// share a directory. It returns the directory created.
func CreateRunDir(root, name string) (string, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("create run directory in %s: %w", root, explainFSError(err))
	}
	for n := 1; n <= maxRunDirAttempts; n++ {
		dir := filepath.Join(root, name)
		if n > 1 {
			dir += "-" + strconv.Itoa(n)
		}
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("create run directory %s: %w", dir, explainFSError(err))
		}
	}
	return "", fmt.Errorf("create run directory in %s: %s-2 … %s-%d are all taken", root, name, name, maxRunDirAttempts)
}

// CheckWritableDir makes sure dir exists (creating it) and that this
// process may create files in it, so a run fails before it starts rather
// than after its work when its output cannot be saved.
func CheckWritableDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return explainFSError(err)
	}
	f, err := os.CreateTemp(dir, ".openpocket-probe-*")
	if err != nil {
		return explainFSError(err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// explainFSError adds what to do to the common reasons a path cannot be
// written.
func explainFSError(err error) error {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%w (no write permission: choose another directory or fix its permissions)", err)
	case errors.Is(err, errNoSpace):
		return fmt.Errorf("%w (the disk is full)", err)
	case errors.Is(err, errReadOnlyFS):
		return fmt.Errorf("%w (the file system is read-only)", err)
	case errors.Is(err, errNotDir):
		return fmt.Errorf("%w (a file is in the way of the directory)", err)
	}
	return err
}
