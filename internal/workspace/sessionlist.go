package workspace

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// SessionSummary is one recorded session as `sessions list` and the MCP
// server's sessions_list show it.
type SessionSummary struct {
	ID        string `json:"id"`
	Status    string `json:"status"` // SUCCESS | FAILED | running
	StartedAt string `json:"startedAt"`
	EndedAt   string `json:"endedAt,omitempty"`
	Model     string `json:"modelProfile"`
	Task      string `json:"task"`
	Steps     int    `json:"steps"`
	Path      string `json:"path"`
}

// SessionSummaries summarises the home's sessions, newest first (limit 0 =
// all); a file that cannot be read is passed to skipped (nil: dropped) and
// left out.
func (h *Home) SessionSummaries(limit int, skipped func(path string, err error)) ([]SessionSummary, error) {
	files, err := SessionFiles(h.SessionsDir())
	if err != nil {
		return nil, err
	}
	if limit > 0 && len(files) > limit {
		files = files[:limit]
	}
	out := []SessionSummary{}
	for _, f := range files {
		s, err := h.SessionSummary(f)
		if err != nil {
			if skipped != nil {
				skipped(f, err)
			}
			continue
		}
		out = append(out, s)
	}
	return out, nil
}

// SessionSummary reads the header, task, step count and final status of a
// session file (docs/formats.md#session), through the home's root: no link
// out, no FIFO.
func (h *Home) SessionSummary(path string) (SessionSummary, error) {
	f, err := h.OpenSessionFile(path)
	if err != nil {
		return SessionSummary{}, err
	}
	defer f.Close()
	s := SessionSummary{Path: path, Status: "running"}
	section := ""
	var task []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			section = strings.TrimPrefix(line, "## ")
			continue
		case strings.HasPrefix(line, "### Step "):
			s.Steps++
			continue
		}
		key, val, isItem := strings.Cut(strings.TrimPrefix(line, "- "), ": ")
		isItem = isItem && strings.HasPrefix(line, "- ")
		switch {
		case section == "" && isItem:
			s.header(key, val)
		case section == "Task":
			task = append(task, line)
		case section == "Final" && isItem && key == "status":
			s.Status = val
		case section == "Final" && isItem && key == "ended_at":
			s.EndedAt = val
		}
	}
	if err := sc.Err(); err != nil {
		return s, err
	}
	if s.ID == "" {
		return s, errors.New("not a session file: no \"- id:\" line in its header")
	}
	s.Task = strings.TrimSpace(strings.Join(task, "\n"))
	return s, nil
}

// header keeps one "- key: value" line of the session's header.
func (s *SessionSummary) header(key, val string) {
	switch key {
	case "id":
		s.ID = val
	case "started_at":
		s.StartedAt = val
	case "model_profile":
		s.Model = val
	}
}

// FindSession turns a session reference into its file in dir: a path
// ending in .md as it is, "latest" the newest session, else an id as
// `sessions list` shows it.
func FindSession(dir, ref string) (string, error) {
	if strings.HasSuffix(ref, ".md") {
		return ref, nil
	}
	if ref == "latest" {
		files, _ := SessionFiles(dir)
		if len(files) == 0 {
			return "", fmt.Errorf("no sessions in %s", dir)
		}
		return files[0], nil
	}
	p := filepath.Join(dir, "session-"+ref+".md")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("no session %q in %s (see openpocket sessions list)", ref, dir)
	}
	return p, nil
}
