package coding

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readTree returns every regular file under dir as relative path → content.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		return out
	}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	}))
	return out
}

// TestApplyPatchGolden runs every testdata/patch/<case>: before/ is copied
// into a workspace, patch.txt applied, and the workspace must equal after/;
// result.txt is the expected result text, error.txt the expected failure.
func TestApplyPatchGolden(t *testing.T) {
	cases, err := os.ReadDir("testdata/patch")
	require.NoError(t, err)
	require.NotEmpty(t, cases)
	for _, c := range cases {
		t.Run(c.Name(), func(t *testing.T) {
			dir := filepath.Join("testdata/patch", c.Name())
			e, ws := newTestExecutor(t)
			for rel, content := range readTree(t, filepath.Join(dir, "before")) {
				writeFile(t, filepath.Join(ws, rel), content)
			}
			patch, err := os.ReadFile(filepath.Join(dir, "patch.txt"))
			require.NoError(t, err)

			out, err := e.Execute(context.Background(), act("apply_patch", "input", string(patch)))
			require.NoError(t, err)
			if want, err := os.ReadFile(filepath.Join(dir, "error.txt")); err == nil {
				assert.Equal(t, "apply_patch failed: "+strings.TrimRight(string(want), "\n"), out)
			} else {
				want, err := os.ReadFile(filepath.Join(dir, "result.txt"))
				require.NoError(t, err)
				assert.Equal(t, strings.TrimRight(string(want), "\n"), out)
			}
			assert.Equal(t, readTree(t, filepath.Join(dir, "after")), readTree(t, ws))
		})
	}
}

func TestApplyPatchRefusals(t *testing.T) {
	e, ws := newTestExecutor(t)
	writeFile(t, filepath.Join(ws, "a.txt"), "a\n")
	cases := map[string]string{
		"no begin":      "*** Add File: x\n+x\n*** End Patch",
		"no end":        "*** Begin Patch\n*** Add File: x\n+x",
		"empty":         "*** Begin Patch\n*** End Patch",
		"bad add line":  "*** Begin Patch\n*** Add File: x\nx\n*** End Patch",
		"add exists":    "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch",
		"update absent": "*** Begin Patch\n*** Update File: nope.txt\n@@\n-a\n+b\n*** End Patch",
		"delete absent": "*** Begin Patch\n*** Delete File: nope.txt\n*** End Patch",
		"escape":        "*** Begin Patch\n*** Add File: ../evil.txt\n+x\n*** End Patch",
		"twice":         "*** Begin Patch\n*** Delete File: a.txt\n*** Delete File: a.txt\n*** End Patch",
		"bad hunk line": "*** Begin Patch\n*** Update File: a.txt\n@@\n?a\n*** End Patch",
		"anchor":        "*** Begin Patch\n*** Update File: a.txt\n@@ missing anchor\n-a\n+b\n*** End Patch",
	}
	for name, patch := range cases {
		_, err := e.ApplyPatch(patch)
		assert.Error(t, err, name)
	}
	assert.Equal(t, map[string]string{"a.txt": "a\n"}, readTree(t, ws))

	off, _ := newTestExecutor(t, func(c *Config) { c.ApplyPatchEnabled = false })
	out, err := off.Execute(context.Background(), act("apply_patch", "input", "*** Begin Patch\n*** Add File: x\n+x\n*** End Patch"))
	require.NoError(t, err)
	assert.Equal(t, "apply_patch failed: apply_patch is disabled (codingTools.applyPatchEnabled=false)", out)
}

func TestApplyHunksDetails(t *testing.T) {
	// CRLF files keep CRLF; a file without final newline keeps that.
	got, err := applyHunks("a\r\nb\r\n", []Hunk{{Old: []string{"b"}, New: []string{"B"}}})
	require.Nil(t, err)
	assert.Equal(t, "a\r\nB\r\n", got)
	got, err = applyHunks("a\nb", []Hunk{{Old: []string{"a"}, New: []string{"A"}}})
	require.Nil(t, err)
	assert.Equal(t, "A\nb", got)
	// Pure additions append; EOF hunks match at the end only.
	got, err = applyHunks("x\ny\nx\n", []Hunk{{Old: []string{"x"}, New: []string{"z"}, EOF: true}, {New: []string{"end"}}})
	require.Nil(t, err)
	assert.Equal(t, "x\ny\nz\nend\n", got)
	// Hunks are found in order: the second "x" after the first hunk.
	got, err = applyHunks("x\nx\n", []Hunk{{Old: []string{"x"}, New: []string{"1"}}, {Old: []string{"x"}, New: []string{"2"}}})
	require.Nil(t, err)
	assert.Equal(t, "1\n2\n", got)
}
