package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkSearchFolded measures memory_search over a year of daily memory
// (365 files, 40 lines each) and reports the ratio to a floor measured in
// the same run: the same windows only lowercased, as before folding.
func BenchmarkSearchFolded(b *testing.B) {
	dir := b.TempDir()
	mem := filepath.Join(dir, "memory")
	if err := os.MkdirAll(mem, 0o755); err != nil {
		b.Fatal(err)
	}
	for d := range 365 {
		var sb strings.Builder
		for l := range 40 {
			fmt.Fprintf(&sb, "- [10:%02d:00] [OK] [default] task: turn Wi-Fi off, résumé #%d | result: done\n", l, d*40+l)
		}
		if err := os.WriteFile(filepath.Join(mem, fmt.Sprintf("2026-%03d.md", d)), []byte(sb.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	e := New(dir, Config{})
	floor := func() {
		files, _ := e.files()
		tokens := Tokens("wifi resume")
		for _, f := range files {
			data, _ := os.ReadFile(f.abs)
			lines := splitLines(string(data))
			for start := 0; start < len(lines); start += windowStride {
				end := min(start+windowLines, len(lines))
				Score(strings.ToLower(strings.Join(lines[start:end], "\n")), "wifi resume", tokens)
				if end == len(lines) {
					break
				}
			}
		}
	}
	floorStart := time.Now()
	const floorRuns = 5
	for range floorRuns {
		floor()
	}
	floorPerOp := time.Since(floorStart) / floorRuns
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		res, err := e.Search("wifi resume", 10, 0.5)
		if err != nil || len(res.Results) == 0 {
			b.Fatal(err, res)
		}
	}
	perOp := time.Since(start) / time.Duration(b.N)
	b.ReportMetric(float64(perOp)/float64(floorPerOp), "x-lowercase-floor")
}
