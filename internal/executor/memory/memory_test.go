package memory

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/action"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// fixture builds a workspace:
//
//	MEMORY.md              5 lines → one window L1-L5
//	memory/2026-02-18.md   8 lines → windows L1-L6, L4-L8
//	memory/notes/apps.md   2 lines → one window L1-L2
//	memory/many.md        15 lines → windows L1-L6, L4-L9, L7-L12, L10-L15
//	memory/readme.txt, notes.md, sessions/x.md      out of scope
//	memory/leak.md → ../notes.md (symlink)          out of scope
func fixture(t *testing.T) string {
	ws := t.TempDir()
	write(t, filepath.Join(ws, "MEMORY.md"), strings.Join([]string{
		"# Memory",
		"",
		"- Dark mode in Settings.",
		"- Wi-Fi in vault.",
		"- Coffee: oat latte.",
	}, "\n")+"\n")
	write(t, filepath.Join(ws, "memory", "2026-02-18.md"), strings.Join([]string{
		"# Memory 2026-02-18",
		"",
		"- task: open settings",
		"- task: enable dark mode",
		"- task: order coffee",
		"- task: check weather",
		"- task: dark mode settings",
		"- task: call mom",
	}, "\n")+"\n")
	write(t, filepath.Join(ws, "memory", "notes", "apps.md"), "Apps\n- Weather uses dark theme.\n")
	write(t, filepath.Join(ws, "memory", "many.md"), strings.Repeat("coffee\n", 15))
	write(t, filepath.Join(ws, "memory", "readme.txt"), "dark mode settings\n")
	write(t, filepath.Join(ws, "notes.md"), "dark mode settings coffee\n")
	write(t, filepath.Join(ws, "sessions", "x.md"), "dark mode settings coffee\n")
	require.NoError(t, os.Symlink(filepath.Join(ws, "notes.md"), filepath.Join(ws, "memory", "leak.md")))
	return ws
}

func TestSearchScoresAndJSON(t *testing.T) {
	e := New(fixture(t), Config{})
	out, err := e.Execute(context.Background(), action.Action{Type: "memory_search",
		Params: map[string]any{"query": "Dark mode settings", "maxResults": 6, "minScore": 0.2}})
	require.NoError(t, err)

	// phrase = "dark mode settings"; tokens = dark, mode, settings (3).
	//
	// memory/2026-02-18.md L4-L8: contains "dark mode settings" (L7) → 0.5;
	//   dark, mode, settings all present → 0.5 × 3/3 = 0.5; total 1.0.
	// MEMORY.md L1-L5: "dark mode in settings" is not the phrase → 0;
	//   dark, mode, settings present → 0.5 × 3/3 = 0.5; total 0.5.
	// memory/2026-02-18.md L1-L6: no phrase (L7 is outside) → 0;
	//   settings (L3), dark, mode (L4) → 0.5; total 0.5.
	// memory/notes/apps.md L1-L2: no phrase; only "dark" → 0.5 × 1/3 = 0.1667
	//   < 0.2 → dropped. memory/many.md: nothing → 0 → dropped.
	// Order: 1.0 first; the 0.5 tie by path: "MEMORY.md" < "memory/…" ('M' < 'm').
	// Out of scope files are not scanned: scannedFiles = MEMORY.md,
	// 2026-02-18.md, notes/apps.md, many.md = 4.
	want := `{"query":"Dark mode settings","minScore":0.2,"scannedFiles":4,"results":[` +
		`{"path":"memory/2026-02-18.md","startLine":4,"endLine":8,"score":1,"snippet":"- task: enable dark mode\n- task: order coffee\n- task: check weather\n- task: dark mode settings\n- task: call mom","citation":"memory/2026-02-18.md#L4-L8"},` +
		`{"path":"MEMORY.md","startLine":1,"endLine":5,"score":0.5,"snippet":"# Memory\n\n- Dark mode in Settings.\n- Wi-Fi in vault.\n- Coffee: oat latte.","citation":"MEMORY.md#L1-L5"},` +
		`{"path":"memory/2026-02-18.md","startLine":1,"endLine":6,"score":0.5,"snippet":"# Memory 2026-02-18\n\n- task: open settings\n- task: enable dark mode\n- task: order coffee\n- task: check weather","citation":"memory/2026-02-18.md#L1-L6"}]}`
	assert.JSONEq(t, want, out)
	// Key order and compactness are part of the contract too.
	assert.Equal(t, want, out)

	// Lowering minScore to 0.1 admits apps.md at 0.5 × 1/3 = 0.1666… → 0.167.
	r, err := e.Search("dark mode settings", 6, 0.1)
	require.NoError(t, err)
	require.Len(t, r.Results, 4)
	assert.Equal(t, "memory/notes/apps.md", r.Results[3].Path)
	assert.Equal(t, 0.167, r.Results[3].Score)
}

func TestSearchBestThreePerFileAndMaxResults(t *testing.T) {
	e := New(fixture(t), Config{})
	// "coffee": phrase and its single token → 0.5 + 0.5 × 1/1 = 1.0 in every
	// window containing it: MEMORY.md L1-L5, 2026-02-18.md L1-L6 and L4-L8
	// (L5), and all 4 windows of many.md, of which only the best 3 stay (ties
	// by start line: L1, L4, L7; L10-L15 dropped).
	r, err := e.Search("coffee", 30, 0.2)
	require.NoError(t, err)
	var cites []string
	for _, h := range r.Results {
		assert.Equal(t, 1.0, h.Score)
		cites = append(cites, h.Citation)
	}
	assert.Equal(t, []string{"MEMORY.md#L1-L5", "memory/2026-02-18.md#L1-L6", "memory/2026-02-18.md#L4-L8",
		"memory/many.md#L1-L6", "memory/many.md#L4-L9", "memory/many.md#L7-L12"}, cites)

	r, _ = e.Search("coffee", 2, 0.2)
	assert.Len(t, r.Results, 2)
	r, _ = e.Search("coffee", 0, 0.2) // 0 → config default 6
	assert.Len(t, r.Results, 6)
	r, _ = New(e.workspace, Config{MaxResults: 1, MinScore: 0.3}).Search("coffee", 0, -1)
	assert.Len(t, r.Results, 1)
	assert.Equal(t, 0.3, r.MinScore, "negative minScore → config default")
	r, _ = New(e.workspace, Config{}).Search("coffee", 0, -1)
	assert.Equal(t, 0.2, r.MinScore, "zero Config → default minScore")
	r, _ = New(e.workspace, Config{MaxResults: 6, MinScore: 0, MaxSnippetChars: 1200}).Search("coffee", 0, -1)
	assert.Equal(t, 0.0, r.MinScore, "an explicit minScore 0 from config.json is honoured")
	r, _ = e.Search("coffee", 100, 0.2)
	assert.Len(t, r.Results, 6, "maxResults is clamped to 30, only 6 hits exist")

	r, _ = e.Search("   ", 6, 0.2)
	assert.Empty(t, r.Results)
	assert.Equal(t, 4, r.ScannedFiles)
}

func TestSnippetCapAndTokens(t *testing.T) {
	e := New(fixture(t), Config{MaxSnippetChars: 10})
	r, err := e.Search("coffee", 1, 0.2)
	require.NoError(t, err)
	require.Len(t, r.Results, 1)
	assert.Equal(t, "# Memory\n…", r.Results[0].Snippet)

	assert.Equal(t, []string{"darkmode", "dark", "mode", "42", "cafe"}, Tokens("Dark-mode, dark MODE x 42 Café"), "folded: hyphens dropped, accents removed")
	// Query without tokens: only the phrase counts.
	assert.Equal(t, 0.5, Score("a b c", "b", Tokens("b")))
	// Partial tokens, no phrase: 0.5 × 2/4.
	assert.Equal(t, 0.25, Score("alpha beta", "alpha beta gamma delta", Tokens("alpha beta gamma delta")))
}

func TestSearchEmptyWorkspace(t *testing.T) {
	out, err := New(t.TempDir(), Config{}).Execute(context.Background(), action.Action{Type: "memory_search", Params: map[string]any{"query": "x"}})
	require.NoError(t, err)
	assert.Equal(t, `{"query":"x","minScore":0.2,"scannedFiles":0,"results":[]}`, out)
}

func TestGet(t *testing.T) {
	ws := fixture(t)
	e := New(ws, Config{})
	text, err := e.Get("MEMORY.md", 3, 2)
	require.NoError(t, err)
	assert.Equal(t, "- Dark mode in Settings.\n- Wi-Fi in vault.", text)

	out, err := e.Execute(context.Background(), action.Action{Type: "memory_get", Params: map[string]any{"path": "memory/2026-02-18.md", "from": 7, "lines": 120}})
	require.NoError(t, err)
	assert.Equal(t, `{"path":"memory/2026-02-18.md","from":7,"to":8,"totalLines":8,"text":"- task: dark mode settings\n- task: call mom"}`, out)

	text, err = e.Get("memory/notes/apps.md", 0, 0)
	require.NoError(t, err, "search cites nested memory files, so get reads them too")
	assert.Equal(t, "Apps\n- Weather uses dark theme.", text)

	r, err := e.GetWindow("MEMORY.md", 50, 10)
	require.NoError(t, err)
	assert.Equal(t, GetResult{Path: "MEMORY.md", From: 50, To: 49, TotalLines: 5}, r)

	write(t, filepath.Join(ws, "memory", "long.md"), strings.Repeat("x\n", 2500))
	r, err = e.GetWindow("memory/long.md", 1, 5000)
	require.NoError(t, err)
	assert.Equal(t, 2000, r.To, "lines are capped at 2000")
}

func TestGetScopeRefusals(t *testing.T) {
	ws := fixture(t)
	outside := filepath.Join(t.TempDir(), "secret.md")
	write(t, outside, "secret\n")
	require.NoError(t, os.Symlink(outside, filepath.Join(ws, "memory", "out.md")))
	e := New(ws, Config{})
	for _, p := range []string{
		"notes.md",
		"sessions/x.md",
		"memory/readme.txt",
		"../MEMORY.md",
		"memory/../notes.md",
		"memory/../MEMORY.md",
		"/etc/passwd",
		filepath.Join(ws, "MEMORY.md"),
		"memory/leak.md", // symlink to notes.md (inside the workspace, outside memory/)
		"memory/out.md",  // symlink out of the workspace
		"",
	} {
		_, err := e.Get(p, 1, 10)
		assert.True(t, errors.Is(err, ErrOutOfScope), "%q: %v", p, err)
		out, err := e.Execute(context.Background(), action.Action{Type: "memory_get", Params: map[string]any{"path": p}})
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(out, "memory_get failed: "), out)
		assert.NotContains(t, out, "secret\n")
	}
	_, err := e.Get("memory/none.md", 1, 10)
	assert.EqualError(t, err, "memory/none.md does not exist")
}

// TestGetSymlinkSwapRace turns memory/sub into a real directory and a link
// to one outside the workspace, in turn, while memory_get reads
// memory/sub/note.md: the check resolves the path, the read must not
// follow a link swapped in after it.
func TestGetSymlinkSwapRace(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "note.md"), []byte("TOP-SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	mem := filepath.Join(ws, "memory")
	realDir := filepath.Join(mem, "real")
	if err := os.MkdirAll(realDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(realDir, "note.md"), []byte("fine"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := New(ws, Config{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		// memory/sub is the real directory, then a link out, in turn: the
		// check may resolve it as the directory and the read meet the link.
		sub := filepath.Join(mem, "sub")
		for range 5000 {
			os.Rename(realDir, sub)
			os.Rename(sub, realDir)
			os.Symlink(outside, sub)
			os.Remove(sub)
		}
	}()
	reads := 0
	for {
		select {
		case <-done:
			t.Logf("%d reads during 20000 swaps", reads)
			return
		default:
		}
		text, err := e.Get("memory/sub/note.md", 1, 10)
		if err == nil {
			reads++
		}
		if strings.Contains(text, "SECRET") {
			t.Fatal("memory_get read the secret through a swapped symlink")
		}
	}
}
