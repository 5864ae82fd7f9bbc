package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

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
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	text := line
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if err == nil {
		f.Close()
		text = "# Memory " + at.Format("2006-01-02") + "\n\n" + line
	} else if !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("open daily memory %s: %w", path, err)
	}
	// A failed append (a full disk) leaves the file as it was: earlier
	// lines whole, no torn line.
	if err := atomicfile.AppendPath(path, []byte(text), 0o644); err != nil {
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
