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

// ReadSessionFile reads a session (or trace) file inside the workspace
// through engine/hostfs: the model may have made it a link to a secret
// (which sessions show, the dashboard or MCP's session_get would then
// print) or a FIFO (which would hang them).
func (h *Home) ReadSessionFile(path string) ([]byte, error) {
	return hostfs.ReadFile(h.rootFor(path), path, maxHostRead)
}

// OpenSessionFile is ReadSessionFile for a reader.
func (h *Home) OpenSessionFile(path string) (*os.File, error) {
	return hostfs.Open(h.rootFor(path), path)
}
