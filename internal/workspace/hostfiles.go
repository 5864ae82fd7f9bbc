package workspace

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/openpocket/openpocket/engine/hostfs"
	"github.com/openpocket/openpocket/internal/atomicfile"
)

// maxHostRead caps the files the host reads from the workspace and state
// (sessions, workspace state): a model could plant a huge one.
const maxHostRead = 32 << 20

// rootFor is the directory a host file at path is confined to: the
// workspace for files in it (the model writes there, links included), the
// state directory for state, else OPENPOCKET_HOME, else the path's own
// directory (a place the user configured outside the home).
func (h *Home) rootFor(path string) string {
	for _, root := range []string{h.Workspace(), h.State(), h.dir} {
		if within(root, path) {
			return root
		}
	}
	return filepath.Dir(path)
}

// within reports whether path is root or lies lexically under it.
func within(root, path string) bool {
	r, err := filepath.Rel(root, path)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// openAppend opens a record file (memory) for appending through hostfs;
// tests replace it to inject write failures (a full disk).
var openAppend = func(root, path string, perm os.FileMode) (atomicfile.AppendFile, error) {
	return hostfs.OpenAppend(root, path, perm)
}
