package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openpocket/openpocket/engine"
)

func openTestHome(t *testing.T) *Home {
	t.Helper()
	h, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h.Now = func() time.Time { return time.Date(2026, 2, 22, 3, 5, 0, 0, time.UTC) }
	return h
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestSessionExactFormat(t *testing.T) {
	h := openTestHome(t)
	start := time.Date(2026, 2, 22, 3, 0, 0, 0, time.UTC)
	s, err := h.BeginSession(engine.SessionMeta{Task: "Open settings", ModelProfile: "default", ModelName: "gpt-4.1", StartedAt: start})
	if err != nil {
		t.Fatal(err)
	}
	if s.ID() != "20260222-030000" {
		t.Fatalf("id = %q", s.ID())
	}
	if want := filepath.Join(h.Workspace(), "sessions", "session-20260222-030000.md"); s.Path() != want {
		t.Fatalf("path = %q, want %q", s.Path(), want)
	}
	if err := s.AppendStep(engine.StepRecord{Step: 1, At: start.Add(2 * time.Second), Thought: "", ActionJSON: []byte(`{"type":"tap","x":10,"y":20}`), Result: "Tapped at (10, 20)"}); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendStep(engine.StepRecord{Step: 2, At: start.Add(4 * time.Second), Thought: "Use ```code``` here", ActionJSON: []byte(`{"type":"finish","message":"done"}`), Result: "done\n"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Finalize(true, "Settings opened"); err != nil {
		t.Fatal(err)
	}
	want := "# OpenPocket Session\n" +
		"\n" +
		"- id: 20260222-030000\n" +
		"- started_at: 2026-02-22T03:00:00.000Z\n" +
		"- model_profile: default\n" +
		"- model_name: gpt-4.1\n" +
		"\n" +
		"## Task\n" +
		"\n" +
		"Open settings\n" +
		"\n" +
		"## Steps\n" +
		"\n" +
		"### Step 1\n" +
		"\n" +
		"- at: 2026-02-22T03:00:02.000Z\n" +
		"- thought:\n" +
		"```text\n" +
		"(empty)\n" +
		"```\n" +
		"- action:\n" +
		"```json\n" +
		"{\n  \"type\": \"tap\",\n  \"x\": 10,\n  \"y\": 20\n}\n" +
		"```\n" +
		"- execution_result:\n" +
		"```text\n" +
		"Tapped at (10, 20)\n" +
		"```\n" +
		"\n" +
		"### Step 2\n" +
		"\n" +
		"- at: 2026-02-22T03:00:04.000Z\n" +
		"- thought:\n" +
		"````text\n" +
		"Use ```code``` here\n" +
		"````\n" +
		"- action:\n" +
		"```json\n" +
		"{\n  \"type\": \"finish\",\n  \"message\": \"done\"\n}\n" +
		"```\n" +
		"- execution_result:\n" +
		"```text\n" +
		"done\n" +
		"```\n" +
		"\n" +
		"## Final\n" +
		"\n" +
		"- status: SUCCESS\n" +
		"- ended_at: 2026-02-22T03:05:00.000Z\n" +
		"\n" +
		"### Message\n" +
		"\n" +
		"Settings opened\n"
	if got := readFile(t, s.Path()); got != want {
		t.Fatalf("session file:\n%s\n--- want ---\n%s", got, want)
	}
}

func TestSessionFinalizeOnceAndAppendAfterFinalize(t *testing.T) {
	h := openTestHome(t)
	s, err := h.BeginSession(engine.SessionMeta{Task: "t", StartedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Finalize(false, "device lost"); err != nil {
		t.Fatal(err)
	}
	if err := s.Finalize(true, "second"); err != nil {
		t.Fatalf("second Finalize: %v", err)
	}
	got := readFile(t, s.Path())
	if strings.Count(got, "## Final") != 1 || !strings.Contains(got, "- status: FAILED\n") || strings.Contains(got, "second") {
		t.Fatalf("finalize not once:\n%s", got)
	}
	if err := s.AppendStep(engine.StepRecord{Step: 1}); err == nil || !strings.Contains(err.Error(), "already finalized") {
		t.Fatalf("AppendStep after Finalize: %v", err)
	}
}

func TestSessionStepsSurviveWithoutFinalize(t *testing.T) {
	h := openTestHome(t)
	s, err := h.BeginSession(engine.SessionMeta{Task: "t", StartedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if err := s.AppendStep(engine.StepRecord{Step: i, ActionJSON: []byte(`{"type":"wait"}`), Result: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	// Another reader (as after a crash) sees every completed step.
	got := readFile(t, s.Path())
	for i := 1; i <= 3; i++ {
		if !strings.Contains(got, fmt.Sprintf("### Step %d\n", i)) {
			t.Fatalf("step %d missing:\n%s", i, got)
		}
	}
}

func TestSessionIDsAreUniqueWithinASecond(t *testing.T) {
	h := openTestHome(t)
	start := time.Date(2026, 2, 22, 3, 0, 0, 0, time.UTC)
	var ids []string
	for range 3 {
		s, err := h.BeginSession(engine.SessionMeta{Task: "t", StartedAt: start})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID())
		defer s.Finalize(true, "")
	}
	want := []string{"20260222-030000", "20260222-030000-2", "20260222-030000-3"}
	if strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Fatalf("ids = %v, want %v", ids, want)
	}
}

func TestDailyMemoryFormatAndCompaction(t *testing.T) {
	h := openTestHome(t)
	at := time.Date(2026, 2, 22, 14, 3, 9, 0, time.UTC)
	if err := h.AppendDailyMemory(at, true, "default", "Open  the\nsettings", "Done:\n\n  wifi   on\t"); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("é", 450)
	if err := h.AppendDailyMemory(at.Add(time.Second), false, "fast", "x", long); err != nil {
		t.Fatal(err)
	}
	want := "# Memory 2026-02-22\n\n" +
		"- [14:03:09] [OK] [default] task: Open the settings | result: Done: wifi on\n" +
		"- [14:03:10] [FAIL] [fast] task: x | result: " + strings.Repeat("é", 400) + "\n"
	if got := readFile(t, filepath.Join(h.Workspace(), "memory", "2026-02-22.md")); got != want {
		t.Fatalf("memory file:\n%q\nwant\n%q", got, want)
	}
}

func TestDailyMemoryConcurrentAppendsDoNotInterleave(t *testing.T) {
	h := openTestHome(t)
	at := time.Date(2026, 2, 22, 1, 2, 3, 0, time.UTC)
	var wg sync.WaitGroup
	big := strings.Repeat("x", 390)
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				if err := h.AppendDailyMemory(at, true, "p", fmt.Sprintf("g%d-%d", g, i), big); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(readFile(t, h.DailyMemoryPath(at)), "\n"), "\n")
	if lines[0] != "# Memory 2026-02-22" || lines[1] != "" {
		t.Fatalf("header = %q %q", lines[0], lines[1])
	}
	lines = lines[2:]
	if len(lines) != 200 {
		t.Fatalf("got %d lines, want 200", len(lines))
	}
	seen := map[string]bool{}
	for _, l := range lines {
		var g, i int
		if _, err := fmt.Sscanf(l, "- [01:02:03] [OK] [p] task: g%d-%d | result: ", &g, &i); err != nil || !strings.HasSuffix(l, "| result: "+big) {
			t.Fatalf("torn line %q (%v)", l, err)
		}
		seen[fmt.Sprint(g, "-", i)] = true
	}
	if len(seen) != 200 {
		t.Fatalf("distinct entries = %d", len(seen))
	}
}

func TestSessionFilesNewestFirstWithinASecond(t *testing.T) {
	dir := t.TempDir()
	for _, id := range []string{"20261124-101500", "20261124-101500-2", "20261124-101500-10", "20261124-101459", "20261124-101501"} {
		if err := os.WriteFile(filepath.Join(dir, "session-"+id+".md"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, err := SessionFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "session-"), ".md"))
	}
	want := []string{"20261124-101501", "20261124-101500-10", "20261124-101500-2", "20261124-101500", "20261124-101459"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("order %v, want %v", got, want)
	}
}
