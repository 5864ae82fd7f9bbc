package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/workspace"
)

// snapshotImage is how snapshot encodes the model-sized images (--som,
// --with-images): as the default model profile asks (imageFormat,
// imageQuality), so the file is what the model would get. Snapshot works
// without a home: no config file means the defaults (JPEG); nothing is
// created or written.
func snapshotImage(g Globals, asm Assembly) (screen.ImageEncoding, error) {
	path := g.Config
	if path == "" {
		dir, err := g.agentDir()
		if err != nil {
			return screen.ImageEncoding{}, nil // no such agent: the device's defaults
		}
		path = filepath.Join(dir, "config.json")
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return screen.ImageEncoding{}, nil
	}
	cfg, _, err := workspace.LoadConfigWarnings(path)
	if err != nil {
		return screen.ImageEncoding{}, UsageError{err}
	}
	return asm.PhoneOptions(cfg).Image, nil
}
