package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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

// SessionsListCmd lists sessions.
type SessionsListCmd struct {
	JSON  bool `help:"Print JSON."`
	Limit int  `help:"Show at most N sessions (0 = all)." default:"0" placeholder:"N"`
}

// Run prints the sessions newest first.
func (c *SessionsListCmd) Run(streams Streams, h *workspace.Home) error {
	out, err := h.SessionSummaries(c.Limit, func(path string, err error) {
		fmt.Fprintf(streams.Stderr, "warning: %s: %v\n", path, err)
	})
	if err != nil {
		return err
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

// SessionsShowCmd prints one session.
type SessionsShowCmd struct {
	ID  string `arg:"" help:"Session id (YYYYMMDD-HHMMSS, as sessions list shows), \"latest\", or a session file."`
	Raw bool   `help:"Print the markdown as it is on disk."`
}

// Run renders the session and lists its step screenshots.
func (c *SessionsShowCmd) Run(out Streams, h *workspace.Home, cfg workspace.Config) error {
	path, err := workspace.FindSession(h.SessionsDir(), c.ID)
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
