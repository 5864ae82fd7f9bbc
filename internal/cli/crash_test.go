package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/playbooks"
)

// mainOut runs the CLI in-process and returns its exit code and stderr.
func mainOut(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, &out, &errb)
	assert.NotContains(t, errb.String(), "goroutine ", "a Go stack trace reached the user")
	assert.NotContains(t, errb.String(), "panic:", "a Go panic reached the user")
	return code, errb.String()
}

// TestBadInputGetsAClearErrorNotACrash: each input that used to crash or
// hang gets an error naming file and line (or compiles), exit 2.
func TestBadInputGetsAClearErrorNotACrash(t *testing.T) {
	home := t.TempDir()

	// `assert: 0` is a Lua expression, not a nil pointer.
	pb := writePlaybook(t, "assert0.yaml", "steps: [{assert: 0}]\n")
	code, stderr := mainOut(t, "--home", home, "lint", pb)
	assert.Equal(t, ExitOK, code, stderr)

	// An alias bomb is refused at its line.
	var bomb strings.Builder
	bomb.WriteString("steps:\n  - &a {tap: {x: 1, y: 1}}\n")
	prev := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g"} {
		fmt.Fprintf(&bomb, "  - &%s [%s]\n", name, strings.TrimSuffix(strings.Repeat("*"+prev+", ", 10), ", "))
		prev = name
	}
	pb = writePlaybook(t, "bomb.yaml", bomb.String())
	code, stderr = mainOut(t, "--home", home, "lint", pb)
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr, pb+":7:")
	assert.Contains(t, stderr, "YAML aliases expand to more than")

	// 200,000 steps fail fast at the first step over the limit.
	var big strings.Builder
	big.WriteString("name: big\nsteps:\n")
	for range 200000 {
		big.WriteString("  - back\n")
	}
	pb = writePlaybook(t, "big.yaml", big.String())
	code, stderr = mainOut(t, "--home", home, "lint", pb)
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr, fmt.Sprintf("%s:%d:5: steps[%d]: playbook has more than %d steps", pb, playbooks.MaxSteps+3, playbooks.MaxSteps, playbooks.MaxSteps))

	// Duplicate keys in config.json name both places.
	dupHome := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dupHome, "config.json"), []byte("{\n  \"defaultModel\": \"a\",\n  \"defaultModel\": \"b\"\n}\n"), 0o644))
	code, stderr = mainOut(t, "--home", dupHome, "model", "list")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr, filepath.Join(dupHome, "config.json")+`:3:3: defaultModel: duplicate key "defaultModel" (first at line 2, column 3)`)
}

// TestPlayOutputThatCannotBeWrittenSaysWhy: --output under a file fails
// before any device work, naming the directory and the reason.
func TestPlayOutputThatCannotBeWrittenSaysWhy(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	pb := writePlaybook(t, "p.yaml", "steps: [back]\n")
	out := filepath.Join(file, "reports")
	code, stderr := mainOut(t, "--home", t.TempDir(), "--device", "no-such-device", "play", pb, "--output", out)
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr, "--output "+out+": run output cannot be written there:")
	assert.Contains(t, stderr, "not a directory (a file is in the way of the directory)")
}

type panicCmd struct{}

func (panicCmd) Run(*App) error { panic("boom") }

// TestPanicBecomesAnInternalError: a bug of ours is one line and exit 70,
// not a Go stack trace.
func TestPanicBecomesAnInternalError(t *testing.T) {
	var grammar struct {
		Boom panicCmd `cmd:""`
	}
	parser, err := kong.New(&grammar)
	require.NoError(t, err)
	kctx, err := parser.Parse([]string{"boom"})
	require.NoError(t, err)
	var errb bytes.Buffer
	app := &App{sys: testSystem{}, Stderr: &errb}
	kctx.Bind(app)
	err = runCommand(kctx, app)
	require.Error(t, err)
	assert.Equal(t, ExitInternal, ExitCode(err))
	assert.Contains(t, err.Error(), "internal error: boom (a bug in openpocket")
	assert.Empty(t, errb.String())
}
