package cli

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/stretchr/testify/require"
)

// docCommand is one documented command line and where it is written.
type docCommand struct {
	where string // file:line
	line  string
}

// documentedCommands are the `openpocket …` lines of README.md and
// docs/*.md: each line of a shell block, and each inline code span that
// starts with openpocket or bin/openpocket.
func documentedCommands(t *testing.T) []docCommand {
	t.Helper()
	files, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	files = append(files, "../../README.md")
	span := regexp.MustCompile("`((?:bin/)?openpocket [^`]+)`")
	var out []docCommand
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		inBlock := false
		for i, ln := range strings.Split(string(data), "\n") {
			where := filepath.Base(f) + ":" + itoa(i+1)
			if strings.HasPrefix(ln, "```") {
				inBlock = strings.HasPrefix(ln, "```sh") || strings.HasPrefix(ln, "```bash") || strings.HasPrefix(ln, "```console")
				continue
			}
			if inBlock {
				c := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(ln), "$ "))
				if strings.HasPrefix(c, "openpocket ") || strings.HasPrefix(c, "bin/openpocket ") {
					out = append(out, docCommand{where, c})
				}
				continue
			}
			for _, m := range span.FindAllStringSubmatch(ln, -1) {
				out = append(out, docCommand{where, m[1]})
			}
		}
	}
	return out
}

// splitShell splits a documented command line as a shell would (quotes,
// a comment, the first pipe or redirection ends it).
func splitShell(s string) []string {
	var words []string
	var cur strings.Builder
	quote, have := byte(0), false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			} else {
				cur.WriteByte(ch)
			}
		case ch == '\'' || ch == '"':
			quote, have = ch, true
		case ch == ' ' || ch == '\t':
			if have {
				words = append(words, cur.String())
				cur.Reset()
				have = false
			}
		case ch == '#' && !have, ch == '|', ch == '>', ch == '<', ch == ';', ch == '&':
			i = len(s)
		default:
			cur.WriteByte(ch)
			have = true
		}
	}
	if have {
		words = append(words, cur.String())
	}
	return words
}

// placeholder reports whether a documented line is a pattern rather than
// a command (alternatives, an ellipsis, CAPITAL placeholders).
var placeholder = regexp.MustCompile(`…|\.\.\.|\b[A-Z][A-Z_]{1,}\b|\w\|\w|\[|<[a-z-]+>|(^| )[a-z]+(/[a-z]+)+( |$)`)

// reference is a parse error at the end of the line: a command named in
// prose without its arguments ("`openpocket agent` runs …") or without
// the flags it requires ("for `openpocket script run` the …", which
// needs --file or --text); its command path still had to exist to get
// there.
func reference(err error) bool {
	msg := err.Error()
	return strings.HasPrefix(msg, `expected "<`) || strings.Contains(msg, `but got "EOL"`) || strings.HasPrefix(msg, "missing flags: ") ||
		(strings.HasPrefix(msg, "expected one of") && !strings.Contains(msg, "unexpected"))
}

// TestDocumentedCommandsParse: every openpocket command line written in
// README.md and docs/ parses against the CLI's grammar (its command and
// flags exist, flag values have the right type), so no documented example
// refers to a command or flag that is not there.
func TestDocumentedCommandsParse(t *testing.T) {
	cmds := documentedCommands(t)
	require.Greater(t, len(cmds), 60, "the docs' examples are found")
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	t.Chdir(root) // the examples' paths are relative to the repository
	checked := 0
	for _, dc := range cmds {
		if placeholder.MatchString(strings.TrimPrefix(dc.line, "bin/")) {
			continue
		}
		args := splitShell(dc.line)[1:]
		var c CLI
		exited := false // --version, --help: printed and done
		p, err := kong.New(&c, kong.Name("openpocket"), kong.Exit(func(int) { exited = true }), kong.Writers(io.Discard, io.Discard),
			kong.Vars{"version": versionLine()})
		require.NoError(t, err)
		if _, err := p.Parse(args); err != nil && !exited && !(reference(err) && len(args) <= 3) {
			t.Errorf("%s: `%s` does not parse: %v", dc.where, dc.line, err)
		}
		checked++
	}
	t.Logf("%d documented command lines checked", checked)
	require.Greater(t, checked, 60)
}
