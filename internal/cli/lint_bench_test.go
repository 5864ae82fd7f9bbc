package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openpocket/openpocket/playbooks"
)

// BenchmarkLintWithLuaCheck measures lint of a 1,000-step playbook, which
// now also compiles the generated Lua, against a floor measured in the
// same run: the YAML → Lua compilation alone, as lint did before.
func BenchmarkLintWithLuaCheck(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("name: big\nsteps:\n")
	for i := range 1000 {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&sb, "  - tap: \"Item %d\"\n", i)
		case 1:
			fmt.Fprintf(&sb, "  - lua: \"local n = %d; assert(n == %d)\"\n", i, i)
		default:
			fmt.Fprintf(&sb, "  - assert_visible: \"Row ${%d + 1}\"\n", i)
		}
	}
	// Each run lints a different name so the generated Lua differs and the
	// compiled-chunk cache never answers: this is the cost of a first lint.
	steps := sb.String()
	file := filepath.Join(b.TempDir(), "big.yaml")
	write := func(i int) []byte {
		src := []byte(strings.Replace(steps, "name: big", fmt.Sprintf("name: big-%d", i), 1))
		if err := os.WriteFile(file, src, 0o644); err != nil {
			b.Fatal(err)
		}
		return src
	}
	const floorRuns = 5
	var floor time.Duration
	for i := range floorRuns {
		src := write(-1 - i)
		t0 := time.Now()
		if _, err := playbooks.CompileWithMap(src, playbooks.Options{File: file, Lint: true}); err != nil {
			b.Fatal(err)
		}
		floor += time.Since(t0)
	}
	floor /= floorRuns
	app := &App{sys: testSystem{}, Stdout: io.Discard, Stderr: &bytes.Buffer{}, Ctx: context.Background()}
	b.ResetTimer()
	var total time.Duration
	for i := range b.N {
		b.StopTimer()
		write(i)
		b.StartTimer()
		t0 := time.Now()
		if _, err := compilePlaybook(app.Stderr, file, playbookParams{lint: true}); err != nil {
			b.Fatal(err)
		}
		total += time.Since(t0)
	}
	b.ReportMetric(float64(total/time.Duration(b.N))/float64(floor), "x-compile-floor")
}
