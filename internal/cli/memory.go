package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/openpocket/openpocket/internal/executor/memory"
)

// MemoryCmd groups the memory commands.
type MemoryCmd struct {
	Search MemorySearchCmd `cmd:"" help:"Search MEMORY.md and memory/*.md like the memory_search action."`
	Get    MemoryGetCmd    `cmd:"" help:"Print lines of MEMORY.md or a memory/*.md file."`
}

// MemorySearchCmd searches the workspace memory.
type MemorySearchCmd struct {
	Query      string   `arg:"" help:"Words or phrase to look for."`
	MaxResults int      `help:"Results to return, 1..30 (default memoryTools.maxResults)." placeholder:"N"`
	MinScore   *float64 `help:"Lowest score to keep, 0..1 (default memoryTools.minScore)." placeholder:"F"`
	JSON       bool     `name:"json" help:"Print the memory_search JSON."`
}

// snippetLineChars caps the one-line snippet of the text output.
const snippetLineChars = 160

// Run prints one line per hit ("path#Lx-Ly score snippet") or the JSON.
func (c *MemorySearchCmd) Run(out Streams, later OnUse) error {
	if c.MaxResults < 0 || c.MaxResults > 30 {
		return UsageError{fmt.Errorf("--max-results must be between 1 and 30, got %d", c.MaxResults)}
	}
	minScore := -1.0
	if c.MinScore != nil {
		if *c.MinScore < 0 || *c.MinScore > 1 {
			return UsageError{fmt.Errorf("--min-score must be between 0 and 1, got %g", *c.MinScore)}
		}
		minScore = *c.MinScore
	}
	set, err := later.NewExecutors()
	if err != nil {
		return err
	}
	defer set.Close()
	res, err := set.Memory.Search(c.Query, c.MaxResults, minScore)
	if err != nil {
		return err
	}
	if c.JSON {
		enc := json.NewEncoder(out.Stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	if len(res.Results) == 0 {
		fmt.Fprintf(out.Stdout, "no matches for %q (min score %g, %d files scanned)\n", res.Query, res.MinScore, res.ScannedFiles)
		return nil
	}
	for _, h := range res.Results {
		fmt.Fprintf(out.Stdout, "%s %.3f %s\n", h.Citation, h.Score, snippetLine(h.Snippet, snippetLineChars))
	}
	return nil
}

// snippetLine collapses whitespace and cuts s to max characters.
func snippetLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

// MemoryGetCmd prints a window of a memory file.
type MemoryGetCmd struct {
	Path  string `arg:"" help:"MEMORY.md or memory/<file>.md (workspace-relative)."`
	From  int    `help:"First line (1-based)." default:"1" placeholder:"N"`
	Lines int    `help:"Number of lines (default 120, at most 2000)." placeholder:"N"`
}

// Run prints the lines.
func (c *MemoryGetCmd) Run(out Streams, later OnUse) error {
	if c.From < 1 || c.Lines < 0 {
		return UsageError{fmt.Errorf("--from must be at least 1 and --lines at least 0")}
	}
	set, err := later.NewExecutors()
	if err != nil {
		return err
	}
	defer set.Close()
	text, err := set.Memory.Get(c.Path, c.From, c.Lines)
	if errors.Is(err, memory.ErrOutOfScope) {
		return UsageError{err}
	}
	if err != nil {
		return err
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	_, err = fmt.Fprint(out.Stdout, text)
	return err
}
