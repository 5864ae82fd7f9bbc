package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/prompt"
	"github.com/openpocket/openpocket/internal/skills"
	"github.com/openpocket/openpocket/internal/workspace"
	"github.com/openpocket/openpocket/stdlib/agent"
)

// ContextCmd shows what the next agent run's model would receive
// (upstream's /context diagnostics): the system prompt by
// section with sizes, the context files, the skills catalog, the tools,
// and what the budgets cut.
type ContextCmd struct {
	JSON bool `name:"json" help:"Print it as JSON, with the whole system prompt."`
}

type contextSection struct {
	Title string `json:"title"`
	Chars int    `json:"chars"`
}

type contextFileInfo struct {
	Name          string `json:"name"`
	Path          string `json:"path"`
	Chars         int    `json:"chars"`
	OriginalChars int    `json:"originalChars"`
	Truncated     bool   `json:"truncated"`
}

type contextReport struct {
	Mode               string            `json:"systemPromptMode"`
	SystemPromptChars  int               `json:"systemPromptChars"`
	Sections           []contextSection  `json:"sections"`
	ContextBudgetChars int               `json:"contextBudgetChars"`
	ContextFiles       []contextFileInfo `json:"contextFiles"`
	// ContextOmitted are files present but left out: the budget was used up.
	ContextOmitted []string       `json:"contextOmitted"`
	Skills         []prompt.Skill `json:"skills"`
	SkillsListed   int            `json:"skillsListed"`
	Tools          []string       `json:"tools"`
	ToolsOmitted   []string       `json:"toolsOmitted"`
	SystemPrompt   string         `json:"systemPrompt"`
}

// Run builds the report for a task started from the CLI (no chat: no
// request_user_input; the jobs file: cron_*).
func (c *ContextCmd) Run(out Streams, h *workspace.Home, cfg workspace.Config, asm Assembly) error {
	set := asm.Executors(h.Workspace(), cfg)
	defer set.Close()
	schedule := func(context.Context, action.Action) (string, error) { return "", nil }
	tools := agent.OfferedTools(agent.Options{Schedule: schedule}, set.Actions(nil))
	budget := cfg.Agent.ContextBudgetChars
	files := h.ContextFiles(budget)
	var pfiles []prompt.ContextFile
	rep := contextReport{Mode: cfg.Agent.SystemPromptMode, ContextBudgetChars: budget,
		ContextFiles: []contextFileInfo{}, ContextOmitted: []string{}, ToolsOmitted: []string{}}
	used := map[string]bool{}
	for _, f := range files {
		pfiles = append(pfiles, prompt.ContextFile{Name: f.Name, Content: f.Content})
		used[f.Name] = true
		rep.ContextFiles = append(rep.ContextFiles, contextFileInfo{Name: f.Name, Path: f.Path, Chars: len([]rune(f.Content)),
			OriginalChars: f.OriginalChars, Truncated: f.Truncated})
	}
	for _, n := range workspace.ContextFileNames {
		if st, err := os.Stat(filepath.Join(h.Workspace(), n)); err == nil && st.Mode().IsRegular() && !used[n] {
			rep.ContextOmitted = append(rep.ContextOmitted, n)
		}
	}
	rep.Skills = (&skills.Loader{HomeDir: h.Dir(), WorkspaceDir: h.Workspace()}).Index(0)
	if rep.Skills == nil {
		rep.Skills = []prompt.Skill{}
	}
	idx := prompt.SkillsIndex(rep.Skills, 0)
	rep.SkillsListed = strings.Count(idx, "(location: ")
	offered := map[string]bool{}
	for _, t := range tools {
		rep.Tools = append(rep.Tools, t.Name)
		offered[t.Name] = true
	}
	for _, t := range action.Tools(nil) {
		if !offered[t.Name] {
			rep.ToolsOmitted = append(rep.ToolsOmitted, t.Name)
		}
	}
	rep.SystemPrompt = prompt.System(prompt.SystemOptions{Mode: cfg.Agent.SystemPromptMode, Tools: tools, Skills: rep.Skills,
		Context: pfiles, Budget: budget})
	rep.SystemPromptChars = len([]rune(rep.SystemPrompt))
	rep.Sections = promptSections(rep.SystemPrompt)
	if c.JSON {
		data, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(out.Stdout, string(data))
		return nil
	}
	printContextReport(out, rep)
	return nil
}

// promptSections splits the system prompt at its "## " headings; the text
// before the first is "(preamble)".
func promptSections(p string) []contextSection {
	var out []contextSection
	title, start := "(preamble)", 0
	lines := strings.SplitAfter(p, "\n")
	pos := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "## ") {
			if pos > start {
				out = append(out, contextSection{title, len([]rune(p[start:pos]))})
			}
			title, start = strings.TrimSpace(strings.TrimPrefix(l, "## ")), pos
		}
		pos += len(l)
	}
	if pos > start {
		out = append(out, contextSection{title, len([]rune(p[start:pos]))})
	}
	return out
}

func printContextReport(out Streams, rep contextReport) {
	w := out.Stdout
	fmt.Fprintf(w, "system prompt (%s mode): %d chars\n", rep.Mode, rep.SystemPromptChars)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, s := range rep.Sections {
		fmt.Fprintf(tw, "  %s\t%d\n", s.Title, s.Chars)
	}
	tw.Flush()
	fmt.Fprintf(w, "context files (budget %d chars):\n", rep.ContextBudgetChars)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, f := range rep.ContextFiles {
		cut := ""
		if f.Truncated {
			cut = fmt.Sprintf("cut from %d", f.OriginalChars)
		}
		fmt.Fprintf(tw, "  %s\t%d\t%s\n", f.Name, f.Chars, cut)
	}
	tw.Flush()
	if len(rep.ContextFiles) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, n := range rep.ContextOmitted {
		fmt.Fprintf(w, "  %s\tleft out: the budget was used up\n", n)
	}
	fmt.Fprintf(w, "skills: %d listed of %d\n", rep.SkillsListed, len(rep.Skills))
	for _, s := range rep.Skills {
		fmt.Fprintf(w, "  %s (%s)\n", s.Name, s.Location)
	}
	fmt.Fprintf(w, "tools (%d): %s\n", len(rep.Tools), strings.Join(rep.Tools, ", "))
	if len(rep.ToolsOmitted) > 0 {
		fmt.Fprintf(w, "not offered: %s\n", strings.Join(rep.ToolsOmitted, ", "))
	}
}

// Help shows examples.
func (c *ContextCmd) Help() string {
	return exampleBlock("openpocket context", "openpocket --agent shop context --json")
}
