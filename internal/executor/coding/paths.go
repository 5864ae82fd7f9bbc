package coding

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrOutsideWorkspace is wrapped by every refusal of a path that leaves the
// workspace while WorkspaceOnly is set.
var ErrOutsideWorkspace = errors.New("outside the workspace")

// target is a checked path: abs is the host path (symlinks resolved when
// confined), name the path relative to the workspace that confined
// operations open through the os.Root, show how results name it (relative
// to the workspace when inside it, with forward slashes).
type target struct {
	abs  string
	name string
	show string
}

// resolve checks p against the workspace boundary.
func (e *Executor) resolve(p string) (target, error) {
	if strings.TrimSpace(p) == "" {
		return target{}, errors.New("path is empty")
	}
	if strings.ContainsRune(p, 0) {
		return target{}, errors.New("path contains a NUL byte")
	}
	root, err := filepath.Abs(e.workspace)
	if err != nil {
		return target{}, err
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, abs)
	}
	abs = filepath.Clean(abs)
	if !e.cfg.WorkspaceOnly {
		return target{abs: abs, show: e.show(root, abs)}, nil
	}
	rootReal, err := filepath.EvalSymlinks(root)
	if err != nil {
		return target{}, fmt.Errorf("workspace %s: %w", root, err)
	}
	if !within(root, abs) && !within(rootReal, abs) {
		return target{}, fmt.Errorf("path %q is %w (%s)", p, ErrOutsideWorkspace, root)
	}
	real, err := resolveReal(abs)
	if err != nil {
		return target{}, fmt.Errorf("path %q: %w", p, err)
	}
	if !within(rootReal, real) {
		return target{}, fmt.Errorf("path %q resolves through a symlink to %s, %w", p, real, ErrOutsideWorkspace)
	}
	name, err := filepath.Rel(rootReal, real)
	if err != nil {
		return target{}, fmt.Errorf("path %q: %w", p, err)
	}
	return target{abs: real, name: name, show: e.show(rootReal, real)}, nil
}

func (e *Executor) show(root, abs string) string {
	if within(root, abs) {
		rel, _ := filepath.Rel(root, abs)
		return filepath.ToSlash(rel)
	}
	return abs
}

// within reports whether p is root or below it (both clean and absolute).
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolveReal resolves every symlink in the absolute clean path p, also
// where the path does not exist yet (the existing prefix is resolved and the
// rest appended) and through dangling symlinks (followed by hand, so that a
// write cannot create the target of a link pointing elsewhere).
func resolveReal(p string) (string, error) {
	for hops := 0; hops < 40; hops++ {
		cur, rest := p, ""
		for {
			fi, err := os.Lstat(cur)
			if err == nil {
				if fi.Mode()&os.ModeSymlink != 0 {
					if real, err := filepath.EvalSymlinks(cur); err == nil {
						return filepath.Join(real, rest), nil
					}
					link, err := os.Readlink(cur)
					if err != nil {
						return "", err
					}
					if !filepath.IsAbs(link) {
						link = filepath.Join(filepath.Dir(cur), link)
					}
					p = filepath.Join(link, rest)
					break // resolve the new path from scratch
				}
				real, err := filepath.EvalSymlinks(cur)
				if err != nil {
					return "", err
				}
				return filepath.Join(real, rest), nil
			}
			if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
				return "", err
			}
			parent := filepath.Dir(cur)
			if parent == cur {
				return p, nil
			}
			rest = filepath.Join(filepath.Base(cur), rest)
			cur = parent
		}
	}
	return "", errors.New("too many levels of symbolic links")
}
