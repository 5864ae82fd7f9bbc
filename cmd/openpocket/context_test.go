package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/workspace"
)

// Upstream's /context diagnostics (docs/agents.md): `openpocket context` shows
// what the next run's model receives — the system prompt by section, the
// context files with what the budget cut, the skills catalog and the
// tools — without a device or a model call.
func TestContextShowsWhatTheModelReceives(t *testing.T) {
	srv := llmtest.NewServer(t)
	home := homeWithModel(t, srv)
	h, err := workspace.Open(home)
	require.NoError(t, err)
	cfg := h.Config()
	cfg.Agent.ContextBudgetChars = 3000
	cfg.CodingTools.Enabled = false
	require.NoError(t, h.SaveConfig(cfg))
	ws := h.Workspace()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "AGENTS.md"), []byte(strings.Repeat("a", 2995)), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "USER.md"), []byte("- Name: Ann\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "MEMORY.md"), []byte("likes tea\n"), 0o644))

	res := runBinary(t, nil, "--home", home, "context", "--json")
	require.Equal(t, 0, res.code, res.stderr)
	var rep struct {
		Mode              string `json:"systemPromptMode"`
		SystemPromptChars int    `json:"systemPromptChars"`
		Sections          []struct {
			Title string `json:"title"`
			Chars int    `json:"chars"`
		} `json:"sections"`
		ContextFiles []struct {
			Name      string `json:"name"`
			Chars     int    `json:"chars"`
			Truncated bool   `json:"truncated"`
		} `json:"contextFiles"`
		ContextOmitted []string `json:"contextOmitted"`
		Tools          []string `json:"tools"`
		ToolsOmitted   []string `json:"toolsOmitted"`
		SystemPrompt   string   `json:"systemPrompt"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &rep), res.stdout)
	assert.Equal(t, "full", rep.Mode)
	assert.Equal(t, len([]rune(rep.SystemPrompt)), rep.SystemPromptChars)
	total := 0
	var titles []string
	for _, s := range rep.Sections {
		total += s.Chars
		titles = append(titles, s.Title)
	}
	assert.Equal(t, rep.SystemPromptChars, total, "the sections add up to the prompt")
	assert.Contains(t, titles, "Tools")
	assert.Contains(t, titles, "Workspace context")

	require.NotEmpty(t, rep.ContextFiles)
	assert.Equal(t, "AGENTS.md", rep.ContextFiles[0].Name)
	assert.Equal(t, 2995, rep.ContextFiles[0].Chars)
	require.Len(t, rep.ContextFiles, 2)
	assert.True(t, rep.ContextFiles[1].Truncated, "USER.md cut to the 5 chars left")
	assert.Contains(t, rep.ContextOmitted, "MEMORY.md", "the 3,000-char budget cut it")
	assert.Contains(t, rep.ToolsOmitted, "read", "codingTools.enabled=false")
	assert.Contains(t, rep.ToolsOmitted, "request_user_input", "no chat from the CLI")
	assert.Contains(t, rep.Tools, "cron_add")
	assert.NotContains(t, rep.SystemPrompt, "read tool")

	res = runBinary(t, nil, "--home", home, "context")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stdout, "system prompt (full mode): ")
	assert.Contains(t, res.stdout, "context files (budget 3000 chars):")
	assert.Contains(t, res.stdout, "MEMORY.md\tleft out: the budget was used up")
	assert.Contains(t, res.stdout, "not offered: read, write, edit, apply_patch, exec, process")
	assert.Empty(t, srv.Requests(), "no model call")
}
