package maestro

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkConvertFlow converts the corpus' largest flow and reports the
// time as a ratio to the floor measured in the same run: decoding the same
// source into yaml.Nodes, which every conversion must do first.
func BenchmarkConvertFlow(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(corpus, "notes.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	floor := measure(func() {
		if _, _, err := splitDocs(src); err != nil {
			b.Fatal(err)
		}
	})
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, _, err := ConvertFlow(src, "notes.yaml"); err != nil {
			b.Fatal(err)
		}
	}
	per := time.Since(start) / time.Duration(b.N)
	b.ReportMetric(float64(per)/float64(floor), "x-yaml-decode")
}

// measure is the mean time of fn over enough runs to be stable.
func measure(fn func()) time.Duration {
	const n = 200
	start := time.Now()
	for i := 0; i < n; i++ {
		fn()
	}
	return time.Since(start) / n
}
