package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine/hostfs"
)

// ScreenshotsDir is screenshots.directory resolved against OPENPOCKET_HOME.
func (h *Home) ScreenshotsDir() string { return h.Resolve(h.cfg.Screenshots.Directory) }

// SafeName keeps [a-zA-Z0-9._-] and replaces every other character with
// '_'; an empty name becomes "unknown".
func SafeName(s string) string {
	if s == "" {
		return "unknown"
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// ScreenshotName is <YYYYMMDD-HHMMSS>-session-<id>-step-<NNN>-<safeApp>.png.
func ScreenshotName(at time.Time, sessionID string, step int, currentApp string) string {
	return fmt.Sprintf("%s-session-%s-step-%03d-%s.png", at.Format("20060102-150405"), sessionID, step, SafeName(currentApp))
}

// SaveStepScreenshot writes a step screenshot atomically and applies
// retention (newest screenshots.maxCount PNGs kept). With
// saveStepScreenshots false it saves nothing and returns "".
func (h *Home) SaveStepScreenshot(at time.Time, sessionID string, step int, currentApp string, png []byte) (string, error) {
	sc := h.cfg.Screenshots
	if !sc.SaveStepScreenshots {
		return "", nil
	}
	dir := h.ScreenshotsDir()
	path := filepath.Join(dir, ScreenshotName(at, sessionID, step, currentApp))
	if err := hostfs.WriteFile(h.rootFor(path), path, png, 0o644); err != nil {
		return "", fmt.Errorf("save screenshot: %w", err)
	}
	if err := h.pruneScreenshots(dir, sc.MaxCount); err != nil {
		return path, err
	}
	return path, nil
}

// pruneScreenshots deletes the oldest PNGs beyond maxCount (by modification
// time, then name); maxCount <= 0 keeps everything.
func (h *Home) pruneScreenshots(dir string, maxCount int) error {
	if maxCount <= 0 {
		return nil
	}
	h.shotMu.Lock()
	defer h.shotMu.Unlock()
	root := h.rootFor(dir)
	entries, err := hostfs.ReadDir(root, dir)
	if err != nil {
		return fmt.Errorf("screenshot retention: %w", err)
	}
	type shot struct {
		name string
		mod  time.Time
	}
	var shots []shot
	for _, e := range entries {
		if e.IsDir() || !strings.EqualFold(filepath.Ext(e.Name()), ".png") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		shots = append(shots, shot{e.Name(), info.ModTime()})
	}
	if len(shots) <= maxCount {
		return nil
	}
	slices.SortFunc(shots, func(a, b shot) int { // newest first
		if c := b.mod.Compare(a.mod); c != 0 {
			return c
		}
		return strings.Compare(b.name, a.name)
	})
	var firstErr error
	for _, s := range shots[maxCount:] {
		if err := hostfs.Remove(root, filepath.Join(dir, s.name)); err != nil && !errors.Is(err, fs.ErrNotExist) && firstErr == nil {
			firstErr = fmt.Errorf("screenshot retention: %w", err)
		}
	}
	return firstErr
}
