package workspace

import (
	"path/filepath"

	"github.com/openpocket/openpocket/engine/hostfs"
)

// ContextFileNames are the workspace files injected into the system
// prompt, in order. BOOTSTRAP.md (the first-run guidance `init` seeds) is
// injected while it exists, after AGENTS.md as upstream ranks it; removing
// it completes onboarding (ensureWorkspaceState).
var ContextFileNames = []string{"AGENTS.md", "BOOTSTRAP.md", "SOUL.md", "USER.md", "IDENTITY.md", "TOOLS.md", "HEARTBEAT.md", "MEMORY.md"}

const (
	// MaxContextFileChars caps each context file.
	MaxContextFileChars = 20000
	// DefaultContextBudgetChars is the total budget when none is set.
	DefaultContextBudgetChars = 150000
)

// ContextFile is one workspace context file for the prompt.
type ContextFile struct {
	Name    string // e.g. "AGENTS.md"
	Path    string
	Content string
	// Truncated is true when Content was cut (per-file cap or budget);
	// OriginalChars is the full length.
	Truncated     bool
	OriginalChars int
}

// ContextFiles reads the context files present in the workspace, each
// capped at 20,000 characters, until budget characters are used. budget <= 0
// means agent.contextBudgetChars (or 150,000 when that is not positive).
// Missing or unreadable files are skipped.
func (h *Home) ContextFiles(budget int) []ContextFile {
	if budget <= 0 {
		budget = h.cfg.Agent.ContextBudgetChars
	}
	if budget <= 0 {
		budget = DefaultContextBudgetChars
	}
	var out []ContextFile
	for _, name := range ContextFileNames {
		if budget <= 0 {
			break
		}
		path := filepath.Join(h.Workspace(), name)
		// Read through hostfs: the model may have made AGENTS.md a link out
		// or a FIFO; such a file is skipped like a missing one, at once.
		data, err := hostfs.ReadFile(h.Workspace(), path, maxHostRead)
		if err != nil {
			continue
		}
		runes := []rune(string(data))
		cf := ContextFile{Name: name, Path: path, OriginalChars: len(runes)}
		limit := min(MaxContextFileChars, budget)
		if len(runes) > limit {
			runes = runes[:limit]
			cf.Truncated = true
		}
		cf.Content = string(runes)
		budget -= len(runes)
		out = append(out, cf)
	}
	return out
}
