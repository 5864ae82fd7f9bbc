package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/openpocket/openpocket/internal/workspace"
)

// SessionsCmd groups the sessions commands.
type SessionsCmd struct {
	List SessionsListCmd `cmd:"" help:"List recorded sessions, newest first: id, status, steps, model, task."`
	Show SessionsShowCmd `cmd:"" help:"Print a session (markdown rendered for the terminal) and its step screenshots."`
}

// sessionSummary is one line of `sessions list` (and its --json entry).
type sessionSummary struct {
	ID        string `json:"id"`
	Status    string `json:"status"` // SUCCESS | FAILED | running
	StartedAt string `json:"startedAt"`
	EndedAt   string `json:"endedAt,omitempty"`
	Model     string `json:"modelProfile"`
	Task      string `json:"task"`
	Steps     int    `json:"steps"`
	Path      string `json:"path"`
}

// SessionsListCmd lists sessions.
type SessionsListCmd struct {
	JSON  bool `help:"Print JSON."`
	Limit int  `help:"Show at most N sessions (0 = all)." default:"0" placeholder:"N"`
}

// Run prints the sessions newest first.
func (c *SessionsListCmd) Run(streams Streams, h *workspace.Home) error {
	files, err := workspace.SessionFiles(h.SessionsDir())
	if err != nil {
		return err
	}
	if c.Limit > 0 && len(files) > c.Limit {
		files = files[:c.Limit]
	}
	out := []sessionSummary{}
	for _, f := range files {
		s, err := readSessionSummary(h, f)
		if err != nil {
			fmt.Fprintf(streams.Stderr, "warning: %s: %v\n", f, err)
			continue
		}
		out = append(out, s)
	}
	if c.JSON {
		enc := json.NewEncoder(streams.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if len(out) == 0 {
		fmt.Fprintf(streams.Stdout, "no sessions in %s (an agent run records one: openpocket agent \"…\")\n", h.SessionsDir())
		return nil
	}
	tw := tabwriter.NewWriter(streams.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tSTEPS\tMODEL\tTASK")
	for _, s := range out {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", s.ID, s.Status, s.Steps, dash(s.Model), agentShort(oneLine(s.Task), 60))
	}
	return tw.Flush()
}

// readSessionSummary reads the header, task, step count and final status
// of a session file (docs/formats.md#session).
func readSessionSummary(h *workspace.Home, path string) (sessionSummary, error) {
	f, err := h.OpenSessionFile(path) // no link out, no FIFO
	if err != nil {
		return sessionSummary{}, err
	}
	defer f.Close()
	s := sessionSummary{Path: path, Status: "running"}
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
			switch key {
			case "id":
				s.ID = val
			case "started_at":
				s.StartedAt = val
			case "model_profile":
				s.Model = val
			}
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
		return s, fmt.Errorf("not a session file: no \"- id:\" line in its header")
	}
	s.Task = strings.TrimSpace(strings.Join(task, "\n"))
	return s, nil
}

// SessionsShowCmd prints one session.
type SessionsShowCmd struct {
	ID  string `arg:"" help:"Session id (YYYYMMDD-HHMMSS, as sessions list shows), \"latest\", or a session file."`
	Raw bool   `help:"Print the markdown as it is on disk."`
}

// Run renders the session and lists its step screenshots.
func (c *SessionsShowCmd) Run(out Streams, h *workspace.Home, cfg workspace.Config) error {
	path, err := c.resolve(h.SessionsDir())
	if err != nil {
		return UsageError{err}
	}
	data, err := h.ReadSessionFile(path)
	if err != nil {
		return UsageError{err}
	}
	if c.Raw {
		_, err = out.Stdout.Write(data)
		return err
	}
	renderMarkdown(out.Stdout, data)
	id := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "session-"), ".md")
	shots, _ := filepath.Glob(filepath.Join(h.Resolve(cfg.Screenshots.Directory), "*-session-"+id+"-step-*.png"))
	sort.Strings(shots)
	fmt.Fprintf(out.Stdout, "\nscreenshots (%d):\n", len(shots))
	for _, s := range shots {
		fmt.Fprintf(out.Stdout, "  %s\n", s)
	}
	fmt.Fprintf(out.Stdout, "file: %s\n", path)
	return nil
}

// resolve turns the argument into a session file path.
func (c *SessionsShowCmd) resolve(dir string) (string, error) {
	if strings.HasSuffix(c.ID, ".md") {
		return c.ID, nil
	}
	if c.ID == "latest" {
		files, _ := workspace.SessionFiles(dir)
		if len(files) == 0 {
			return "", fmt.Errorf("no sessions in %s", dir)
		}
		return files[0], nil
	}
	p := filepath.Join(dir, "session-"+c.ID+".md")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("no session %q in %s (see openpocket sessions list)", c.ID, dir)
	}
	return p, nil
}

// renderMarkdown prints session markdown for a terminal: headings bold,
// code fences dropped and their content indented; piped output gets the
// same layout without escape codes.
func renderMarkdown(w io.Writer, data []byte) {
	tty := isTTY(w)
	bold := func(s string) string {
		if tty {
			return "\x1b[1m" + s + "\x1b[0m"
		}
		return s
	}
	inFence := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```"):
			inFence = !inFence
		case inFence:
			fmt.Fprintf(w, "    %s\n", line)
		case strings.HasPrefix(line, "#"):
			title := strings.TrimSpace(strings.TrimLeft(line, "#"))
			if strings.HasPrefix(line, "# ") || strings.HasPrefix(line, "## ") {
				title = strings.ToUpper(title)
			}
			fmt.Fprintln(w, bold(title))
		default:
			fmt.Fprintln(w, line)
		}
	}
}
