package skills_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/skills"
	"github.com/openpocket/openpocket/stdlib/skillsmod"
)

func act(t *testing.T, typ string, p map[string]any) action.Action { return mustAction(t, typ, p) }

func wifiSteps(t *testing.T) []engine.TraceStep {
	return []engine.TraceStep{
		{Step: 1, Action: act(t, "launch_app", map[string]any{"packageName": "com.android.settings"}), AppBefore: "com.android.launcher3", AppAfter: "com.android.settings", Changed: true},
		{Step: 2, Thought: "Tap the switch", Action: act(t, "tap_element", map[string]any{"elementId": "3"}),
			DeviceAction: act(t, "tap", map[string]any{"x": 964, "y": 304}), AppBefore: "com.android.settings", AppAfter: "com.android.settings", Changed: true,
			Target: &engine.Target{ResourceID: "com.android.settings:id/wifi_switch", ClassName: "android.widget.Switch", Bounds: screen.Rect{Left: 891, Top: 252, Right: 1038, Bottom: 357}}},
		{Step: 3, Action: act(t, "type", map[string]any{"text": `say "hi"\n`}), AppBefore: "com.android.settings"},
		{Step: 4, Action: act(t, "request_human_auth", map[string]any{"capability": "2fa", "instruction": "code"}), AppBefore: "com.android.settings"},
		{Step: 5, Action: act(t, "finish", map[string]any{"message": "done"}), AppBefore: "com.android.settings"},
	}
}

func TestFingerprint(t *testing.T) {
	steps := wifiSteps(t)
	want := "com.android.launcher3:launch_app:com.android.settings|com.android.settings:tap_element|com.android.settings:type|com.android.settings:request_human_auth:2fa|com.android.settings:finish"
	sum := sha256.Sum256([]byte(want))
	if got := skills.Fingerprint(steps); got != hex.EncodeToString(sum[:])[:12] {
		t.Fatalf("fingerprint %s", got)
	}
	long := make([]engine.TraceStep, 30)
	for i := range long {
		long[i] = steps[1]
	}
	changed := append(append([]engine.TraceStep(nil), long...), steps[0])
	if skills.Fingerprint(long) != skills.Fingerprint(changed) {
		t.Fatal("steps after 25 changed the fingerprint")
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Turn off Wi-Fi!":          "turn-off-wi-fi",
		"  Öffne Kontakte ":        "ffne-kontakte",
		"":                         "task",
		strings.Repeat("abc ", 30): strings.TrimSuffix(strings.Repeat("abc-", 12), "-"),
	} {
		if got := skills.Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGenerateReplay(t *testing.T) {
	src, params := skills.GenerateReplay(wifiSteps(t), skills.ReplayOptions{Name: "wifi", SessionPath: "s.md", Fingerprint: "abc", ScreenWidth: 1080, ScreenHeight: 2400})
	if err := skillsmod.Check("wifi.lua", []byte(src)); err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	for _, want := range []string{
		"-- Run: openpocket skills run wifi -e text_1=",
		`{sel = {id = "com.android.settings:id/wifi_switch", class = "android.widget.Switch"}, why = "recorded selector"}`,
		"point = {964, 304}",
		`local text = params.text_1 or "say \"hi\"\\n"`,
		`return start_app("com.android.settings", {id = "com.android.settings:id/wifi_switch", class = "android.widget.Switch"})`,
		"REC_W, REC_H = 1080, 2400",
		"behavior_fingerprint abc",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("script lacks %q\n%s", want, src)
		}
	}
	if len(params) != 1 || params[0].Default != "say \"hi\"\\n" || params[0].Required {
		t.Fatalf("params %+v", params)
	}
	coord, _ := skills.GenerateReplay(wifiSteps(t), skills.ReplayOptions{CoordinatesOnly: true})
	if !strings.Contains(coord, "  tap_point({") || strings.Contains(coord, "  tap_target({") {
		t.Fatal("coordinate-only script still finds by selector")
	}
}

func TestWriteRemovesDuplicates(t *testing.T) {
	ws := t.TempDir()
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	a1, err := skills.Write(skills.ArtifactOptions{Workspace: ws, Task: "Turn off Wi-Fi", SessionPath: "sessions/a.md", Steps: wifiSteps(t), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(a1.SkillPath, "skills/auto/20260301-100000-turn-off-wi-fi.md") || !strings.HasSuffix(a1.ScriptPath, "scripts/auto/20260301-100000-turn-off-wi-fi.lua") {
		t.Fatalf("paths %s %s", a1.SkillPath, a1.ScriptPath)
	}
	md, _ := os.ReadFile(a1.SkillPath)
	for _, want := range []string{"name: turn-off-wi-fi", "- source_session: sessions/a.md", "- behavior_fingerprint: " + a1.Fingerprint,
		"## When to use", "## Preconditions", "## Procedure", `ui_target: text="" resource-id="com.android.settings:id/wifi_switch"`, "## Completion criteria"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("skill lacks %q\n%s", want, md)
		}
	}
	// Same behaviour under another task name: the fingerprint matches.
	a2, err := skills.Write(skills.ArtifactOptions{Workspace: ws, Task: "Disable wifi please", Steps: wifiSteps(t), Now: now.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if len(a2.Removed) != 2 {
		t.Fatalf("removed %v", a2.Removed)
	}
	for _, p := range []string{a1.SkillPath, a1.ScriptPath} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s survived", p)
		}
	}
	// The same slug with other behaviour replaces it too.
	a3, err := skills.Write(skills.ArtifactOptions{Workspace: ws, Task: "Disable wifi please", Steps: wifiSteps(t)[:2], Now: now.Add(2 * time.Minute)})
	if err != nil || len(a3.Removed) != 2 {
		t.Fatalf("removed %v err %v", a3.Removed, err)
	}
	if _, err := skills.Write(skills.ArtifactOptions{Workspace: ws, Task: "x", Steps: wifiSteps(t)[4:]}); err == nil {
		t.Fatal("a run without device steps produced artifacts")
	}
	// The loader sees the auto skill and finds its script.
	l := &skills.Loader{WorkspaceDir: ws, NoBundled: true}
	s, err := l.Find("disable-wifi-please")
	if err != nil || !s.Auto || s.Location != "skills/auto/20260301-100200-disable-wifi-please.md" {
		t.Fatalf("find: %+v %v", s, err)
	}
	src, from, err := l.Script(s)
	if err != nil || !strings.HasSuffix(from, ".lua") || !strings.Contains(string(src), "OpenPocket replay") {
		t.Fatalf("script from %s: %v", from, err)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoaderPrecedence(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "skills", "wifi.md"), "---\nname: toggle-wifi\ndescription: home version\n---\nbody\n")
	write(t, filepath.Join(home, "skills", "only-home.md"), "# Only Home\n\nFrom home.\n")
	write(t, filepath.Join(ws, "skills", "w.md"), "---\nname: toggle-wifi\ndescription: \"workspace: version\"\nmetadata: {\"openpocket\":{\"x\":1}}\n---\n")
	write(t, filepath.Join(ws, "skills", "plain.md"), "no heading here\nsecond line\n")
	write(t, filepath.Join(ws, "skills", "bad.md"), "---\nname: bad\nmetadata: {nope\n---\n")
	l := &skills.Loader{HomeDir: home, WorkspaceDir: ws}
	all, problems := l.Load()
	by := map[string]skills.Skill{}
	for _, s := range all {
		by[s.Name] = s
	}
	w := by["toggle-wifi"]
	if w.Source != skills.SourceWorkspace || w.Description != "workspace: version" || len(w.Shadows) != 2 || w.Metadata["openpocket"] == nil {
		t.Fatalf("toggle-wifi = %+v", w)
	}
	if by["Only Home"].Description != "From home." || by["Only Home"].Source != skills.SourceHome {
		t.Fatalf("only home = %+v", by["Only Home"])
	}
	if by["plain"].Description != "no heading here" {
		t.Fatalf("plain = %+v", by["plain"])
	}
	if len(problems) != 1 || !strings.Contains(problems[0].Error(), "metadata must be a JSON object") {
		t.Fatalf("problems = %v", problems)
	}
	if _, ok := by["save-note"]; !ok {
		t.Fatal("bundled save-note missing")
	}
	idx := l.Index(0)
	if len(idx) != len(all) || idx[0].Location == "" {
		t.Fatalf("index %+v", idx)
	}
	if small := l.Index(120); len(small) >= len(all) || len(small) == 0 {
		t.Fatalf("budgeted index has %d of %d", len(small), len(all))
	}
	// Every location in the index is a workspace-relative file the
	// workspace-only read tool can open, bundled and home skills included.
	locs := map[string]string{}
	for _, e := range idx {
		locs[e.Name] = e.Location
		if filepath.IsAbs(e.Location) || strings.HasPrefix(e.Location, "bundled:") {
			t.Errorf("%s: index location %q is outside the workspace", e.Name, e.Location)
			continue
		}
		b, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(e.Location)))
		if err != nil {
			t.Errorf("%s: %v", e.Name, err)
			continue
		}
		if s, err := skills.Parse(filepath.Base(e.Location), b); err != nil || s.Name != e.Name {
			t.Errorf("%s: copy at %s parses as %q, %v", e.Name, e.Location, s.Name, err)
		}
	}
	if want := skills.ReadableDir + "/bundled/save-note.md"; locs["save-note"] != want {
		t.Errorf("save-note location %q, want %q", locs["save-note"], want)
	}
	if want := skills.ReadableDir + "/home/only-home.md"; locs["Only Home"] != want {
		t.Errorf("Only Home location %q, want %q", locs["Only Home"], want)
	}
	// The copies do not become workspace skills themselves.
	if again, _ := l.Load(); len(again) != len(all) {
		t.Errorf("after Index the loader finds %d skills, before %d", len(again), len(all))
	}
}

func TestParseFrontmatter(t *testing.T) {
	s, err := skills.Parse("empty.md", []byte("---\n---\n# Title\n\nFirst line.\n"))
	if err != nil || s.Name != "Title" || s.Description != "First line." {
		t.Fatalf("empty frontmatter: %+v, %v", s, err)
	}
	s, err = skills.Parse("x.md", []byte("---\r\nname: 'it''s'\r\n---\r\nbody\r\n"))
	if err != nil || s.Name != "it's" || s.Description != "body" {
		t.Fatalf("CRLF frontmatter: %+v, %v", s, err)
	}
	if _, err := skills.Parse("open.md", []byte("---\nname: x\nbody\n")); err == nil {
		t.Fatal("unclosed frontmatter accepted")
	}
	if _, err := skills.Parse("bad.md", []byte("---\nname x\n---\n")); err == nil || !strings.Contains(err.Error(), "frontmatter line 2: expected key: value") {
		t.Fatalf("bad line: %v", err)
	}
}

func TestBundledSkillsCompile(t *testing.T) {
	all, problems := (&skills.Loader{}).Load()
	if len(problems) > 0 || len(all) < 2 {
		t.Fatalf("bundled: %d skills, problems %v", len(all), problems)
	}
	for _, s := range all {
		src, _, err := (&skills.Loader{}).Script(s)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if err := skillsmod.Check(s.Name, src); err != nil {
			t.Fatal(err)
		}
	}
}

// A target the agent recorded with nothing but its class (a row whose label
// lives in a child) is found by class and index, before the recorded point.
func TestClassOnlyTarget(t *testing.T) {
	tg := &engine.Target{ClassName: "android.widget.LinearLayout", Index: 2}
	c := skills.Candidates(tg)
	if len(c) != 1 || c[0].Sel.Class != tg.ClassName || c[0].Sel.Index == nil || *c[0].Sel.Index != 2 {
		t.Fatalf("candidates %+v", c)
	}
	row := &engine.Target{Text: "Wi-Fi", ClassName: "android.widget.LinearLayout"}
	if s, _ := engine.PrimarySelector(row); s.Text != "Wi-Fi" || s.Class != "" {
		t.Fatalf("a row with its label is found by the label, got %+v", s)
	}
}

// TestSkillScriptPathStaysInWorkspace: a (possibly model-written) skill
// whose metadata points its script at a file outside the workspace gets no
// script from there: absolute paths, .. and symlinks are refused.
func TestSkillScriptPathStaysInWorkspace(t *testing.T) {
	home, ws, outside := t.TempDir(), t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "config.json")
	write(t, secret, `{"apiKey":"sk-SECRET"}`)
	if err := os.Symlink(outside, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(ws, "scripts", "ok.lua"), "return 1")
	rel, _ := filepath.Rel(ws, secret)
	l := &skills.Loader{HomeDir: home, WorkspaceDir: ws}
	for _, p := range []string{secret, filepath.ToSlash(rel), "link/config.json", "scripts/ok.lua"} {
		md := "---\nname: s\nmetadata: {\"openpocket\":{\"script\":\"" + p + "\"}}\n---\nbody\n"
		write(t, filepath.Join(ws, "skills", "s.md"), md)
		all, _ := l.Load()
		var s skills.Skill
		for _, x := range all {
			if x.Name == "s" {
				s = x
			}
		}
		src, _, err := l.Script(s)
		if p == "scripts/ok.lua" {
			if err != nil || string(src) != "return 1" {
				t.Errorf("a script inside the workspace: %q %v", src, err)
			}
			continue
		}
		if strings.Contains(string(src), "SECRET") || !errors.Is(err, skills.ErrNoScript) {
			t.Errorf("script %q: got %q, %v; want ErrNoScript", p, src, err)
		}
	}
}
