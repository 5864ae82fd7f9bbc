package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine/hostfs"
	"github.com/openpocket/openpocket/internal/atomicfile"
)

// MaxCompactChars is the length limit of the result in a daily memory line.
const MaxCompactChars = 400

// MemoryDir is workspace/memory.
func (h *Home) MemoryDir() string { return filepath.Join(h.Workspace(), "memory") }

// DailyMemoryPath is workspace/memory/YYYY-MM-DD.md for the day of at (in
// at's location).
func (h *Home) DailyMemoryPath(at time.Time) string {
	return filepath.Join(h.MemoryDir(), at.Format("2006-01-02")+".md")
}

// AppendDailyMemory appends
//
//   - [HH:MM:SS] [OK|FAIL] [<profile>] task: <task> | result: <compact>
//
// to the day's memory file, creating it with "# Memory YYYY-MM-DD". The
// result is whitespace-normalized and cut to 400 characters; the task is
// whitespace-normalized so the entry stays on one line. Appends are
// serialized and each is a single O_APPEND write followed by fsync; a
// failed one is cut back so the file keeps only whole lines.
func (h *Home) AppendDailyMemory(at time.Time, ok bool, profile, task, result string) error {
	status := "FAIL"
	if ok {
		status = "OK"
	}
	line := fmt.Sprintf("- [%s] [%s] [%s] task: %s | result: %s\n",
		at.Format("15:04:05"), status, profile, normalizeSpace(task), CompactMessage(result, MaxCompactChars))
	path := h.DailyMemoryPath(at)

	h.memMu.Lock()
	defer h.memMu.Unlock()
	// The memory file lives in the workspace, where the model may have
	// swapped it (or memory/) for a link out: both go through hostfs.
	root := h.rootFor(path)
	text := line
	f, err := hostfs.CreateExcl(root, path, 0o644)
	if err == nil {
		f.Close()
		text = "# Memory " + at.Format("2006-01-02") + "\n\n" + line
	} else if !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("open daily memory: %w", err)
	}
	// A failed append (a full disk) leaves the file as it was: earlier
	// lines whole, no torn line.
	af, err := openAppend(root, path, 0o644)
	if err != nil {
		return fmt.Errorf("daily memory line not saved: %w", err)
	}
	err = atomicfile.Append(af, []byte(text))
	if cerr := af.(io.Closer).Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("daily memory line not saved to %s: %w", path, err)
	}
	return nil
}

// CompactMessage collapses all whitespace runs to one space, trims, and
// cuts the text to limit characters.
func CompactMessage(s string, limit int) string {
	s = normalizeSpace(s)
	if r := []rune(s); limit >= 0 && len(r) > limit {
		s = string(r[:limit])
	}
	return s
}

func normalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }
