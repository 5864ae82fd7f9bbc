package workspace

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSaveStepScreenshotNamingAndRetention(t *testing.T) {
	h := openTestHome(t)
	cfg := h.Config()
	cfg.Screenshots.MaxCount = 3
	if err := h.SaveConfig(cfg); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 2, 18, 13, 0, 0, 0, time.UTC)
	path, err := h.SaveStepScreenshot(at, "20260218-130000", 7, "com.android.settings/.Main Activity", []byte("png1"))
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(h.Dir(), "state", "screenshots", "20260218-130000-session-20260218-130000-step-007-com.android.settings_.Main_Activity.png")
	if path != want {
		t.Fatalf("path = %s\nwant %s", path, want)
	}
	if got := readFile(t, path); got != "png1" {
		t.Fatalf("content = %q", got)
	}
	dir := filepath.Dir(path)
	base := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, base, base); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for i := range 5 {
		p, err := h.SaveStepScreenshot(at.Add(time.Duration(i+1)*time.Second), "s", i+1, "", []byte("x"))
		if err != nil {
			t.Fatal(err)
		}
		mod := base.Add(time.Duration(i+1) * time.Minute)
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, filepath.Base(p))
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	wantNames := append([]string{"notes.txt"}, paths[2:]...)
	slices.Sort(wantNames)
	if !slices.Equal(names, wantNames) {
		t.Fatalf("kept %v\nwant %v", names, wantNames)
	}
	if !strings.HasSuffix(paths[0], "-step-001-unknown.png") {
		t.Fatalf("empty app name: %s", paths[0])
	}
}

func TestSaveStepScreenshotDisabled(t *testing.T) {
	h := openTestHome(t)
	cfg := h.Config()
	cfg.Screenshots.SaveStepScreenshots = false
	if err := h.SaveConfig(cfg); err != nil {
		t.Fatal(err)
	}
	p, err := h.SaveStepScreenshot(time.Now(), "s", 1, "app", []byte("x"))
	if p != "" || err != nil {
		t.Fatalf("got %q, %v; want \"\", nil", p, err)
	}
	if _, err := os.Stat(filepath.Join(h.State(), "screenshots")); !os.IsNotExist(err) {
		t.Fatalf("screenshots dir created: %v", err)
	}
}

func TestModeStorePersists(t *testing.T) {
	h := openTestHome(t)
	m, err := h.ModeStore()
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Get("default"); got != "" {
		t.Fatalf("Get on empty store = %q", got)
	}
	if err := m.Set("default", "responses"); err != nil {
		t.Fatal(err)
	}
	m2, err := OpenModeStore(filepath.Join(h.State(), "model-modes.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := m2.Get("default"); got != "responses" {
		t.Fatalf("reloaded mode = %q", got)
	}
	want := "{\n  \"version\": 1,\n  \"modes\": {\n    \"default\": \"responses\"\n  }\n}\n"
	if got := readFile(t, filepath.Join(h.State(), "model-modes.json")); got != want {
		t.Fatalf("file = %q", got)
	}
	if err := os.WriteFile(filepath.Join(h.State(), "model-modes.json"), []byte("{\n  \"modes\": {\"a\" \"b\"}}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := h.ModeStore(); err == nil || !strings.Contains(err.Error(), "model-modes.json:2:17: expected ':'") {
		t.Fatalf("malformed modes file error = %v", err)
	}
}

func TestContextFilesCapsAndBudget(t *testing.T) {
	h := openTestHome(t)
	write := func(name string, n int) {
		if err := os.WriteFile(filepath.Join(h.Workspace(), name), []byte(strings.Repeat("a", n)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("AGENTS.md", 25000)
	write("USER.md", 100)
	write("MEMORY.md", 5000)
	files := h.ContextFiles(0)
	var got []string
	for _, f := range files {
		got = append(got, f.Name)
	}
	if !slices.Equal(got, []string{"AGENTS.md", "USER.md", "MEMORY.md"}) {
		t.Fatalf("files = %v", got)
	}
	if len(files[0].Content) != 20000 || !files[0].Truncated || files[0].OriginalChars != 25000 {
		t.Fatalf("AGENTS.md not capped: len=%d truncated=%v", len(files[0].Content), files[0].Truncated)
	}
	if files[1].Truncated || len(files[1].Content) != 100 {
		t.Fatalf("USER.md = %+v", files[1])
	}
	// A small budget cuts the file that crosses it and drops the rest.
	files = h.ContextFiles(20050)
	if len(files) != 2 || len(files[1].Content) != 50 || !files[1].Truncated {
		t.Fatalf("budgeted files = %d, second len=%d", len(files), len(files[1].Content))
	}
}
