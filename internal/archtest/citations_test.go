package archtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// outsideDocs are documents the project was built from that do not ship in
// the repository; a comment citing them leaves the reader with nothing to
// open. The formats live in docs/formats.md.
var outsideDocs = regexp.MustCompile(`\bseeds?\s+00\d|REFERENCE\.md|the seeds'`)

func TestCommentsCiteOnlyTheRepository(t *testing.T) {
	root := "../.."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != root || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "citations_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if outsideDocs.MatchString(line) {
				t.Errorf("%s:%d cites a document outside the repository (point to docs/formats.md instead): %s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
