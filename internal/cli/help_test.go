package cli

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from the current output")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run go test ./internal/cli -run %s -update", t.Name())
	assert.Equal(t, string(want), got, "%s changed; if intended, run go test ./internal/cli -run %s -update", path, t.Name())
}

// commandPaths lists every command of the grammar ("" is the top level),
// hidden ones excluded.
func commandPaths(t *testing.T) []string {
	var c CLI
	p, err := kong.New(&c, kong.Name("openpocket"))
	require.NoError(t, err)
	paths := []string{""}
	var walk func(n *kong.Node, prefix string)
	walk = func(n *kong.Node, prefix string) {
		for _, ch := range n.Children {
			if ch.Type != kong.CommandNode || ch.Hidden {
				continue
			}
			paths = append(paths, prefix+ch.Name)
			walk(ch, prefix+ch.Name+" ")
		}
	}
	walk(p.Model.Node, "")
	return paths
}

func TestHelpGolden(t *testing.T) {
	t.Setenv("COLUMNS", "")
	paths := commandPaths(t)
	require.Greater(t, len(paths), 30, "every command is covered")
	for _, path := range paths {
		name := "root"
		if path != "" {
			name = strings.ReplaceAll(path, " ", "_")
		}
		t.Run(name, func(t *testing.T) {
			args := append(strings.Fields(path), "--help")
			var out, errOut bytes.Buffer
			code := Main(context.Background(), args, &out, &errOut)
			require.Equal(t, 0, code, errOut.String())
			help := out.String()
			if path != "" && len((&CLI{}).commandNode(t, path).Children) == 0 {
				assert.Contains(t, help, "Examples:", "every command's help shows an example")
			}
			golden(t, filepath.Join("help", name+".txt"), help)
		})
	}
}

// commandNode finds a command node by path.
func (c *CLI) commandNode(t *testing.T, path string) *kong.Node {
	p, err := kong.New(c, kong.Name("openpocket"))
	require.NoError(t, err)
	n := p.Model.Node
	for _, w := range strings.Fields(path) {
		n = findChild(n, w)
		require.NotNil(t, n, path)
	}
	return n
}

func TestVersionGolden(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		var out, errOut bytes.Buffer
		require.Equal(t, 0, Main(context.Background(), args, &out, &errOut), errOut.String())
		got := strings.Replace(out.String(), runtime.Version()+", "+runtime.GOOS+"/"+runtime.GOARCH, "GO, OS/ARCH", 1)
		golden(t, "version.txt", got)
	}
}

func TestHelpCommandMatchesFlag(t *testing.T) {
	var viaCmd, viaFlag, errOut bytes.Buffer
	require.Equal(t, 0, Main(context.Background(), []string{"help", "cron", "add"}, &viaCmd, &errOut), errOut.String())
	require.Equal(t, 0, Main(context.Background(), []string{"cron", "add", "--help"}, &viaFlag, &errOut), errOut.String())
	assert.Equal(t, viaFlag.String(), viaCmd.String())
	assert.Contains(t, viaCmd.String(), "Usage: openpocket cron add")
	assert.Equal(t, ExitUsage, Main(context.Background(), []string{"help", "nosuch"}, &viaCmd, &errOut))
}

func TestTopLevelHelpShowsExitCodes(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 0, Main(context.Background(), []string{"--help"}, &out, &errOut))
	for _, want := range []string{"Exit codes:", "0    ok", "3    device problem", "4    model endpoint problem", "130  interrupted"} {
		assert.Contains(t, out.String(), want)
	}
}
