package coding

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/openpocket/openpocket/engine/tools"
)

// ReadResult is a window of a text file.
type ReadResult struct {
	// Path is the file as shown to the model (workspace-relative).
	Path string
	// From is the first line returned (1-based); Lines how many were
	// returned; TotalLines how many the file has.
	From, Lines, TotalLines int
	// Content is the raw text of those lines (no line numbers), capped at
	// MaxOutputChars.
	Content string
}

// String renders the read result text: a header line
// "read path=<p> from=<n> lines=<n> totalLines=<n>" followed by the raw
// content. Content is not line-numbered so it can be copied verbatim into
// edit's find text or a patch.
func (r ReadResult) String() string {
	s := fmt.Sprintf("read path=%s from=%d lines=%d totalLines=%d", r.Path, r.From, r.Lines, r.TotalLines)
	switch {
	case r.Lines == 0 && r.TotalLines == 0:
		return s + "\n(empty file)"
	case r.Lines == 0:
		return fmt.Sprintf("%s\n(no lines: from=%d is past the end of the file)", s, r.From)
	}
	return s + "\n" + r.Content
}

// splitLines splits text into lines, each keeping its "\n"; a final newline
// does not start an extra line.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	parts := strings.SplitAfter(text, "\n")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// Read returns lines from..from+lines-1 of a file. from < 1 means 1; lines
// <= 0 means 200; lines is capped at 1000.
func (e *Executor) Read(path string, from, lines int) (ReadResult, error) {
	t, err := e.resolve(path)
	if err != nil {
		return ReadResult{}, err
	}
	if from < 1 {
		from = 1
	}
	if lines <= 0 {
		lines = defaultReadLines
	}
	lines = min(lines, maxReadLines)
	fi, err := e.stat(t)
	if err != nil {
		return ReadResult{}, friendly(t.show, err)
	}
	if fi.IsDir() {
		return ReadResult{}, fmt.Errorf("%s is a directory (list it with exec \"ls\")", t.show)
	}
	data, err := e.readFile(t)
	if err != nil {
		return ReadResult{}, friendly(t.show, err)
	}
	all := splitLines(string(data))
	r := ReadResult{Path: t.show, From: from, TotalLines: len(all)}
	if from <= len(all) {
		end := min(from-1+lines, len(all))
		r.Lines = end - (from - 1)
		r.Content = tools.Cap(strings.Join(all[from-1:end], ""), e.cfg.MaxOutputChars)
	}
	return r, nil
}

func friendly(show string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s does not exist", show)
	}
	return err
}

// WriteResult reports a write.
type WriteResult struct {
	Path     string
	Bytes    int
	Appended bool
	Created  bool
}

// String renders "write path=<p> bytes=<n> append=<bool>" (+ " created").
func (r WriteResult) String() string {
	s := fmt.Sprintf("write path=%s bytes=%d append=%t", r.Path, r.Bytes, r.Appended)
	if r.Created {
		s += " created=true"
	}
	return s
}

// Write replaces (atomically) or appends to a file, creating it and its
// parent directories as needed.
func (e *Executor) Write(path, content string, appendMode bool) (WriteResult, error) {
	t, err := e.resolve(path)
	if err != nil {
		return WriteResult{}, err
	}
	r := WriteResult{Path: t.show, Bytes: len(content), Appended: appendMode}
	fi, err := e.stat(t)
	switch {
	case err == nil && fi.IsDir():
		return WriteResult{}, fmt.Errorf("%s is a directory", t.show)
	case errors.Is(err, fs.ErrNotExist):
		r.Created = true
	case err != nil:
		return WriteResult{}, err
	}
	if !appendMode {
		return r, e.writeAtomic(t, []byte(content), fileMode(fi))
	}
	if err := e.appendFile(t, []byte(content)); err != nil {
		return WriteResult{}, err
	}
	return r, nil
}

// fileMode keeps an existing file's permissions (0644 for new files).
func fileMode(fi os.FileInfo) os.FileMode {
	if fi == nil {
		return 0o644
	}
	return fi.Mode().Perm()
}

// EditResult reports an edit.
type EditResult struct {
	Path         string
	Replacements int
}

// String renders "edit path=<p> replacements=<n>".
func (r EditResult) String() string {
	return fmt.Sprintf("edit path=%s replacements=%d", r.Path, r.Replacements)
}

// Edit replaces the first occurrence of find (every occurrence with all)
// and writes the file atomically. An empty or absent find is an error and
// leaves the file untouched.
func (e *Executor) Edit(path, find, replace string, all bool) (EditResult, error) {
	t, err := e.resolve(path)
	if err != nil {
		return EditResult{}, err
	}
	if find == "" {
		return EditResult{}, fmt.Errorf("edit %s: find is empty", t.show)
	}
	fi, err := e.stat(t)
	if err != nil {
		return EditResult{}, friendly(t.show, err)
	}
	data, err := e.readFile(t)
	if err != nil {
		return EditResult{}, friendly(t.show, err)
	}
	text := string(data)
	n := strings.Count(text, find)
	if n == 0 {
		return EditResult{}, fmt.Errorf("edit %s: find text not found (read the file and copy the text exactly)", t.show)
	}
	if all {
		text = strings.ReplaceAll(text, find, replace)
	} else {
		text = strings.Replace(text, find, replace, 1)
		n = 1
	}
	if err := e.writeAtomic(t, []byte(text), fi.Mode().Perm()); err != nil {
		return EditResult{}, err
	}
	return EditResult{Path: t.show, Replacements: n}, nil
}
