package playbooks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openpocket/openpocket/lua"
)

func FuzzCompile(f *testing.F) {
	for _, path := range goldenFiles(f) {
		raw, _ := os.ReadFile(path)
		for _, file := range parseArchive(string(raw)).files {
			if strings.HasSuffix(file.name, ".yaml") {
				f.Add([]byte(file.data))
			}
		}
	}
	f.Add([]byte("a: &a [*a]"))
	f.Add([]byte("steps: [{assert: 0}]"))
	f.Add([]byte("steps: [&a {tap: {x: 1, y: 1}}, &b [*a, *a, *a], [*b, *b, *b]]"))
	f.Add([]byte("steps: [{tap: {below: {below: {below: x}}}}]"))
	f.Fuzz(func(t *testing.T, src []byte) {
		res, err := CompileWithMap(src, Options{File: "fuzz.yaml", ResolveInclude: func(string) ([]byte, string, error) {
			return nil, "", errors.New("no includes")
		}})
		if err == nil && len(res.Lua) == 0 {
			t.Fatal("no error and no Lua")
		}
		if err != nil {
			var l ErrorList
			if !errors.As(err, &l) || len(l) == 0 {
				t.Fatalf("error is not an ErrorList: %T %v", err, err)
			}
		}
	})
}

func TestExamplesLint(t *testing.T) {
	files, _ := filepath.Glob("../examples/*.yaml")
	if len(files) == 0 {
		t.Fatal("no examples found in ../examples: the glob or the layout changed")
	}
	warns, err := Lint(files...)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range warns {
		t.Logf("%s", w)
	}
	for _, f := range files {
		src, _ := os.ReadFile(f)
		res, err := CompileWithMap(src, Options{File: f})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		mustLoad(t, f, res)
	}
}

// bigPlaybook generates n steps of mixed kinds.
func bigPlaybook(n int) []byte {
	var b strings.Builder
	b.WriteString("name: big\napp: com.openpocket.notes\nparams:\n  note: milk\nsteps:\n")
	kinds := []string{
		"  - tap: Save\n",
		"  - input: {text: \"${note} %d\", into: {id: note_input}}\n",
		"  - assert_visible: {id: note_item, text_contains: \"%d\"}\n",
		"  - if: {visible: Allow}\n    then: [{tap: Allow}]\n",
		"  - swipe: up\n",
	}
	for i := 0; i < n; i++ {
		k := kinds[i%len(kinds)]
		if strings.Contains(k, "%d") {
			k = fmt.Sprintf(k, i)
		}
		b.WriteString(k)
	}
	return []byte(b.String())
}

func BenchmarkCompile1000Steps(b *testing.B) {
	src := bigPlaybook(1000)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, _, err := Compile(src, Options{File: "big.yaml"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/op")
}

// Per-step overhead: a compiled tap step versus the same ui.tap call
// written by hand, both in the sandbox against a no-op ui module.
const noopUI = `return {tap = function(sel, o) return true end, exists = function() return false end, on_poll = function() end}`

func benchVM(b *testing.B, withFlow bool) *lua.VM {
	reg := lua.NewRegistry()
	reg.MustRegisterSource("ui", noopUI)
	reg.MustRegisterSource("events", `return {emit = function() end}`)
	reg.MustRegisterSource("time", `local t = 0 return {now_ms = function() t = t + 1 return t end}`)
	if withFlow {
		reg.MustRegisterSource(RuntimeModule, RuntimeSource)
	}
	vm, err := lua.New(context.Background(), reg, lua.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return vm
}

func BenchmarkStepOverhead(b *testing.B) {
	const steps = 1000
	var yaml strings.Builder
	yaml.WriteString("steps:\n")
	var hand strings.Builder
	hand.WriteString("local ui = require('ui')\nlocal function must(v, e) if v == nil and e then error(e, 0) end return v end\n")
	for i := 0; i < steps; i++ {
		yaml.WriteString("  - tap: Save\n")
		hand.WriteString("must(ui.tap(\"Save\", {timeout_ms = 5000}))\n")
	}
	compiled, _, err := Compile([]byte(yaml.String()), Options{File: "b.yaml"})
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, src []byte, withFlow bool) time.Duration {
		vm := benchVM(b, withFlow)
		defer vm.Close()
		// Compile the chunk before timing: the proto cache makes every later
		// run skip it.
		if err := vm.Run("bench", src); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		start := time.Now()
		for i := 0; i < b.N; i++ {
			if err := vm.Run("bench", src); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(start)
	}
	var handNs, flowNs float64
	b.Run("hand", func(b *testing.B) {
		d := run(b, []byte(hand.String()), false)
		handNs = float64(d.Nanoseconds()) / float64(b.N) / steps
		b.ReportMetric(handNs, "ns/step")
	})
	b.Run("compiled", func(b *testing.B) {
		d := run(b, compiled, true)
		flowNs = float64(d.Nanoseconds()) / float64(b.N) / steps
		b.ReportMetric(flowNs, "ns/step")
		if handNs > 0 {
			b.ReportMetric(flowNs/handNs, "ratio")
			b.ReportMetric(flowNs-handNs, "overhead-ns/step")
		}
	})
}
