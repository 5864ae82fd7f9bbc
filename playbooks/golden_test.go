package playbooks

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/openpocket/openpocket/lua"
)

var update = flag.Bool("update", false, "rewrite the expected sections of testdata/*.txtar")

// archive is a minimal txtar: a comment, then "-- name --" sections.
type archive struct {
	comment string
	files   []archiveFile
}

type archiveFile struct {
	name string
	data string
}

func parseArchive(s string) archive {
	var a archive
	lines := strings.SplitAfter(s, "\n")
	cur := -1
	var b strings.Builder
	flush := func() {
		if cur < 0 {
			a.comment = b.String()
		} else {
			a.files[cur].data = b.String()
		}
		b.Reset()
	}
	for _, ln := range lines {
		t := strings.TrimRight(ln, "\n")
		if strings.HasPrefix(t, "-- ") && strings.HasSuffix(t, " --") && len(t) > 6 {
			flush()
			a.files = append(a.files, archiveFile{name: strings.TrimSpace(t[3 : len(t)-3])})
			cur = len(a.files) - 1
			continue
		}
		b.WriteString(ln)
	}
	flush()
	return a
}

func (a archive) format() string {
	var b strings.Builder
	b.WriteString(a.comment)
	for _, f := range a.files {
		fmt.Fprintf(&b, "-- %s --\n", f.name)
		b.WriteString(f.data)
		if f.data != "" && !strings.HasSuffix(f.data, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

func (a archive) get(name string) (string, bool) {
	for _, f := range a.files {
		if f.name == name {
			return f.data, true
		}
	}
	return "", false
}

func (a *archive) set(name, data string) {
	for i := range a.files {
		if a.files[i].name == name {
			a.files[i].data = data
			return
		}
	}
	a.files = append(a.files, archiveFile{name: name, data: data})
}

func (a *archive) remove(name string) {
	for i := range a.files {
		if a.files[i].name == name {
			a.files = append(a.files[:i], a.files[i+1:]...)
			return
		}
	}
}

// archiveOptions compiles the archive's first .yaml file; the others are
// includes.
func archiveOptions(a archive) ([]byte, Options) {
	var main string
	files := map[string]string{}
	for _, f := range a.files {
		if strings.HasSuffix(f.name, ".yaml") {
			files[f.name] = f.data
			if main == "" {
				main = f.name
			}
		}
	}
	opts := Options{File: main, ResolveInclude: func(path string) ([]byte, string, error) {
		path = filepath.ToSlash(filepath.Clean(path))
		src, ok := files[path]
		if !ok {
			return nil, path, os.ErrNotExist
		}
		return []byte(src), path, nil
	}}
	if ps, ok := a.get("params"); ok {
		opts.Params = map[string]string{}
		for _, ln := range strings.Split(strings.TrimSpace(ps), "\n") {
			if k, v, ok := strings.Cut(ln, "="); ok {
				opts.Params[k] = v
			}
		}
	}
	return []byte(files[main]), opts
}

func goldenFiles(t testing.TB) []string {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	sort.Strings(files)
	return files
}

func TestGolden(t *testing.T) {
	for _, path := range goldenFiles(t) {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			a := parseArchive(string(raw))
			src, opts := archiveOptions(a)
			res, err := CompileWithMap(src, opts)
			var warn strings.Builder
			for _, w := range res.Warnings {
				warn.WriteString(w.String() + "\n")
			}
			got := map[string]string{"want.warn": warn.String()}
			if err != nil {
				got["want.err"] = err.Error() + "\n"
			} else {
				got["want.lua"] = string(res.Lua)
				got["want.plan"] = FormatPlan(res.Plan)
			}
			if *update {
				for _, name := range []string{"want.err", "want.lua", "want.plan", "want.warn"} {
					if v, ok := got[name]; ok && (v != "" || name != "want.warn") {
						a.set(name, v)
					} else {
						a.remove(name)
					}
				}
				if err := os.WriteFile(path, []byte(a.format()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, name := range []string{"want.err", "want.lua", "want.plan", "want.warn"} {
				want, ok := a.get(name)
				if !ok {
					if g := got[name]; g != "" {
						t.Errorf("unexpected %s (run with -update to record):\n%s", name, g)
					}
					continue
				}
				if g := got[name]; strings.TrimRight(g, "\n") != strings.TrimRight(want, "\n") {
					t.Errorf("%s mismatch (run go test -update):\n--- got ---\n%s\n--- want ---\n%s", name, g, want)
				}
			}
			if err == nil {
				mustLoad(t, path, res)
			}
		})
	}
}

// mustLoad checks that the generated Lua is valid Lua 5.1 for gopher-lua.
func mustLoad(t testing.TB, name string, res *Result) {
	t.Helper()
	vm, err := lua.New(context.Background(), lua.NewRegistry(), lua.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	if _, err := vm.L.LoadString(string(res.Lua)); err != nil {
		t.Fatalf("%s: generated Lua does not parse: %v\n%s", name, err, numbered(res.Lua))
	}
}

func numbered(src []byte) string {
	var b bytes.Buffer
	for i, ln := range strings.Split(string(src), "\n") {
		fmt.Fprintf(&b, "%4d  %s\n", i+1, ln)
	}
	return b.String()
}

// TestGoldenCoversEveryStep fails when a step kind has no golden test.
func TestGoldenCoversEveryStep(t *testing.T) {
	var all strings.Builder
	for _, path := range goldenFiles(t) {
		raw, _ := os.ReadFile(path)
		all.Write(raw)
	}
	text := all.String()
	for _, name := range []string{
		"launch", "stop", "clear_state", "tap", "double_tap", "long_press", "input", "erase", "key", "back", "home",
		"swipe", "scroll_until_visible", "wait_for", "wait_idle", "sleep", "assert_visible", "assert_not_visible",
		"assert_text", "assert", "screenshot", "copy_text", "set", "if", "repeat", "for_each", "retry", "run",
		"shell", "lua", "keyevent", "launch_app", "type", "wait", "drag", "long_press_drag", "tap_element",
	} {
		if !strings.Contains(text, "- "+name+":") && !strings.Contains(text, "- "+name+"\n") {
			t.Errorf("no golden test uses step %q", name)
		}
	}
}

func TestRuntimeSourceLoads(t *testing.T) {
	reg := lua.NewRegistry()
	if err := reg.RegisterSource(RuntimeModule, RuntimeSource); err != nil {
		t.Fatal(err)
	}
	vm, err := lua.New(context.Background(), reg, lua.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	if err := vm.Run("t", []byte(`local f = require("flow"); assert(type(f.run) == "function")`)); err != nil {
		t.Fatal(err)
	}
}

func TestErrorListUnwraps(t *testing.T) {
	_, _, err := Compile([]byte("steps:\n  - tpa: Save\n  - bakc\n"), Options{File: "x.yaml"})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want *Error, got %T %v", err, err)
	}
	l, ok := asErrorList(err)
	if !ok || len(l) != 2 {
		t.Fatalf("want 2 errors, got %v", err)
	}
	if e.Line != 2 || e.Column != 5 || e.Step != "steps[0]" {
		t.Errorf("first error at %d:%d %q", e.Line, e.Column, e.Step)
	}
	if !strings.Contains(e.Message, `did you mean "tap"?`) {
		t.Errorf("no suggestion: %s", e.Message)
	}
	if !strings.Contains(e.Snippet, "^") {
		t.Errorf("no caret: %q", e.Snippet)
	}
}

func TestSourceMapLookup(t *testing.T) {
	src := "steps:\n  - back\n  - lua: |\n      local a = 1\n      local b = 2\n"
	res, err := CompileWithMap([]byte(src), Options{File: "m.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	found := map[int]bool{}
	for i, ln := range strings.Split(string(res.Lua), "\n") {
		f, yl, label, ok := res.Map.Lookup(i + 1)
		switch strings.TrimSpace(ln) {
		case "flow.must(device.back())":
			found[2] = ok && f == "m.yaml" && yl == 2 && label == "back"
		case "local b = 2":
			found[5] = ok && yl == 5
		case `local flow = require("flow")`:
			found[0] = !ok
		}
	}
	for _, k := range []int{0, 2, 5} {
		if !found[k] {
			t.Errorf("mapping for YAML line %d wrong: %v", k, found)
		}
	}
	if _, _, ok := res.Map.VMFunc(res.Chunk)("m.yaml", 2); ok {
		t.Error("VMFunc remapped a YAML position")
	}
}

func TestSnippetCutsLongLinesByCharacter(t *testing.T) {
	line := strings.Repeat("é", 250)
	got := snippet([]byte("steps:\n  - tap: "+line+"\n"), 2, 5)
	first := strings.SplitN(got, "\n", 2)[0]
	if !utf8.ValidString(got) || !strings.HasSuffix(first, strings.Repeat("é", 191)+"…") {
		t.Errorf("snippet = %q", got)
	}
}
